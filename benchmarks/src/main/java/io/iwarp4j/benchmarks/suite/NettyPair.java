package io.iwarp4j.benchmarks.suite;

import io.iwarp4j.mpa.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The raw-Netty baseline's connections: a server and a client event-loop group of one thread
 * each, the transport iwarp4j's devices use (epoll where available), TCP_NODELAY and the same
 * write-buffer water marks as {@code DeviceConfig}'s defaults, {@code n} connections over
 * 127.0.0.1. Handlers come from factories indexed by connection number.
 */
final class NettyPair implements AutoCloseable {
  private static final WriteBufferWaterMark WATER_MARK =
      new WriteBufferWaterMark(256 * 1024, 512 * 1024);

  final Transport transport = Transport.AUTO.resolve();
  final Channel[] clients;
  final Channel[] servers;
  private final EventLoopGroup serverGroup;
  private final EventLoopGroup clientGroup;
  private final Channel listener;

  NettyPair(int n, IntFunction<ChannelHandler> serverHandler,
      IntFunction<ChannelHandler> clientHandler) throws Exception {
    serverGroup = transport.newEventLoopGroup(1, new DefaultThreadFactory("baseline-server"));
    clientGroup = transport.newEventLoopGroup(1, new DefaultThreadFactory("baseline-client"));
    clients = new Channel[n];
    servers = new Channel[n];
    boolean ok = false;
    try {
      int[] accepted = {0};
      listener = new ServerBootstrap().group(serverGroup)
          .channel(transport.serverSocketChannelClass())
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
          .childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              // Runs on the server's single event loop, so the counter needs no lock.
              int i = accepted[0]++;
              servers[i] = ch;
              ch.pipeline().addLast(serverHandler.apply(i));
            }
          })
          .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
      for (int i = 0; i < n; i++) {
        ChannelHandler h = clientHandler.apply(i);
        clients[i] = new Bootstrap().group(clientGroup).channel(transport.socketChannelClass())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
            .handler(h)
            .connect(listener.localAddress()).sync().channel();
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(VerbsPair.WAIT_SECONDS);
      for (int i = 0; i < n; i++) {
        while (servers[i] == null || !servers[i].isActive()) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("baseline server side of connection " + i
                + " not up within " + VerbsPair.WAIT_SECONDS + " s");
          }
          Thread.sleep(1);
        }
      }
      ok = true;
    } finally {
      if (!ok) {
        close();
      }
    }
  }

  @Override
  public void close() {
    for (Channel c : clients) {
      if (c != null) {
        c.close().awaitUninterruptibly(VerbsPair.WAIT_SECONDS, TimeUnit.SECONDS);
      }
    }
    if (listener != null) {
      listener.close().awaitUninterruptibly(VerbsPair.WAIT_SECONDS, TimeUnit.SECONDS);
    }
    clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS)
        .awaitUninterruptibly(VerbsPair.WAIT_SECONDS, TimeUnit.SECONDS);
    serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS)
        .awaitUninterruptibly(VerbsPair.WAIT_SECONDS, TimeUnit.SECONDS);
  }
}
