package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The handshake over real TCP on 127.0.0.1 (NIO): the Initiator is added before the channel is
 * active, the Responder's ULP decides on another thread (the hop onto the event loop),
 * TCP_NODELAY is set on both sockets, and one ULPDU crosses each way. Everything is awaited
 * through futures with a timeout; nothing is timed.
 */
class MpaLoopbackTest {
  private EventLoopGroup group;
  private ExecutorService ulpThread;

  @BeforeEach
  void start() {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    ulpThread = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void stop() throws Exception {
    ulpThread.shutdownNow();
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
  }

  @Test
  void handshakeAndOneUlpduEachWay() throws Exception {
    MpaSettings p2p = MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO).rtrTypes(RtrType.READ).build();
    CompletableFuture<MpaResponderHandler> serverHandler = new CompletableFuture<>();
    CompletableFuture<Boolean> decidedOnLoop = new CompletableFuture<>();
    Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults());
            ch.pipeline().addLast(rh, new ChannelInboundHandlerAdapter() {
              @Override
              public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof MpaConnectRequest) {
                  MpaConnectRequest request = (MpaConnectRequest) evt;
                  ulpThread.execute(() -> {
                    decidedOnLoop.complete(ctx.executor().inEventLoop());
                    request.accept();
                  });
                }
              }
            });
            serverHandler.complete(rh);
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    try {
      MpaInitiatorHandler ih = new MpaInitiatorHandler(p2p);
      CompletableFuture<Boolean> activeWhenAdded = new CompletableFuture<>();
      Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              activeWhenAdded.complete(ch.isActive());
              ch.pipeline().addLast(ih);
            }
          })
          .connect(server.localAddress()).sync().channel();
      assertFalse(activeWhenAdded.get(5, TimeUnit.SECONDS), "added before channelActive");

      MpaConnection ic = await(ih.handshakeFuture());
      MpaConnection rc = await(serverHandler.get(5, TimeUnit.SECONDS).handshakeFuture());
      assertFalse(decidedOnLoop.get(5, TimeUnit.SECONDS), "the ULP decided off the event loop");
      assertEquals(RtrType.READ, ic.info().rtr());
      assertEquals(RtrType.READ, rc.info().rtr());
      assertTrue(((SocketChannel) client).config().isTcpNoDelay());
      assertTrue(((SocketChannel) rc.channel()).config().isTcpNoDelay());

      CompletableFuture<String> atResponder = new CompletableFuture<>();
      CompletableFuture<String> atInitiator = new CompletableFuture<>();
      rc.setListener(new Collect(atResponder));
      ic.setListener(new Collect(atInitiator));
      client.eventLoop().execute(() -> RecordingUlpduListener.send(ic, MpaHandshakeTest.HELLO));
      assertEquals(MpaHandshakeTest.HELLO, atResponder.get(5, TimeUnit.SECONDS));
      assertTrue(rc.sendEnabledFuture().await(5, TimeUnit.SECONDS));
      rc.channel().eventLoop().execute(() ->
          RecordingUlpduListener.send(rc, MpaHandshakeTest.HELLO2));
      assertEquals(MpaHandshakeTest.HELLO2, atInitiator.get(5, TimeUnit.SECONDS),
          "the zero-length Read Response to the RTR was consumed by MPA");
      ic.close().sync();
    } finally {
      server.close().sync();
    }
  }

  private static MpaConnection await(Future<MpaConnection> f) throws InterruptedException {
    assertTrue(f.await(5, TimeUnit.SECONDS), "handshake did not finish");
    assertTrue(f.isSuccess(), () -> "handshake failed: " + f.cause());
    return f.getNow();
  }

  /** Completes with the first ULPDU as hex. */
  private static final class Collect implements UlpduListener {
    private final CompletableFuture<String> first;
    private final RecordingUlpduListener recorder = new RecordingUlpduListener();

    Collect(CompletableFuture<String> first) {
      this.first = first;
    }

    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
      recorder.onUlpdu(ctx, ulpdu);
      List<String> got = recorder.hexUlpdus();
      first.complete(got.get(0));
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
      first.completeExceptionally(error);
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
      assertNotNull(ctx);
    }
  }
}
