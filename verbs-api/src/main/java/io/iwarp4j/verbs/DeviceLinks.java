package io.iwarp4j.verbs;

import io.iwarp4j.mpa.MpaInitiatorHandler;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.iwarp4j.verbs.engine.LifecycleLog;
import io.iwarp4j.verbs.engine.PcapCapture;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device's connections below the queue pairs: listening and connecting (the channel pipelines
 * with TLS, MPA and the connection handler), the limit on open connections
 * ({@link DeviceConfig#maxConnections()}), admission of accepted connections in the MPA startup
 * (per source, with eviction of the oldest when the device is full), TCP keepalive and
 * TCP_USER_TIMEOUT on each socket, and the set of open channels that device close ends.
 */
final class DeviceLinks {
  private static final Logger log = LoggerFactory.getLogger(RdmaDevice.class);

  /**
   * Connections allocate read buffers and frame headers from the pooled allocator: a pooled
   * buffer comes back with a cached NIO view of its chunk, so CRC32C over it allocates nothing,
   * whereas each of Netty 4.2's adaptive buffers creates a view the first time it is used.
   */
  private static final io.netty.buffer.ByteBufAllocator DATA_PATH_ALLOCATOR =
      io.netty.buffer.PooledByteBufAllocator.DEFAULT;
  /**
   * On a connection that gave up its reservation: TRUE when evicted (its evictor holds the
   * reservation now), FALSE when it closed and released it.
   */
  private static final io.netty.util.AttributeKey<Boolean> RESERVATION_HANDED_OVER =
      io.netty.util.AttributeKey.valueOf(RdmaDevice.class, "reservationHandedOver");

  private final DeviceConfig config;
  private final String name;
  private final io.iwarp4j.mpa.Transport transport;
  private final EventLoopGroup group;
  private final DeviceCounters deviceCounters;
  private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
  /** Connections reserved against {@link DeviceConfig#maxConnections()}. */
  private final AtomicInteger connections = new AtomicInteger();
  /** Accepted connections in the MPA startup, per source (DeviceConfig admission settings). */
  private final StartupAdmission admission;
  /** DeviceConfig's TCP keepalive and TCP_USER_TIMEOUT, under every override. */
  private final TcpLiveness tcpLiveness;
  /** Whether a per-connection TCP_USER_TIMEOUT on NIO was warned about. */
  private final AtomicBoolean warnedNioUserTimeout = new AtomicBoolean();

  DeviceLinks(DeviceConfig config, String name, io.iwarp4j.mpa.Transport transport,
      EventLoopGroup group, DeviceCounters deviceCounters) {
    this.config = config;
    this.name = name;
    this.transport = transport;
    this.group = group;
    this.deviceCounters = deviceCounters;
    this.tcpLiveness = TcpLiveness.of(config);
    this.admission = new StartupAdmission(config.maxStartupConnectionsPerSource(), deviceCounters);
  }

  /** A snapshot of the open channels (device close ends each). */
  List<Channel> channels() {
    return new ArrayList<>(channels);
  }

  /** Binds a listening channel whose connections go to {@code handler}: see RdmaDevice.listen. */
  Channel bind(RdmaDevice device, InetSocketAddress address, ConnectRequestHandler handler,
      ListenParams params) throws IOException {
    io.iwarp4j.mpa.MpaSettings settings = config.mpaSettings().mpa();
    TcpLiveness tcp = params.tcp().over(tcpLiveness);
    TlsSettings tls = params.tls();
    ServerBootstrap b = new ServerBootstrap()
        .group(group)
        .channel(transport.serverSocketChannelClass())
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.ALLOCATOR, DATA_PATH_ALLOCATOR)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
        // A write error shuts the output down instead of closing: what the peer sent before
        // its reset (a Terminate) is still read (issue 22; RdmapEndpoint, TerminateBeforeResetIT).
        .childOption(ChannelOption.AUTO_CLOSE, false)
        .childHandler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            if (!admission.enter(ch)) {
              // Its source has maxStartupConnectionsPerSource in the MPA startup already.
              log.debug("{} refusing {}: {} connections from its address in MPA startup "
                  + "(DeviceConfig.maxStartupConnectionsPerSource)", name, ch.remoteAddress(),
                  config.maxStartupConnectionsPerSource());
              ch.close();
              return;
            }
            if (!reserveConnection() && !evictForRoom(ch)) {
              admission.leave(ch);
              deviceCounters.startupRefusedDeviceFull.increment();
              log.debug("{} refusing {}: {} connections open (DeviceConfig.maxConnections)",
                  name, ch.remoteAddress(), config.maxConnections());
              ch.close();
              return;
            }
            ch.closeFuture().addListener(f -> admission.leave(ch));
            track(ch);
            applyTcpLiveness(ch, tcp);
            capture(ch);
            if (tls != null) {
              addServerTls(ch, tls, settings.requestTimeout());
            }
            MpaResponderHandler responder = new MpaResponderHandler(settings);
            ch.pipeline().addLast("mpa", responder)
                .addLast(ConnectionHandler.NAME,
                    new ConnectionHandler(device, responder, handler, tcp));
          }
        });
    ChannelFuture bound = b.bind(address).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      throw new IOException("cannot listen on " + address + ": " + bound.cause().getMessage(),
          bound.cause());
    }
    return bound.channel();
  }

  /** Connects {@code qp} of {@code device}: see RdmaDevice.connect (arguments checked). */
  CompletableFuture<RdmaConnection> connect(RdmaDevice device, QueuePair qp,
      InetSocketAddress remote, ConnectParams params) {
    io.iwarp4j.mpa.MpaSettings settings = params.initiatorSettings(config.mpaSettings(), qp.capabilities());
    long timeoutMillis = (params.connectTimeout() != null ? params.connectTimeout()
        : config.connectTimeout()).toMillis();
    if (!reserveConnection()) {
      throw new IllegalStateException("device " + name + " has " + config.maxConnections()
          + " connections open, its limit (DeviceConfig.maxConnections); close some first");
    }
    try {
      qp.binding().claimForConnection();
    } catch (RuntimeException e) {
      connections.decrementAndGet();
      throw e;
    }
    EventLoop loop = group.next();
    ConnectionHandler handler = new ConnectionHandler(device);
    ConnectionSetup setup = new ConnectionSetup(qp, params.eventListener(), remote, handler);
    MpaInitiatorHandler initiator = new MpaInitiatorHandler(settings);
    TcpLiveness tcp = params.tcp().over(tcpLiveness);
    TlsSettings tls = params.tls();
    Bootstrap b = new Bootstrap()
        .group(loop)
        .channel(transport.socketChannelClass())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.ALLOCATOR, DATA_PATH_ALLOCATOR)
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
        .option(ChannelOption.AUTO_CLOSE, false) // see listen()
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
            Math.max(1, timeoutMillis)))
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            track(ch);
            applyTcpLiveness(ch, tcp);
            capture(ch);
            if (tls != null) {
              io.netty.handler.ssl.SslHandler ssl =
                  TlsPipeline.addClient(ch, tls, remote, settings.replyTimeout());
              setup.tls(ssl);
              ssl.handshakeFuture().addListener(f -> {
                if (!f.isSuccess()) {
                  setup.tlsFailed(ch, f.cause());
                }
              });
            }
            ch.pipeline().addLast("mpa", initiator).addLast(ConnectionHandler.NAME, handler);
            initiator.handshakeFuture().addListener(f -> setup.onHandshake(f, ch));
          }
        });
    LifecycleLog.connect(name, qp.number(), remote);
    b.connect(remote).addListener(f -> {
      if (!f.isSuccess()) {
        setup.tcpFailed(loop, f.cause());
      }
    });
    return setup.result();
  }

  /**
   * TCP keepalive and TCP_USER_TIMEOUT (the device's, or a listener's or connect's overrides)
   * on a new connection.
   */
  private void applyTcpLiveness(Channel ch, TcpLiveness tcp) {
    if (!tcp.changesNewSocket()) {
      return;
    }
    if (!tcp.applyToNew(ch)) {
      lacking(tcp);
    }
  }

  /** An accept's TCP overrides, on its connected socket. Event loop. */
  void applyTcpLivenessToAccepted(Channel ch, TcpLiveness tcp) {
    if (!tcp.applyToConnected(ch)) {
      lacking(tcp);
    }
  }

  private void lacking(TcpLiveness tcp) {
    if (tcp.userTimeoutMillis() > 0 && transport != io.iwarp4j.mpa.Transport.EPOLL
        && tcp.userTimeout != config.tcpUserTimeout()
        && warnedNioUserTimeout.compareAndSet(false, true)) {
      log.warn("{}: tcpUserTimeout {} of a listener, accept or connect is not applied: the NIO "
          + "transport has no TCP_USER_TIMEOUT (docs/configuration.md)", name, tcp.userTimeout);
    } else if (log.isDebugEnabled()) {
      log.debug("{}: the {} transport lacks some TCP liveness options of {}", name, transport,
          tcp);
    }
  }

  /**
   * A TLS listener's connection: refuses a client without TLS (alert, close), and logs and
   * counts both that and a failed handshake.
   */
  private void addServerTls(Channel ch, TlsSettings tls, java.time.Duration requestTimeout) {
    TlsClientHelloGuard guard = new TlsClientHelloGuard(() -> {
      deviceCounters.tlsPlaintextRefused.increment();
      log.info("{} refused {}: it did not start with TLS (a client without TLS sends its MPA "
          + "Request in clear) but the listener requires TLS 1.3; sent a TLS alert and closed",
          name, ch.remoteAddress());
    });
    TlsPipeline.addServer(ch, tls, requestTimeout, guard).handshakeFuture().addListener(f -> {
      if (!f.isSuccess() && !guard.refused()) {
        deviceCounters.tlsHandshakesFailed.increment();
        log.info("{} TLS handshake with {} failed, closed: {}", name, ch.remoteAddress(),
            String.valueOf(f.cause().getMessage()));
        ch.close();
      }
    });
  }

  private WriteBufferWaterMark waterMark() {
    return new WriteBufferWaterMark(config.writeBufferLowWaterMark(),
        config.writeBufferHighWaterMark());
  }

  /** With {@link DeviceConfig#pcapDirectory()}: the capture handler, first in the pipeline. */
  private void capture(Channel ch) {
    if (config.pcapDirectory() != null) {
      ch.pipeline().addFirst(PcapCapture.NAME, new PcapCapture(config.pcapDirectory(), name));
    }
  }

  /** Counts one more connection unless the limit is reached; {@link #track} releases it. */
  private boolean reserveConnection() {
    for (;;) {
      int n = connections.get();
      if (n >= config.maxConnections()) {
        return false;
      }
      if (connections.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Tracks a reserved connection; it is released when the channel closes. */
  private void track(Channel ch) {
    channels.add(ch);
    ch.closeFuture().addListener(f -> {
      channels.remove(ch);
      // An evicted connection's reservation went to the connection that evicted it.
      if (ch.attr(RESERVATION_HANDED_OVER).compareAndSet(null, Boolean.FALSE)) {
        connections.decrementAndGet();
      }
    });
  }

  /**
   * Beyond {@link DeviceConfig#maxConnections()}: closes the oldest connection still in the MPA
   * startup and hands its reservation to {@code ch}; beyond the limit and with none in the
   * startup (or only ones that closed meanwhile, with the limit still reached), false.
   */
  private boolean evictForRoom(Channel ch) {
    for (;;) {
      Channel oldest = admission.evictOldest(ch);
      if (oldest == null) {
        return false;
      }
      log.debug("{} evicting {} (oldest in MPA startup) for {}: {} connections open", name,
          oldest.remoteAddress(), ch.remoteAddress(), config.maxConnections());
      boolean handedOver = oldest.attr(RESERVATION_HANDED_OVER).compareAndSet(null, Boolean.TRUE);
      oldest.close();
      if (handedOver || reserveConnection()) {
        return true;
      }
    }
  }

  /** The connection left the MPA startup: its MPA Request arrived. Event loop. */
  void startupDone(Channel ch) {
    admission.leave(ch);
  }

}
