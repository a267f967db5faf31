package io.iwarp4j.mpa;

import io.iwarp4j.wire.EnhancedConnectionData;
import io.iwarp4j.wire.MpaStartupFrame;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What one end of an MPA connection asks for and offers during startup (RFC 5044 §7.1,
 * RFC 6581 §9). Immutable; build with {@link #builder()}.
 *
 * <p>The defaults match what Linux siw sends and expects: Rev 2 with the S bit and IRD/ORD,
 * CRC requested, no Markers (siw rejects them), client-server model.
 *
 * <p>An Initiator uses every setting. A Responder answers in the Request's revision and
 * enhanced-ness, so it ignores {@code revision}, {@code enhanced}, {@code peerToPeer} and
 * {@code replyTimeout}; its {@code rtrTypes} are the RTRs it supports, and {@code ird},
 * {@code ord} and {@code privateData} are what {@link MpaConnectRequest#accept()} answers with.
 */
public final class MpaSettings {
  /** The largest Private Data a startup frame may carry (RFC 5044 §7.1.1). */
  public static final int MAX_PRIVATE_DATA = MpaStartupFrame.MAX_PRIVATE_DATA;
  /** Octets of RFC 6581 enhanced connection data at the start of Private Data when S=1. */
  public static final int ENHANCED_DATA_LENGTH = 4;
  /** IRD/ORD value meaning "no automatic negotiation" (RFC 6581 §9.1). */
  public static final int IRD_ORD_NO_NEGOTIATION = EnhancedConnectionData.NO_NEGOTIATION;

  /**
   * Default {@link #firstFpduDelay()} in the peer-to-peer model: 50 ms. Linux siw's accept race
   * loses an RTR sent at once after its Reply, and closing a connection whose RTR siw has not
   * taken crashed the Linux guest (docs/interop.md, issue 22); 50 ms completed 40 of 40 warm
   * peer-to-peer connections against siw under emulation, and is a round margin over the widest
   * window measured there (a millisecond is plenty on real hardware).
   */
  public static final Duration DEFAULT_P2P_FIRST_FPDU_DELAY = Duration.ofMillis(50);
  /** Default {@link #terminateLinger()}: 2 s (declared before {@code DEFAULTS}, which uses it). */
  public static final Duration DEFAULT_TERMINATE_LINGER = Duration.ofSeconds(2);
  private static final MpaSettings DEFAULTS = builder().build();

  private final int revision;
  private final boolean enhanced;
  private final boolean crc;
  private final boolean markers;
  private final boolean peerToPeer;
  private final Set<RtrType> rtrTypes;
  private final int ird;
  private final int ord;
  private final byte[] privateData;
  private final Duration requestTimeout;
  private final Duration replyTimeout;
  /** Null: the model's default (see {@link #firstFpduDelay()}). */
  private final Duration firstFpduDelay;
  private final boolean responderSendsFirst;
  private final Duration terminateLinger;
  private final int emss;
  private final int maxUlpduLength;

  private MpaSettings(Builder b) {
    this.revision = b.revision;
    this.enhanced = b.enhanced;
    this.crc = b.crc;
    this.markers = b.markers;
    this.peerToPeer = b.peerToPeer;
    this.rtrTypes = Collections.unmodifiableSet(EnumSet.copyOf(b.rtrTypes));
    this.ird = b.ird;
    this.ord = b.ord;
    this.privateData = b.privateData.clone();
    this.requestTimeout = b.requestTimeout;
    this.replyTimeout = b.replyTimeout;
    this.firstFpduDelay = b.firstFpduDelay;
    this.responderSendsFirst = b.responderSendsFirst;
    this.terminateLinger = b.terminateLinger;
    this.emss = b.emss;
    this.maxUlpduLength = b.maxUlpduLength;
  }

  /** {@return the defaults: Rev 2, S=1, CRC on, no Markers, client-server, IRD=ORD=16} */
  public static MpaSettings defaults() {
    return DEFAULTS;
  }

  /** {@return a new builder holding the defaults} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return a builder that starts from these settings} */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.revision = revision;
    b.enhanced = enhanced;
    b.crc = crc;
    b.markers = markers;
    b.peerToPeer = peerToPeer;
    b.rtrTypes = EnumSet.copyOf(rtrTypes);
    b.ird = ird;
    b.ord = ord;
    b.privateData = privateData.clone();
    b.requestTimeout = requestTimeout;
    b.replyTimeout = replyTimeout;
    b.firstFpduDelay = firstFpduDelay;
    b.responderSendsFirst = responderSendsFirst;
    b.terminateLinger = terminateLinger;
    b.emss = emss;
    b.maxUlpduLength = maxUlpduLength;
    return b;
  }

  /** {@return the MPA revision sent: 1 (RFC 5044) or 2 (RFC 6581)} */
  public int revision() {
    return revision;
  }

  /** {@return whether the S bit and the 4 octets of enhanced connection data are sent} (Rev 2) */
  public boolean enhanced() {
    return enhanced;
  }

  /** {@return the C bit: whether this end asks for CRC32c} (RFC 5044 §4.4; MUST default to on) */
  public boolean crc() {
    return crc;
  }

  /** {@return the M bit: whether this end asks the peer to insert Markers in what it sends us} */
  public boolean markers() {
    return markers;
  }

  /** {@return the A flag: peer-to-peer model with an RTR indication} (RFC 6581 §9.2) */
  public boolean peerToPeer() {
    return peerToPeer;
  }

  /**
   * {@return the RTR indications this end can use}: offered by an Initiator (when peer-to-peer),
   * supported by a Responder. Never empty.
   */
  public Set<RtrType> rtrTypes() {
    return rtrTypes;
  }

  /** {@return the inbound RDMA Read/Atomic queue depth, 0..0x3FFF (0x3FFF = no negotiation)} */
  public int ird() {
    return ird;
  }

  /** {@return the outbound RDMA Read/Atomic queue depth, 0..0x3FFF (0x3FFF = no negotiation)} */
  public int ord() {
    return ord;
  }

  /** {@return the ULP private data carried after the enhanced data} (a copy) */
  public byte[] privateData() {
    return privateData.clone();
  }

  /** {@return the length of the ULP private data} */
  public int privateDataLength() {
    return privateData.length;
  }

  /** {@return how long a Responder waits for the MPA Request} (siw: 5 s) */
  public Duration requestTimeout() {
    return requestTimeout;
  }

  /** {@return how long an Initiator waits for the MPA Reply} (siw: 10 s) */
  public Duration replyTimeout() {
    return replyTimeout;
  }

  /**
   * How long an Initiator keeps quiet after a successful MPA Reply before its first FPDU (the RTR
   * in peer-to-peer mode, else the ULP's first message). Unless set, it is
   * {@link #DEFAULT_P2P_FIRST_FPDU_DELAY} (50 ms) in the peer-to-peer model and zero in the
   * client-server model. Linux siw installs its receive handler only after it has sent its Reply,
   * and an FPDU arriving in between sits unread until more data comes (docs/interop.md, "siw's
   * accept race"); in the peer-to-peer model a close before siw took the RTR also crashed the
   * Linux guest, so a peer-to-peer Initiator with a non-zero quiet period also holds a close back
   * until the RTR has been written and the quiet period has passed again
   * (see {@link MpaInitiatorHandler}).
   * Between iwarp4j peers zero is safe (their Responder reads FPDUs before it sends its Reply).
   *
   * @return the quiet period; zero = send at once
   */
  public Duration firstFpduDelay() {
    if (firstFpduDelay != null) {
      return firstFpduDelay;
    }
    return peerToPeer ? DEFAULT_P2P_FIRST_FPDU_DELAY : Duration.ZERO;
  }

  /**
   * Whether a client-server Responder may send FPDUs as soon as its MPA Reply is written, before
   * the Initiator's first FPDU arrived. <b>This deliberately departs from RFC 5044 §7.1.2 rule
   * 4</b> (a Responder MUST NOT send an FPDU before it has received one from the Initiator); the
   * default, {@code false}, is the conformant behaviour. See
   * {@link Builder#responderSendsFirst(boolean)} for why it exists and when it is safe.
   *
   * @return true when a client-server Responder sends right after its Reply (not conformant)
   */
  public boolean responderSendsFirst() {
    return responderSendsFirst;
  }

  /**
   * After sending a Terminate, how long this end keeps reading (and discarding) the peer's
   * octets, its sending half already shut down, waiting for the peer to close before it closes
   * the socket itself (default {@link #DEFAULT_TERMINATE_LINGER}). Closing with unread input
   * would make the kernel send a RST that destroys the Terminate in flight; see
   * {@link TerminateClose}. Zero closes as soon as the Terminate has left.
   *
   * @return the linger after a Terminate
   */
  public Duration terminateLinger() {
    return terminateLinger;
  }

  /** {@return the effective MSS to size FPDUs by; 0 = read it from the socket where possible} */
  public int emss() {
    return emss;
  }

  /** {@return the upper bound on the ULPDU length this end sends; 0 = derived from the EMSS} */
  public int maxUlpduLength() {
    return maxUlpduLength;
  }

  /**
   * {@return the Private Data octets a startup frame with these settings carries}, enhanced data
   * included.
   */
  public int startupPrivateDataLength() {
    return (enhancedInUse() ? ENHANCED_DATA_LENGTH : 0) + privateData.length;
  }

  /** {@return whether the frames carry RFC 6581 enhanced data (Rev 2 and S)} */
  public boolean enhancedInUse() {
    return revision >= 2 && enhanced;
  }

  @Override
  public String toString() {
    return "MpaSettings{rev=" + revision + ", S=" + enhanced + ", crc=" + crc + ", markers="
        + markers + ", p2p=" + peerToPeer + ", rtr=" + rtrTypes + ", ird=" + ird + ", ord=" + ord
        + ", privateData=" + privateData.length + "B, requestTimeout=" + requestTimeout
        + ", replyTimeout=" + replyTimeout + ", firstFpduDelay=" + firstFpduDelay()
        + ", terminateLinger=" + terminateLinger
        + (responderSendsFirst ? ", responderSendsFirst (not RFC 5044 conformant)" : "")
        + ", emss=" + emss + ", maxUlpdu=" + maxUlpduLength + "}";
  }

  /** Builder; every setter validates its argument and names the problem when it is wrong. */
  public static final class Builder {
    private int revision = 2;
    private boolean enhanced = true;
    private boolean crc = true;
    private boolean markers;
    private boolean peerToPeer;
    private EnumSet<RtrType> rtrTypes = EnumSet.allOf(RtrType.class);
    private int ird = 16;
    private int ord = 16;
    private byte[] privateData = new byte[0];
    private Duration requestTimeout = Duration.ofSeconds(5);
    private Duration replyTimeout = Duration.ofSeconds(10);
    private Duration firstFpduDelay;
    private boolean responderSendsFirst;
    private Duration terminateLinger = DEFAULT_TERMINATE_LINGER;
    private int emss;
    private int maxUlpduLength;

    private Builder() {
    }

    /**
     * Sets the MPA revision sent (default 2).
     *
     * @param revision 1 (RFC 5044) or 2 (RFC 6581)
     * @return this builder
     * @throws IllegalArgumentException for any other value
     */
    public Builder revision(int revision) {
      if (revision != 1 && revision != 2) {
        throw new IllegalArgumentException("MPA revision must be 1 or 2, not " + revision);
      }
      this.revision = revision;
      return this;
    }

    /**
     * Sets whether RFC 6581 enhanced data (the S bit, IRD/ORD) is sent with Rev 2 (default true).
     *
     * @param enhanced true to send enhanced data
     * @return this builder
     */
    public Builder enhanced(boolean enhanced) {
      this.enhanced = enhanced;
      return this;
    }

    /**
     * Sets whether this end asks for CRC32c (the C bit; default true).
     *
     * @param crc true to ask for CRC
     * @return this builder
     */
    public Builder crc(boolean crc) {
      this.crc = crc;
      return this;
    }

    /**
     * Sets whether this end asks for Markers (the M bit; default false).
     *
     * @param markers true to ask for Markers
     * @return this builder
     */
    public Builder markers(boolean markers) {
      this.markers = markers;
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
      this.peerToPeer = peerToPeer;
      return this;
    }

    /**
     * Sets the RTR indications this end can use (default all three).
     *
     * @param types at least one RTR type; copied
     * @return this builder
     * @throws IllegalArgumentException if empty
     */
    public Builder rtrTypes(Set<RtrType> types) {
      Objects.requireNonNull(types, "types");
      if (types.isEmpty()) {
        throw new IllegalArgumentException("at least one RTR type is required (RFC 6581 §9.2)");
      }
      this.rtrTypes = EnumSet.copyOf(types);
      return this;
    }

    /**
     * Sets the RTR indications this end can use.
     *
     * @param first one RTR type
     * @param rest more RTR types
     * @return this builder
     */
    public Builder rtrTypes(RtrType first, RtrType... rest) {
      return rtrTypes(EnumSet.of(first, rest));
    }

    /**
     * Sets the inbound RDMA Read/Atomic queue depth stated in enhanced data (default 16).
     *
     * @param ird 0..0x3FFF (0x3FFF = no negotiation)
     * @return this builder
     * @throws IllegalArgumentException when out of range
     */
    public Builder ird(int ird) {
      this.ird = checkIrdOrd("IRD", ird);
      return this;
    }

    /**
     * Sets the outbound RDMA Read/Atomic queue depth stated in enhanced data (default 16).
     *
     * @param ord 0..0x3FFF (0x3FFF = no negotiation)
     * @return this builder
     * @throws IllegalArgumentException when out of range
     */
    public Builder ord(int ord) {
      this.ord = checkIrdOrd("ORD", ord);
      return this;
    }

    /**
     * ULP private data for the startup frame: with enhanced data at most 508 octets, otherwise
     * 512 (RFC 5044 §7.1.1). Linux siw, iw_cm and Chelsio refuse more than 256 octets in all,
     * enhanced data included: a startup frame beyond that logs a WARN naming the limit.
     *
     * @param data the private data; copied
     * @return this builder
     */
    public Builder privateData(byte[] data) {
      Objects.requireNonNull(data, "data");
      this.privateData = data.clone();
      return this;
    }

    /**
     * Sets how long a Responder waits for the MPA Request (default 5 s).
     *
     * @param timeout positive
     * @return this builder
     * @throws IllegalArgumentException when zero or negative
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = checkTimeout("requestTimeout", timeout);
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
      this.replyTimeout = checkTimeout("replyTimeout", timeout);
      return this;
    }

    /**
     * Sets how long an Initiator waits after the MPA Reply before its first FPDU, in both models
     * (default: 50 ms peer-to-peer, zero client-server; see {@link MpaSettings#firstFpduDelay()}).
     * At most the reply timeout's order: 0..10 s.
     *
     * @param delay zero or positive, at most 10 s
     * @return this builder
     * @throws IllegalArgumentException when negative or above 10 s
     */
    public Builder firstFpduDelay(Duration delay) {
      Objects.requireNonNull(delay, "firstFpduDelay");
      if (delay.isNegative() || delay.compareTo(Duration.ofSeconds(10)) > 0) {
        throw new IllegalArgumentException("firstFpduDelay must be 0..10 s, not " + delay);
      }
      this.firstFpduDelay = delay;
      return this;
    }

    /**
     * Lets a client-server Responder send FPDUs as soon as its MPA Reply has been written, without
     * waiting for the Initiator's first FPDU (default {@code false}).
     *
     * <p><b>{@code true} deliberately departs from RFC 5044 §7.1.2 rule 4</b>, which says a
     * Responder MUST NOT send an FPDU before it has received and validated one from the
     * Initiator. The rule gives an Initiator time to move the connection into Full Operation
     * after the Reply (an implementation may, for instance, hand it to offload hardware only
     * then); an Initiator that is not reading FPDUs yet may misread or lose an early one. The
     * setting exists for interoperability with application protocols whose server
     * speaks first over peers that never ask for the RFC 6581 peer-to-peer model, notably
     * perftest's {@code ib_write_lat} (its server writes first) with a Linux siw client: siw's own
     * Responder ignores rule 4, so siw-to-siw works, and a conformant Responder deadlocks.
     *
     * <p>It is safe <b>only toward Initiators that accept FPDUs right after the Reply</b>, like
     * Linux siw with iw_cm (and iwarp4j's own Initiator, whose deframer is installed before the
     * Reply is read). Toward any other Initiator an early FPDU may fail the connection. It
     * affects nothing else: the Reply is always written before the
     * first FPDU, an Initiator ignores it, and in the peer-to-peer model the Responder still
     * waits for the RTR (RFC 6581 already lets it send after that). The default is the
     * conformant {@code false}; a single accept can override it
     * ({@link MpaConnectRequest#accept(int, int, byte[], boolean)}).
     *
     * @param sendsFirst true to send before the Initiator's first FPDU (not conformant)
     * @return this builder
     */
    public Builder responderSendsFirst(boolean sendsFirst) {
      this.responderSendsFirst = sendsFirst;
      return this;
    }

    /**
     * Sets how long this end drains the peer's input after its Terminate before it closes
     * (default 2 s; see {@link MpaSettings#terminateLinger()}).
     *
     * @param linger zero or positive, at most 60 s
     * @return this builder
     * @throws IllegalArgumentException when negative or above 60 s
     */
    public Builder terminateLinger(Duration linger) {
      Objects.requireNonNull(linger, "terminateLinger");
      if (linger.isNegative() || linger.compareTo(Duration.ofSeconds(60)) > 0) {
        throw new IllegalArgumentException("terminateLinger must be 0..60 s, not " + linger);
      }
      this.terminateLinger = linger;
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
      if (emss != 0 && (emss < 64 || emss > 65535)) {
        throw new IllegalArgumentException("EMSS must be 0 (automatic) or 64..65535, not " + emss);
      }
      this.emss = emss;
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
      if (length != 0 && (length < 64 || length > 65535)) {
        throw new IllegalArgumentException(
            "maxUlpduLength must be 0 (from EMSS) or 64..65535, not " + length);
      }
      this.maxUlpduLength = length;
      return this;
    }

    /**
     * Builds the settings.
     *
     * @return the settings
     * @throws IllegalArgumentException when the private data does not fit the startup frame, or
     *     peer-to-peer mode is asked for without revision 2 and enhanced data
     */
    public MpaSettings build() {
      int pd = (revision >= 2 && enhanced ? ENHANCED_DATA_LENGTH : 0) + privateData.length;
      if (pd > MAX_PRIVATE_DATA) {
        throw new IllegalArgumentException("private data of " + privateData.length
            + " octets does not fit: at most " + MAX_PRIVATE_DATA + " octets including "
            + (pd - privateData.length) + " of enhanced data (RFC 5044 §7.1.1, RFC 6581 §9)");
      }
      if (peerToPeer && !(revision >= 2 && enhanced)) {
        throw new IllegalArgumentException(
            "peer-to-peer mode needs MPA revision 2 with enhanced data (RFC 6581 §9.2)");
      }
      return new MpaSettings(this);
    }

    private static int checkIrdOrd(String what, int value) {
      if (value < 0 || value > IRD_ORD_NO_NEGOTIATION) {
        throw new IllegalArgumentException(what + " must be 0..0x3FFF (14 bits), not " + value);
      }
      return value;
    }

    private static Duration checkTimeout(String what, Duration d) {
      Objects.requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, not " + d);
      }
      return d;
    }
  }
}
