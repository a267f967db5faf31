package io.iwarp4j.verbs;

import java.time.Duration;

/**
 * How to listen ({@link RdmaDevice#listen(java.net.InetSocketAddress, ConnectRequestHandler,
 * ListenParams)}): TLS for every accepted connection, and overrides of the device's TCP
 * keepalive and {@code TCP_USER_TIMEOUT} for them. Immutable; build with {@link #builder()}.
 * Unset values come from the device ({@link DeviceConfig}); an accept can override the TCP
 * settings again ({@link AcceptParams}).
 */
public final class ListenParams {
  private static final ListenParams DEFAULTS = builder().build();

  private final TlsSettings tls;
  private final TcpLiveness tcp;

  private ListenParams(Builder b) {
    this.tls = b.tls;
    this.tcp = b.tcp;
  }

  /**
   * No TLS, the device's TCP settings.
   *
   * @return the defaults
   */
  public static ListenParams defaults() {
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
   * The TLS every connection must start with.
   *
   * @return the settings, or null for none
   */
  public TlsSettings tls() {
    return tls;
  }

  TcpLiveness tcp() {
    return tcp;
  }

  @Override
  public String toString() {
    return "ListenParams{tls=" + tls + ", tcp=" + tcp + '}';
  }

  /** Builder; each setter checks its argument and names the problem when it is wrong. */
  public static final class Builder {
    private TlsSettings tls;
    private TcpLiveness tcp = TcpLiveness.INHERIT;

    private Builder() {
    }

    /**
     * Requires TLS 1.3 on every accepted connection (an iwarp4j extension, see
     * {@link TlsSettings}): the listener's certificate comes from {@code tls}, and with
     * {@link TlsSettings.Builder#requireClientAuth(boolean)} so does the check of the client's.
     * A client that sends anything else first (an MPA Request in clear) gets a TLS alert and is
     * closed, logged and counted ({@link RdmaDevice#tlsCounters()}).
     *
     * @param tls the settings, or null for no TLS (the default)
     * @return this builder
     */
    public Builder tls(TlsSettings tls) {
      this.tls = tls;
      return this;
    }

    /**
     * Overrides {@link DeviceConfig#tcpKeepAlive()} for accepted connections: keepalive on or
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
     * Overrides the device's keepalive for accepted connections: on, with this probe timing
     * (see {@link DeviceConfig.Builder#tcpKeepAlive(Duration, Duration, int)}).
     *
     * @param idle silence before the first probe, 1 s to 32767 s, whole seconds
     * @param interval time between probes, 1 s to 32767 s, whole seconds
     * @param count probes unanswered before the drop, 1 to 127
     * @return this builder
     * @throws IllegalArgumentException naming the value out of range
     */
    public Builder tcpKeepAlive(Duration idle, Duration interval, int count) {
      this.tcp = tcp.withKeepAlive(idle, interval, count);
      return this;
    }

    /**
     * Overrides {@link DeviceConfig#tcpUserTimeout()} for accepted connections (Linux, epoll
     * transport only; on NIO it is not applied and the device logs a warning once).
     *
     * @param timeout 1 ms to 2^31 - 1 ms, or zero for the operating system's default
     * @return this builder
     * @throws IllegalArgumentException naming the value out of range
     */
    public Builder tcpUserTimeout(Duration timeout) {
      this.tcp = tcp.withUserTimeout(timeout);
      return this;
    }

    /**
     * Builds the parameters.
     *
     * @return the parameters
     */
    public ListenParams build() {
      return new ListenParams(this);
    }
  }
}
