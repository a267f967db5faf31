package io.iwarp4j.benchmarks;

import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaConnectionInfo;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.MpaInitiatorHandler;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.iwarp4j.mpa.MpaSettings;
import io.iwarp4j.mpa.Transport;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.TaggedHeader;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code loopback-mpa} command (the original, MPA-only demo): two ends on 127.0.0.1, an MPA
 * handshake with the default settings (Rev 2, S, CRC on), then a stream of FPDUs carrying RDMA
 * Write-shaped ULPDUs (tagged DDP header + payload) for a couple of seconds. Prints what was
 * negotiated and how fast the framing ran.
 */
final class MpaLoopbackDemo {
  private static final int WRITE_CONTROL = RdmapControl.encode(RdmapOpcode.RDMA_WRITE);

  private static final int SECONDS = 2;

  private MpaLoopbackDemo() {
  }

  static void run(String[] args) throws Exception {
    Transport transport = Transport.AUTO.resolve();
    EventLoopGroup group = transport.newEventLoopGroup(2, new DefaultThreadFactory("iwarp4j-demo"));
    CompletableFuture<MpaResponderHandler> responder = new CompletableFuture<>();
    try {
      Channel server = new ServerBootstrap().group(group)
          .channel(transport.serverSocketChannelClass())
          .childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              MpaResponderHandler h = new MpaResponderHandler(MpaSettings.defaults(), true);
              ch.pipeline().addLast(h);
              responder.complete(h);
            }
          })
          .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
      MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
      new Bootstrap().group(group).channel(transport.socketChannelClass()).handler(ih)
          .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 << 10, 1 << 20))
          .connect(server.localAddress()).sync();
      MpaConnection client = await(ih.handshakeFuture());
      MpaConnection peer = await(responder.get(5, TimeUnit.SECONDS).handshakeFuture());
      MpaConnectionInfo info = client.info();
      System.out.printf("iwarp4j loopback demo on %s (%s transport)%n", server.localAddress(),
          transport);
      System.out.printf("MPA: rev %d, enhanced %s, CRC %s, markers out/in %s/%s, IRD %d, ORD %d,"
              + " MULPDU %d%n", info.revision(), info.enhanced(), info.crc() ? "on" : "off",
          info.markersOut(), info.markersIn(), info.localIrd(), info.localOrd(),
          info.maxUlpduLength());

      AtomicLong octets = new AtomicLong();
      AtomicLong fpdus = new AtomicLong();
      peer.setListener(new UlpduListener() {
        @Override
        public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
          octets.addAndGet(ulpdu.length());
          fpdus.incrementAndGet();
        }

        @Override
        public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
          System.err.println("MPA error: " + error.getMessage());
        }

        @Override
        public void onInputClosed(ChannelHandlerContext ctx) {
        }
      });

      int payloadLength = info.maxUlpduLength() - TaggedHeader.LENGTH;
      ByteBuf payload = client.channel().alloc().directBuffer(payloadLength);
      payload.writerIndex(payloadLength);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
      long start = System.nanoTime();
      CompletableFuture<Void> done = new CompletableFuture<>();
      Runnable pump = new Runnable() {
        @Override
        public void run() {
          Channel ch = client.channel();
          while (ch.isWritable() && System.nanoTime() < deadline) {
            ByteBuf header = ch.alloc().buffer(TaggedHeader.LENGTH);
            TaggedHeader.write(header, true, WRITE_CONTROL, 0x100, 0);
            client.framer().write(header, payload.retainedSlice());
          }
          client.framer().flush();
          if (System.nanoTime() >= deadline) {
            done.complete(null);
          } else if (ch.isWritable()) {
            ch.eventLoop().execute(this);
          }
          // else: resumed by channelWritabilityChanged (backpressure, no spinning)
        }
      };
      client.channel().pipeline().addLast(new ChannelInboundHandlerAdapter() {
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
          if (ctx.channel().isWritable() && !done.isDone()) {
            pump.run();
          }
          ctx.fireChannelWritabilityChanged();
        }
      });
      client.channel().eventLoop().execute(pump);
      done.get(SECONDS + 10, TimeUnit.SECONDS);
      // Let the receiver drain what is in flight.
      Thread.sleep(200);
      double secs = (System.nanoTime() - start) / 1e9;
      System.out.printf("sent %d FPDUs of %d octets; received %d ULPDUs, %.1f MB in %.2f s:"
              + " %.0f MB/s, %.0f FPDUs/s%n", fpdus.get(), info.maxUlpduLength(), fpdus.get(),
          octets.get() / 1e6, secs, octets.get() / 1e6 / secs, fpdus.get() / secs);
      payload.release();
      client.close().sync();
      server.close().sync();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  private static MpaConnection await(Future<MpaConnection> f) throws InterruptedException {
    if (!f.await(10, TimeUnit.SECONDS) || !f.isSuccess()) {
      throw new IllegalStateException("MPA handshake failed", f.cause());
    }
    return f.getNow();
  }
}
