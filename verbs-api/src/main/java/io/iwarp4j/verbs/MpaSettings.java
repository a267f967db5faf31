package io.iwarp4j.verbs;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * How a device's connections run the MPA startup (RFC 5044 §7.1, RFC 6581 §9): revision, CRC,
 * Markers, the peer-to-peer model and its RTR types, timeouts, FPDU sizing. The device-wide
 * starting point ({@link DeviceConfig.Builder#mpaSettings(MpaSettings)}); per connection,
 * {@link ConnectParams} overrides some, and private data and IRD/ORD come from
 * {@link ConnectParams} and {@link AcceptParams}. Immutable; build with {@link #builder()}.
 *
 * <p>The defaults match what Linux siw sends and expects: revision 2 with RFC 6581 enhanced data
 * (IRD/ORD), CRC requested, no Markers, the client-server model. A Responder answers in the
 * Request's revision and enhanced-ness, so it ignores {@code revision}, {@code enhanced},
 * {@code peerToPeer} and {@code replyTimeout}; its {@code rtrTypes} are the RTRs it supports.
 */
public final class MpaSettings {
  private static final MpaSettings DEFAULTS =
      new MpaSettings(io.iwarp4j.mpa.MpaSettings.defaults());

  private final io.iwarp4j.mpa.MpaSettings settings;
  private final Set<RtrType> rtrTypes;

  private MpaSettings(io.iwarp4j.mpa.MpaSettings settings) {
    this.settings = settings;
    this.rtrTypes = Collections.unmodifiableSet(RtrType.of(settings.rtrTypes()));
  }

  /**
   * The defaults: revision 2, enhanced data, CRC on, no Markers, client-server.
   *
   * @return the default settings
   */
  public static MpaSettings defaults() {
    return DEFAULTS;
  }

  /**
   * A builder holding the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder(io.iwarp4j.mpa.MpaSettings.builder());
  }

  /**
   * A builder that starts from these settings.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder(settings.toBuilder());
  }

  /**
   * The MPA revision sent: 1 (RFC 5044) or 2 (RFC 6581).
   *
   * @return 1 or 2
   */
  public int revision() {
    return settings.revision();
  }

  /**
   * Whether RFC 6581 enhanced data (the S bit, IRD/ORD) is sent with revision 2.
   *
   * @return true to send enhanced data
   */
  public boolean enhanced() {
    return settings.enhanced();
  }

  /**
   * Whether this end asks for CRC32c (the MPA C bit; CRC is used when either end asks).
   *
   * @return true to ask for CRC
   */
  public boolean crc() {
    return settings.crc();
  }

  /**
   * Whether this end asks the peer to insert Markers in what it sends (the M bit).
   *
   * @return true to ask for Markers
   */
  public boolean markers() {
    return settings.markers();
  }

  /**
   * Whether the Initiator asks for the RFC 6581 peer-to-peer model (an RTR message first).
   *
   * @return true for peer-to-peer, false for client-server
   */
  public boolean peerToPeer() {
    return settings.peerToPeer();
  }

  /**
   * The RTR types this end can use: offered by an Initiator (peer-to-peer), supported by a
   * Responder. Never empty.
   *
   * @return an unmodifiable set
   */
  public Set<RtrType> rtrTypes() {
    return rtrTypes;
  }

  /**
   * How long a Responder waits for the MPA Request (siw: 5 s).
   *
   * @return the timeout
   */
  public Duration requestTimeout() {
    return settings.requestTimeout();
  }

  /**
   * How long an Initiator waits for the MPA Reply (siw: 10 s).
   *
   * @return the timeout
   */
  public Duration replyTimeout() {
    return settings.replyTimeout();
  }

  /**
   * How long an Initiator keeps quiet after the MPA Reply before its first FPDU (unless set,
   * 50 ms in the peer-to-peer model and zero in the client-server model; see
   * {@link ConnectParams.Builder#firstFpduDelay(Duration)}).
   *
   * @return the quiet period; zero = send at once
   */
  public Duration firstFpduDelay() {
    return settings.firstFpduDelay();
  }

  /**
   * Whether a client-server Responder sends as soon as its MPA Reply is written. <b>Not RFC 5044
   * conformant</b>; see {@link Builder#responderSendsFirst(boolean)}.
   *
   * @return true when a Responder sends before the Initiator's first FPDU
   */
  public boolean responderSendsFirst() {
    return settings.responderSendsFirst();
  }

  /**
   * After sending a Terminate, how long this end keeps reading (and discarding) the peer's
   * octets, waiting for the peer to close, before it closes the socket itself (default 2 s).
   *
   * @return the linger
   */
  public Duration terminateLinger() {
    return settings.terminateLinger();
  }

  /**
   * The effective MSS FPDUs are sized by; 0 = read it from the socket where possible.
   *
   * @return the EMSS, or 0
   */
  public int emss() {
    return settings.emss();
  }

  /**
   * Upper bound on the ULPDU length this end sends; 0 = derived from the EMSS only.
   *
   * @return the bound, or 0
   */
  public int maxUlpduLength() {
    return settings.maxUlpduLength();
  }

  /** The MPA layer's settings these stand for. */
  io.iwarp4j.mpa.MpaSettings mpa() {
    return settings;
  }

  @Override
  public String toString() {
    return "MpaSettings{rev=" + revision() + ", enhanced=" + enhanced() + ", crc=" + crc()
        + ", markers=" + markers() + ", p2p=" + peerToPeer() + ", rtr=" + rtrTypes
        + ", requestTimeout=" + requestTimeout() + ", replyTimeout=" + replyTimeout()
        + ", firstFpduDelay=" + firstFpduDelay() + ", terminateLinger=" + terminateLinger()
        + (responderSendsFirst() ? ", responderSendsFirst (not RFC 5044 conformant)" : "")
        + ", emss=" + emss() + ", maxUlpdu=" + maxUlpduLength() + "}";
  }

  /** Builder; every setter checks its argument and names the problem when it is wrong. */
  public static final class Builder {
    private final io.iwarp4j.mpa.MpaSettings.Builder b;

    private Builder(io.iwarp4j.mpa.MpaSettings.Builder b) {
      this.b = b;
    }

    /**
     * Sets the MPA revision sent (default 2).
     *
     * @param revision 1 (RFC 5044) or 2 (RFC 6581)
     * @return this builder
     * @throws IllegalArgumentException for any other value
     */
    public Builder revision(int revision) {
      b.revision(revision);
      return this;
    }

    /**
     * Sets whether RFC 6581 enhanced data (the S bit, IRD/ORD) is sent with revision 2 (default
     * true).
     *
     * @param enhanced true to send enhanced data
     * @return this builder
     */
    public Builder enhanced(boolean enhanced) {
      b.enhanced(enhanced);
      return this;
    }

    /**
     * Sets whether this end asks for CRC32c (the C bit; default true).
     *
     * @param crc true to ask for CRC
     * @return this builder
     */
    public Builder crc(boolean crc) {
      b.crc(crc);
      return this;
    }

    /**
     * Sets whether this end asks for Markers (the M bit; default false; Linux siw refuses them).
     *
     * @param markers true to ask for Markers
     * @return this builder
     */
    public Builder markers(boolean markers) {
      b.markers(markers);
      return this;
    }

    /**
     * Sets the RFC 6581 peer-to-peer model (an RTR from the Initiator) instead of client-server
     * (default false); needs revision 2 with enhanced data, which {@link #build()} checks.
     *
     * @param peerToPeer true for peer-to-peer
     * @return this builder
     */
    public Builder peerToPeer(boolean peerToPeer) {
      b.peerToPeer(peerToPeer);
      return this;
    }

    /**
     * Sets the RTR types this end can use (default all three).
     *
     * @param types at least one; copied
     * @return this builder
     * @throws IllegalArgumentException if empty
     */
    public Builder rtrTypes(Set<RtrType> types) {
      Objects.requireNonNull(types, "types");
      b.rtrTypes(RtrType.toMpa(types));
      return this;
    }

    /**
     * Sets the RTR types this end can use.
     *
     * @param first one RTR type
     * @param rest more RTR types
     * @return this builder
     */
    public Builder rtrTypes(RtrType first, RtrType... rest) {
      return rtrTypes(EnumSet.of(first, rest));
    }

    /**
     * Sets how long a Responder waits for the MPA Request (default 5 s).
     *
     * @param timeout positive
     * @return this builder
     * @throws IllegalArgumentException when zero or negative
     */
    public Builder requestTimeout(Duration timeout) {
      b.requestTimeout(timeout);
      return this;
    }

    /**
     * Sets how long an Initiator waits for the MPA Reply (default 10 s).
     *
     * @param timeout positive
     * @return this builder
     * @throws IllegalArgumentException when zero or negative
     */
    public Builder replyTimeout(Duration timeout) {
      b.replyTimeout(timeout);
      return this;
    }

    /**
     * Sets how long an Initiator waits after the MPA Reply before its first FPDU, in both
     * models (default: 50 ms peer-to-peer, zero client-server; see
     * {@link ConnectParams.Builder#firstFpduDelay(Duration)}).
     *
     * @param delay 0..10 s
     * @return this builder
     * @throws IllegalArgumentException when negative or above 10 s
     */
    public Builder firstFpduDelay(Duration delay) {
      b.firstFpduDelay(delay);
      return this;
    }

    /**
     * Lets a client-server Responder send as soon as its MPA Reply has been written, without
     * waiting for the Initiator's first FPDU (default {@code false}).
     *
     * <p><b>{@code true} deliberately departs from RFC 5044 §7.1.2 rule 4</b>, which says a
     * Responder MUST NOT send an FPDU before it has received one from the Initiator. It exists
     * for application protocols whose server speaks first toward peers that never ask for the
     * peer-to-peer model, notably perftest's {@code ib_write_lat} with a Linux siw client, and is
     * safe <b>only toward Initiators that accept FPDUs right after the Reply</b>, like Linux siw
     * with iw_cm and iwarp4j. In the peer-to-peer model it changes nothing. A single accept can
     * override it ({@link AcceptParams.Builder#responderSendsFirst(boolean)}).
     *
     * @param sendsFirst true to send before the Initiator's first FPDU (not conformant)
     * @return this builder
     */
    public Builder responderSendsFirst(boolean sendsFirst) {
      b.responderSendsFirst(sendsFirst);
      return this;
    }

    /**
     * Sets how long this end drains the peer's input after its Terminate before it closes
     * (default 2 s; see {@link MpaSettings#terminateLinger()}). Closing with unread input makes
     * the kernel send a RST that can destroy the Terminate in flight.
     *
     * @param linger 0..60 s
     * @return this builder
     * @throws IllegalArgumentException when negative or above 60 s
     */
    public Builder terminateLinger(Duration linger) {
      b.terminateLinger(linger);
      return this;
    }

    /**
     * Sets the effective MSS to size FPDUs by (default 0: read it from the socket where
     * possible).
     *
     * @param emss 0, or 64..65535
     * @return this builder
     * @throws IllegalArgumentException when out of range
     */
    public Builder emss(int emss) {
      b.emss(emss);
      return this;
    }

    /**
     * Sets an upper bound on the ULPDU length this end sends (default 0: from the EMSS only).
     *
     * @param length 0, or 64..65535
     * @return this builder
     * @throws IllegalArgumentException when out of range
     */
    public Builder maxUlpduLength(int length) {
      b.maxUlpduLength(length);
      return this;
    }

    /**
     * Builds the settings.
     *
     * @return the settings
     * @throws IllegalArgumentException when peer-to-peer is asked for without revision 2 and
     *     enhanced data
     */
    public MpaSettings build() {
      return new MpaSettings(b.build());
    }
  }
}
