package io.iwarp4j.verbs;

import java.util.Objects;

/**
 * How to accept a {@link ConnectRequest}: private data for the MPA Reply, the IRD/ORD to state,
 * and a listener for the connection's events. Immutable; build with {@link #builder()}. Unset
 * depths come from the accepting queue pair.
 */
public final class AcceptParams {
  private static final AcceptParams DEFAULTS = builder().build();

  private final byte[] privateData;
  private final int ird;
  private final int ord;
  private final ConnectionEventListener eventListener;
  private final Boolean responderSendsFirst;
  private final TcpLiveness tcp;

  private AcceptParams(Builder b) {
    this.tcp = b.tcp;
    this.responderSendsFirst = b.responderSendsFirst;
    this.privateData = b.privateData.clone();
    this.ird = b.ird;
    this.ord = b.ord;
    this.eventListener = b.eventListener;
  }

  /**
   * No private data, the queue pair's IRD/ORD, no listener.
   *
   * @return the defaults
   */
  public static AcceptParams defaults() {
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
   * The private data for the Reply.
   *
   * @return a copy
   */
  public byte[] privateData() {
    return privateData.clone();
  }

  /**
   * The IRD to state.
   *
   * @return the IRD, or -1 for the queue pair's
   */
  public int ird() {
    return ird;
  }

  /**
   * The ORD to state.
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
   * Whether this connection's Responder may send before the Initiator's first FPDU, departing
   * from RFC 5044 §7.1.2 rule 4 (see {@link Builder#responderSendsFirst(boolean)}).
   *
   * @return the choice for this accept, or null for the device's MPA settings
   *     ({@link MpaSettings#responderSendsFirst()}, false by default)
   */
  public Boolean responderSendsFirst() {
    return responderSendsFirst;
  }

  /** The TCP keepalive and user timeout overrides. */
  TcpLiveness tcp() {
    return tcp;
  }

  /** Builder. */
  public static final class Builder {
    private byte[] privateData = new byte[0];
    private int ird = -1;
    private int ord = -1;
    private ConnectionEventListener eventListener;
    private Boolean responderSendsFirst;
    private TcpLiveness tcp = TcpLiveness.INHERIT;

    private Builder() {
    }

    /**
     * Overrides {@link DeviceConfig#tcpKeepAlive()} for this connection (over the listener's, which are over the device's; set on the
     * socket when the accept is called): keepalive on or
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
     * Sets the private data of the MPA Reply: at most 508 octets for an enhanced Request, 512
     * otherwise.
     *
     * @param data the octets (copied)
     * @return this builder
     */
    public Builder privateData(byte[] data) {
      this.privateData = Objects.requireNonNull(data, "data").clone();
      return this;
    }

    /**
     * Sets the inbound RDMA Read depth to state (default: the queue pair's).
     *
     * @param ird 0 to 0x3FFE
     * @return this builder
     */
    public Builder ird(int ird) {
      this.ird = QueuePairConfig.Builder.depth("IRD", ird);
      return this;
    }

    /**
     * Sets the outbound RDMA Read depth to state (default: the queue pair's).
     *
     * @param ord 0 to 0x3FFE
     * @return this builder
     */
    public Builder ord(int ord) {
      this.ord = QueuePairConfig.Builder.depth("ORD", ord);
      return this;
    }

    /**
     * Sets the listener for the connection's events.
     *
     * @param listener the listener, or null
     * @return this builder
     */
    public Builder eventListener(ConnectionEventListener listener) {
      this.eventListener = listener;
      return this;
    }

    /**
     * Lets this connection send as soon as the MPA Reply is written, in the client-server model,
     * without waiting for the Initiator's first message (default: the device's MPA settings,
     * whose default is the conformant {@code false}). The accept future then completes, and the
     * queue pair is RTS, right after the Reply.
     *
     * <p><b>{@code true} deliberately departs from RFC 5044 §7.1.2 rule 4</b> (a Responder MUST
     * NOT send an FPDU before it has received one from the Initiator). It exists for application
     * protocols whose server speaks first toward peers that never ask for peer-to-peer mode, such
     * as perftest's {@code ib_write_lat} with a Linux siw client, and is safe only toward
     * Initiators that accept FPDUs right after the Reply, like Linux siw/iw_cm or iwarp4j. In
     * the peer-to-peer model it changes nothing. See
     * {@link MpaSettings.Builder#responderSendsFirst(boolean)}.
     *
     * @param sendsFirst true to send before the Initiator's first FPDU (not conformant)
     * @return this builder
     */
    public Builder responderSendsFirst(boolean sendsFirst) {
      this.responderSendsFirst = sendsFirst;
      return this;
    }

    /**
     * Builds the parameters.
     *
     * @return the parameters
     */
    public AcceptParams build() {
      return new AcceptParams(this);
    }
  }
}
