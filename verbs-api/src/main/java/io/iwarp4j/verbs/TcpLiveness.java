package io.iwarp4j.verbs;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import java.time.Duration;

/**
 * TCP keepalive and {@code TCP_USER_TIMEOUT} of one connection: the device's
 * ({@link DeviceConfig}), or an override from a listener, an accept or a connect. A field left
 * null inherits from the level below ({@link #over}). Immutable.
 */
final class TcpLiveness {
  /** Everything inherited. */
  static final TcpLiveness INHERIT = new TcpLiveness(null, null, null, 0, null);

  /** SO_KEEPALIVE, or null to inherit (together with the three probe settings). */
  final Boolean keepAlive;
  /** TCP_KEEPIDLE, or null for the operating system's. */
  final Duration keepIdle;
  /** TCP_KEEPINTVL, or null for the operating system's. */
  final Duration keepInterval;
  /** TCP_KEEPCNT, or 0 for the operating system's. */
  final int keepCount;
  /** TCP_USER_TIMEOUT (zero: the operating system's), or null to inherit. */
  final Duration userTimeout;

  private TcpLiveness(Boolean keepAlive, Duration keepIdle, Duration keepInterval, int keepCount,
      Duration userTimeout) {
    this.keepAlive = keepAlive;
    this.keepIdle = keepIdle;
    this.keepInterval = keepInterval;
    this.keepCount = keepCount;
    this.userTimeout = userTimeout;
  }

  /** The device's settings. */
  static TcpLiveness of(DeviceConfig c) {
    return new TcpLiveness(c.tcpKeepAlive(), c.tcpKeepIdle(), c.tcpKeepInterval(),
        c.tcpKeepCount(), c.tcpUserTimeout() == null ? Duration.ZERO : c.tcpUserTimeout());
  }

  /** Keepalive on or off with the operating system's probe timing. */
  TcpLiveness withKeepAlive(boolean on) {
    return new TcpLiveness(on, null, null, 0, userTimeout);
  }

  /** Keepalive on with this probe timing, checked as {@link DeviceConfig.Builder} does. */
  TcpLiveness withKeepAlive(Duration idle, Duration interval, int count) {
    return new TcpLiveness(true, ConfigChecks.wholeSeconds("tcpKeepIdle", idle, 32767),
        ConfigChecks.wholeSeconds("tcpKeepInterval", interval, 32767),
        ConfigChecks.range("tcpKeepCount", count, 1, 127, ""), userTimeout);
  }

  /** TCP_USER_TIMEOUT; zero asks for the operating system's default. */
  TcpLiveness withUserTimeout(Duration timeout) {
    java.util.Objects.requireNonNull(timeout, "tcpUserTimeout");
    if (timeout.isNegative() || timeout.toMillis() > Integer.MAX_VALUE
        || (!timeout.isZero() && timeout.toMillis() < 1)) {
      throw new IllegalArgumentException("tcpUserTimeout must be 0 (the operating system's "
          + "default) or 1 ms to 2^31 - 1 ms, got " + timeout);
    }
    return new TcpLiveness(keepAlive, keepIdle, keepInterval, keepCount, timeout);
  }

  /** Whether nothing is overridden. */
  boolean inherits() {
    return keepAlive == null && userTimeout == null;
  }

  /** These settings where set, {@code base}'s elsewhere. */
  TcpLiveness over(TcpLiveness base) {
    if (inherits()) {
      return base;
    }
    boolean own = keepAlive != null;
    return new TcpLiveness(own ? keepAlive : base.keepAlive, own ? keepIdle : base.keepIdle,
        own ? keepInterval : base.keepInterval, own ? keepCount : base.keepCount,
        userTimeout != null ? userTimeout : base.userTimeout);
  }

  /** Whether a new socket needs any option set (its defaults: no keepalive, no user timeout). */
  boolean changesNewSocket() {
    return Boolean.TRUE.equals(keepAlive) || userTimeoutMillis() > 0;
  }

  int userTimeoutMillis() {
    return userTimeout == null ? 0 : (int) userTimeout.toMillis();
  }

  /**
   * Sets the options on a new socket (before it connects, or as it is accepted).
   *
   * @return false when the transport lacks one of them (NIO: TCP_USER_TIMEOUT)
   */
  boolean applyToNew(Channel ch) {
    return io.iwarp4j.mpa.Transport.applyTcpLiveness(ch, Boolean.TRUE.equals(keepAlive),
        seconds(keepIdle), seconds(keepInterval), keepCount, userTimeoutMillis());
  }

  /**
   * Sets every option on a connected socket that may carry other values already (an accepted
   * one, set up with the listener's): off and the default are set too.
   *
   * @return false when the transport lacks one of them
   */
  boolean applyToConnected(Channel ch) {
    boolean all = ch.config().setOption(ChannelOption.SO_KEEPALIVE, Boolean.TRUE.equals(keepAlive));
    all &= applyToNew(ch);
    if (userTimeoutMillis() == 0) {
      // Back to the default where it can have been set (epoll); NIO never set it.
      io.iwarp4j.mpa.Transport.setTcpUserTimeout(ch, 0);
    }
    return all;
  }

  private static int seconds(Duration d) {
    return d == null ? 0 : (int) d.getSeconds();
  }

  @Override
  public String toString() {
    if (inherits()) {
      return "inherited";
    }
    return (keepAlive == null ? "" : "keepAlive=" + keepAlive
        + (keepIdle != null ? " " + keepIdle + "/" + keepInterval + "/" + keepCount : ""))
        + (userTimeout == null ? "" : (keepAlive == null ? "" : ", ") + "userTimeout="
        + userTimeout);
  }
}
