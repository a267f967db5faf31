package io.iwarp4j.verbs;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * How to connect, the counterpart of {@code rdma_conn_param} plus the MPA choices: private
 * data, IRD/ORD, and overrides of the device's MPA settings (CRC, Markers, revision,
 * peer-to-peer mode and RTR types, timeouts). Immutable; build with {@link #builder()}. Unset
 * values come from the queue pair (IRD/ORD) and the device ({@link DeviceConfig}).
 */
public final class ConnectParams {
  private static final ConnectParams DEFAULTS = builder().build();

  private final byte[] privateData;
  private final int ird;
  private final int ord;
  private final Boolean crc;
  private final Boolean markers;
  private final Integer revision;
  private final Boolean peerToPeer;
  private final Set<RtrType> rtrTypes;
  private final Duration connectTimeout;
  private final Duration replyTimeout;
  private final Duration firstFpduDelay;
  private final ConnectionEventListener eventListener;
  private final TlsSettings tls;
  private final TcpLiveness tcp;

  private ConnectParams(Builder b) {
    this.tls = b.tls;
    this.tcp = b.tcp;
    this.privateData = b.privateData.clone();
    this.ird = b.ird;
    this.ord = b.ord;
    this.crc = b.crc;
    this.markers = b.markers;
    this.revision = b.revision;
    this.peerToPeer = b.peerToPeer;
    this.rtrTypes = b.rtrTypes == null ? null : EnumSet.copyOf(b.rtrTypes);
    this.connectTimeout = b.connectTimeout;
    this.replyTimeout = b.replyTimeout;
    this.firstFpduDelay = b.firstFpduDelay;
    this.eventListener = b.eventListener;
  }

  /**
   * Everything from the queue pair and the device, no private data, no listener.
   *
   * @return the defaults
   */
  public static ConnectParams defaults() {
    return DEFAULTS;
  }

  /**
   * Starts building.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The private data for the MPA Request.
   *
   * @return a copy
   */
  public byte[] privateData() {
    return privateData.clone();
  }

  /**
   * The IRD to offer.
   *
   * @return the IRD, or -1 for the queue pair's
   */
  public int ird() {
    return ird;
  }

  /**
   * The ORD to ask for.
   *
   * @return the ORD, or -1 for the queue pair's
   */
  public int ord() {
    return ord;
  }

  /**
   * The event listener.
   *
   * @return the listener, or null
   */
  public ConnectionEventListener eventListener() {
    return eventListener;
  }

  /**
   * The TCP connect timeout.
   *
   * @return the timeout, or null for the device's
   */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /**
   * The TLS to start the connection with (an iwarp4j extension, see {@link TlsSettings}).
   *
   * @return the settings, or null for none
   */
  public TlsSettings tls() {
    return tls;
  }

  /** The TCP keepalive and user timeout overrides. */
  TcpLiveness tcp() {
    return tcp;
  }

  /** The MPA Initiator settings: the device's, overridden by these parameters. */
  io.iwarp4j.mpa.MpaSettings initiatorSettings(MpaSettings base, QueuePairCapabilities caps) {
    io.iwarp4j.mpa.MpaSettings.Builder b = base.mpa().toBuilder()
        .privateData(privateData)
        .ird(ird >= 0 ? ird : caps.ird())
        .ord(ord >= 0 ? ord : caps.ord());
    if (crc != null) {
      b.crc(crc);
    }
    if (markers != null) {
      b.markers(markers);
    }
    if (revision != null) {
      b.revision(revision);
    }
    if (peerToPeer != null) {
      b.peerToPeer(peerToPeer);
    }
    if (rtrTypes != null) {
      b.rtrTypes(RtrType.toMpa(rtrTypes));
    }
    if (replyTimeout != null) {
      b.replyTimeout(replyTimeout);
    }
    if (firstFpduDelay != null) {
      b.firstFpduDelay(firstFpduDelay);
    }
    return b.build();
  }

  @Override
  public String toString() {
    return "ConnectParams{privateData=" + privateData.length + "B, ird=" + ird + ", ord=" + ord
        + ", crc=" + crc + ", markers=" + markers + ", revision=" + revision + ", p2p="
        + peerToPeer + ", rtr=" + rtrTypes + ", connectTimeout=" + connectTimeout
        + ", replyTimeout=" + replyTimeout + ", firstFpduDelay=" + firstFpduDelay
        + (tls != null ? ", " + tls : "") + (tcp.inherits() ? "" : ", tcp=" + tcp) + '}';
  }

  /** Builder; each setter checks its argument and names the problem when it is wrong. */
  public static final class Builder {
    private byte[] privateData = new byte[0];
    private int ird = -1;
    private int ord = -1;
    private Boolean crc;
    private Boolean markers;
    private Integer revision;
    private Boolean peerToPeer;
    private Set<RtrType> rtrTypes;
    private Duration connectTimeout;
    private Duration replyTimeout;
    private Duration firstFpduDelay;
    private ConnectionEventListener eventListener;
    private TlsSettings tls;
    private TcpLiveness tcp = TcpLiveness.INHERIT;

    private Builder() {
    }

    /**
     * Starts the connection with TLS 1.3 (an iwarp4j extension, see {@link TlsSettings}): the
     * TLS handshake completes before the MPA Request leaves; the listener must have TLS too
     * ({@link ListenParams.Builder#tls(TlsSettings)}). The server's certificate must be trusted
     * by {@code tls}' trust managers and, unless {@link TlsSettings.Builder#verifyHostname}
     * says otherwise, name the address connected to. A failed handshake fails the connect with
     * an {@link RdmaConnectException} whose message starts with "TLS".
     *
     * @param tls the settings, or null for no TLS (the default)
     * @return this builder
     */
    public Builder tls(TlsSettings tls) {
      this.tls = tls;
      return this;
    }

    /**
     * Overrides {@link DeviceConfig#tcpKeepAlive()} for this connection: keepalive on or
     * off, with the operating system's probe timing.
     *
     * @param on whether to send keepalive probes
     * @return this builder
     */
    public Builder tcpKeepAlive(boolean on) {
      this.tcp = tcp.withKeepAlive(on);
      return this;
    }

    /**
     * Overrides the keepalive for this connection: on, with this probe timing (see
     * {@link DeviceConfig.Builder#tcpKeepAlive(java.time.Duration, java.time.Duration, int)}).
     *
     * @param idle silence before the first probe, 1 s to 32767 s, whole seconds
     * @param interval time between probes, 1 s to 32767 s, whole seconds
     * @param count probes unanswered before the drop, 1 to 127
     * @return this builder
     * @throws IllegalArgumentException naming the value out of range
     */
    public Builder tcpKeepAlive(java.time.Duration idle, java.time.Duration interval,
        int count) {
      this.tcp = tcp.withKeepAlive(idle, interval, count);
      return this;
    }

    /**
     * Overrides {@link DeviceConfig#tcpUserTimeout()} for this connection (Linux, epoll
     * transport only; on NIO it is not applied and the device logs a warning once).
     *
     * @param timeout 1 ms to 2^31 - 1 ms, or zero for the operating system's default
     * @return this builder
     * @throws IllegalArgumentException naming the value out of range
     */
    public Builder tcpUserTimeout(java.time.Duration timeout) {
      this.tcp = tcp.withUserTimeout(timeout);
      return this;
    }

    /**
     * Sets the private data sent in the MPA Request: at most 508 octets with RFC 6581 enhanced
     * data, 512 without (Linux peers accept at most 256 in all, the 4 octets of enhanced data
     * included; beyond that the connect logs a WARN naming the limit).
     *
     * @param data the octets (copied)
     * @return this builder
     */
    public Builder privateData(byte[] data) {
      this.privateData = Objects.requireNonNull(data, "data").clone();
      return this;
    }

    /**
     * Sets the inbound RDMA Read depth to offer (default: the queue pair's).
     *
     * @param ird 0 to 0x3FFE
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder ird(int ird) {
      this.ird = QueuePairConfig.Builder.depth("IRD", ird);
      return this;
    }

    /**
     * Sets the outbound RDMA Read depth to ask for (default: the queue pair's).
     *
     * @param ord 0 to 0x3FFE
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder ord(int ord) {
      this.ord = QueuePairConfig.Builder.depth("ORD", ord);
      return this;
    }

    /**
     * Asks for CRC32c or not (the MPA C bit; CRC is used when either side asks).
     *
     * @param crc whether to ask for CRC
     * @return this builder
     */
    public Builder crc(boolean crc) {
      this.crc = crc;
      return this;
    }

    /**
     * Asks the peer for MPA Markers or not (the M bit).
     *
     * @param markers whether to ask for Markers
     * @return this builder
     */
    public Builder markers(boolean markers) {
      this.markers = markers;
      return this;
    }

    /**
     * Sets the MPA revision: 1 (RFC 5044) or 2 (RFC 6581).
     *
     * @param revision 1 or 2
     * @return this builder
     * @throws IllegalArgumentException otherwise
     */
    public Builder revision(int revision) {
      if (revision != 1 && revision != 2) {
        throw new IllegalArgumentException("MPA revision must be 1 or 2, not " + revision);
      }
      this.revision = revision;
      return this;
    }

    /**
     * Chooses the RFC 6581 peer-to-peer model (an RTR message from the Initiator) or the
     * client-server model.
     *
     * @param peerToPeer true for peer-to-peer (needs revision 2 with enhanced data)
     * @return this builder
     */
    public Builder peerToPeer(boolean peerToPeer) {
      this.peerToPeer = peerToPeer;
      return this;
    }

    /**
     * Sets the RTR messages offered in peer-to-peer mode.
     *
     * @param types at least one of SEND, WRITE, READ
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
     * Sets the TCP connect timeout.
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = ConfigChecks.positive("connectTimeout", timeout);
      return this;
    }

    /**
     * Sets how long to wait for the MPA Reply.
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder replyTimeout(Duration timeout) {
      this.replyTimeout = ConfigChecks.positive("replyTimeout", timeout);
      return this;
    }

    /**
     * Sets a quiet period between the MPA Reply and this end's first FPDU (the RTR in
     * peer-to-peer mode, else the first work request: the connect future completes only after
     * it). Default: the device's, which unless set is 50 ms in the peer-to-peer model and zero
     * in the client-server model. Linux siw as Responder needs one: it installs its receive handler
     * only after sending its Reply, so an FPDU arriving at once can sit unread, and a
     * peer-to-peer connection closed before siw took its RTR crashed the Linux guest
     * (docs/interop.md, issue 22). With a non-zero quiet period a peer-to-peer connection's
     * close is held back until the RTR has been written and the quiet period has passed once
     * more (at most three quiet periods); a close during the quiet period still sends the RTR
     * and fails the connect. Zero is safe between iwarp4j peers.
     *
     * @param delay 0..10 s
     * @return this builder
     * @throws IllegalArgumentException when negative or above 10 s
     */
    public Builder firstFpduDelay(Duration delay) {
      Objects.requireNonNull(delay, "delay");
      if (delay.isNegative() || delay.compareTo(Duration.ofSeconds(10)) > 0) {
        throw new IllegalArgumentException("firstFpduDelay must be 0..10 s, not " + delay);
      }
      this.firstFpduDelay = delay;
      return this;
    }

    /**
     * Sets the listener for this connection's events.
     *
     * @param listener the listener, or null
     * @return this builder
     */
    public Builder eventListener(ConnectionEventListener listener) {
      this.eventListener = listener;
      return this;
    }

    /**
     * Builds the parameters.
     *
     * @return the parameters
     */
    public ConnectParams build() {
      return new ConnectParams(this);
    }
  }
}
