package io.iwarp4j.mpa;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.ThreadFactory;

/**
 * The Netty transport a device runs on. {@link #AUTO} picks the native epoll transport where it
 * is available (Linux x86_64 with the native library) and NIO otherwise; the other two force one.
 */
public enum Transport {
  /** Epoll where available, else NIO. */
  AUTO,
  /** The native Linux epoll transport; fails fast where it is unavailable. */
  EPOLL,
  /** The JDK NIO transport, available everywhere. */
  NIO;

  /**
   * The concrete transport this choice stands for on this machine: EPOLL or NIO.
   *
   * @return the concrete transport this choice stands for on this machine: EPOLL or NIO
   */
  public Transport resolve() {
    switch (this) {
      case AUTO:
        if (Epoll.isAvailable()) {
          return EPOLL;
        }
        EpollAbsence.logOnce();
        return NIO;
      case EPOLL:
        if (!Epoll.isAvailable()) {
          throw new IllegalStateException(
              "the epoll transport was requested but is unavailable: " + Epoll.unavailabilityCause(),
              Epoll.unavailabilityCause());
        }
        return EPOLL;
      default:
        return NIO;
    }
  }

  /**
   * An event loop group of {@code threads} threads (0 = Netty's default) for this transport.
   *
   * @param threads the number of event loop threads
   * @param threadFactory the thread factory
   * @return an event loop group of {@code threads} threads (0 = Netty's default) for this transport
   */
  public EventLoopGroup newEventLoopGroup(int threads, ThreadFactory threadFactory) {
    return newEventLoopGroup(threads, threadFactory, false);
  }

  /**
   * An event loop group of {@code threads} threads (0 = Netty's default) for this transport,
   * whose loops block in epoll/select when idle or, with {@code busyPoll}, never block: each
   * loop polls its sockets without a timeout, runs its tasks and polls again, one core per loop
   * spinning. A task handed to a busy-polling loop from another thread needs no eventfd write.
   *
   * @param threads the number of event loop threads
   * @param threadFactory the thread factory
   * @param busyPoll whether the loops busy-poll instead of blocking
   * @return the group
   */
  public EventLoopGroup newEventLoopGroup(int threads, ThreadFactory threadFactory,
      boolean busyPoll) {
    if (threads < 0) {
      throw new IllegalArgumentException("threads must be >= 0, not " + threads);
    }
    IoHandlerFactory factory;
    if (resolve() == EPOLL) {
      // BUSY_WAIT: one epoll_wait with a zero timeout per loop turn (Netty's epollBusyWait).
      factory = busyPoll ? EpollIoHandler.newFactory(0, () -> BUSY_EPOLL)
          : EpollIoHandler.newFactory();
    } else {
      // NIO has no busy-wait strategy of its own (it treats BUSY_WAIT as SELECT): a selectNow
      // every turn is the equivalent.
      factory = busyPoll
          ? NioIoHandler.newFactory(SelectorProvider.provider(), () -> BUSY_NIO)
          : NioIoHandler.newFactory();
    }
    return new MultiThreadIoEventLoopGroup(threads, threadFactory, factory);
  }

  /**
   * Never blocks: Netty's epoll busy-wait, a zero-timeout epoll_wait per turn. A turn with no
   * task first yields the core (sched_yield): with a core to itself the loop is back at once; on
   * a machine with more spinning threads than cores, the thread it would otherwise keep waiting
   * for a time slice (the peer's loop, the application) runs now.
   */
  private static final SelectStrategy BUSY_EPOLL = (selectNow, hasTasks) -> {
    if (!hasTasks) {
      Thread.yield();
    }
    return SelectStrategy.BUSY_WAIT;
  };

  /** Never blocks: a selectNow per turn (yielding as above); its result is the keys ready. */
  private static final SelectStrategy BUSY_NIO = (selectNow, hasTasks) -> {
    if (!hasTasks) {
      Thread.yield();
    }
    return selectNow.get();
  };

  /**
   * The client socket channel class for this transport.
   *
   * @return the client socket channel class for this transport
   */
  public Class<? extends Channel> socketChannelClass() {
    return resolve() == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  /**
   * The listening socket channel class for this transport.
   *
   * @return the listening socket channel class for this transport
   */
  public Class<? extends ServerChannel> serverSocketChannelClass() {
    return resolve() == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /**
   * The effective MSS of a connected channel as the kernel reports it, or 0 when the transport
   * cannot tell (NIO offers no portable way to read TCP_MAXSEG).
   *
   * @param channel a connected channel
   * @return the effective MSS of a connected channel as the kernel reports it, or 0 when the
   *     transport cannot tell (NIO offers no portable way to read TCP_MAXSEG)
   */
  public static int kernelMss(Channel channel) {
    if (channel instanceof EpollSocketChannel epoll && epoll.isActive()) {
      long mss = epoll.tcpInfo().sndMss();
      if (mss > 0 && mss <= 65535) {
        return (int) mss;
      }
    }
    return 0;
  }

  /**
   * Sets TCP keepalive and {@code TCP_USER_TIMEOUT} on a socket channel of either transport,
   * before it connects or as it is accepted. Epoll maps each to its socket option; NIO sets
   * {@code SO_KEEPALIVE} and, through {@code jdk.net.ExtendedSocketOptions}, the keepalive
   * timing where the JDK supports it (Linux, macOS), but has no {@code TCP_USER_TIMEOUT}.
   *
   * @param channel a socket channel of this library's transports
   * @param keepAlive whether to set {@code SO_KEEPALIVE}
   * @param idleSeconds {@code TCP_KEEPIDLE} in seconds, or 0 for the operating system's
   * @param intervalSeconds {@code TCP_KEEPINTVL} in seconds, or 0 for the operating system's
   * @param count {@code TCP_KEEPCNT}, or 0 for the operating system's
   * @param userTimeoutMillis {@code TCP_USER_TIMEOUT} in milliseconds, or 0 to leave it
   * @return true when every option asked for was applied, false when the transport lacks one
   */
  public static boolean applyTcpLiveness(Channel channel, boolean keepAlive, int idleSeconds,
      int intervalSeconds, int count, int userTimeoutMillis) {
    ChannelConfig config = channel.config();
    boolean all = true;
    if (keepAlive) {
      all &= config.setOption(ChannelOption.SO_KEEPALIVE, true);
    }
    boolean epoll = channel instanceof EpollSocketChannel;
    if (keepAlive && idleSeconds > 0) {
      all &= epoll ? config.setOption(EpollChannelOption.TCP_KEEPIDLE, idleSeconds)
          : config.setOption(NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE),
              idleSeconds);
    }
    if (keepAlive && intervalSeconds > 0) {
      all &= epoll ? config.setOption(EpollChannelOption.TCP_KEEPINTVL, intervalSeconds)
          : config.setOption(NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL),
              intervalSeconds);
    }
    if (keepAlive && count > 0) {
      all &= epoll ? config.setOption(EpollChannelOption.TCP_KEEPCNT, count)
          : config.setOption(NioChannelOption.of(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT),
              count);
    }
    if (userTimeoutMillis > 0) {
      all &= epoll && config.setOption(EpollChannelOption.TCP_USER_TIMEOUT, userTimeoutMillis);
    }
    return all;
  }

  /**
   * Sets {@code TCP_USER_TIMEOUT} on an epoll socket channel, 0 restoring the operating
   * system's default; NIO has no such option.
   *
   * @param channel a socket channel of this library's transports
   * @param millis the timeout in milliseconds, or 0 for the operating system's default
   * @return true when set, false on a transport without the option
   */
  public static boolean setTcpUserTimeout(Channel channel, int millis) {
    return channel instanceof EpollSocketChannel
        && channel.config().setOption(EpollChannelOption.TCP_USER_TIMEOUT, millis);
  }

  /** AUTO's fallback to NIO on Linux, said once per JVM with the fix (slower, not wrong). */
  static final class EpollAbsence {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Transport.class);
    private static final java.util.concurrent.atomic.AtomicBoolean LOGGED =
        new java.util.concurrent.atomic.AtomicBoolean();

    private EpollAbsence() {
    }

    static void logOnce() {
      if (!LOGGED.compareAndSet(false, true)) {
        return;
      }
      String advice = advice(System.getProperty("os.name", ""),
          System.getProperty("os.arch", ""), Transport.class.getModule().isNamed());
      if (advice == null) {
        LOG.debug("epoll unavailable, using NIO: {}", String.valueOf(Epoll.unavailabilityCause()));
      } else {
        LOG.info("{} (epoll: {})", advice, String.valueOf(Epoll.unavailabilityCause()));
      }
    }

    /**
     * What to tell the user when AUTO falls back to NIO, or null where NIO is all there is.
     *
     * @param osName {@code os.name}
     * @param osArch {@code os.arch}
     * @param modulePath whether iwarp4j runs as named modules
     * @return one line with the fix, or null off Linux
     */
    static String advice(String osName, String osArch, boolean modulePath) {
      if (!osName.toLowerCase(java.util.Locale.ROOT).startsWith("linux")) {
        return null;
      }
      String arch = osArch.equals("amd64") || osArch.equals("x86_64") ? "x86_64"
          : osArch.equals("aarch64") ? "aarch_64" : osArch;
      String module = "io.netty.transport.epoll.linux." + arch;
      return "Netty's native epoll transport is not available: using NIO (slower); "
          + (modulePath
          ? "on the module path add it with --add-modules " + module
          : "put io.netty:netty-transport-native-epoll:linux-" + arch + " on the class path")
          + " (docs/configuration.md)";
    }
  }
}
