package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.wirecheck.LoopbackCapture;
import io.iwarp4j.it.wirecheck.WireReport;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.MpaInitiatorHandler;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.iwarp4j.mpa.MpaSettings;
import io.iwarp4j.mpa.RtrType;
import io.iwarp4j.mpa.Transport;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Acceptance for the MPA layer on the wire: a real TCP handshake on 127.0.0.1 for every
 * negotiation variant (Rev 1, Rev 2 with and without S, CRC on and off, Markers in each direction
 * and both, peer-to-peer with each RTR type), FPDUs both ways, captured with tshark and checked
 * by the project's wire checker ({@link io.iwarp4j.it.wirecheck.WireChecker}) with zero errors.
 *
 * <p>The ULPDUs are well-formed DDP/RDMAP messages (Sends with sequential MSNs, a multi-segment
 * Send, tagged RDMA Writes) so that the checker's DDP/RDMAP rules apply to them too.
 */
class MpaWireCheckIT {

  /** One connection's settings on each side, and what the checker should see. */
  record Variant(String name, MpaSettings initiator, MpaSettings responder) {
  }

  private static MpaSettings.Builder s() {
    return MpaSettings.builder();
  }

  static final List<Variant> VARIANTS = List.of(
      new Variant("rev1 crc", s().revision(1).build(), s().build()),
      new Variant("rev1 no crc", s().revision(1).crc(false).build(), s().crc(false).build()),
      new Variant("rev2 S crc", s().build(), s().build()),
      new Variant("rev2 S no crc", s().crc(false).build(), s().crc(false).build()),
      new Variant("rev2 S responder imposes crc", s().crc(false).build(), s().build()),
      new Variant("rev2 without S", s().enhanced(false).build(), s().build()),
      new Variant("markers both", s().markers(true).build(), s().markers(true).build()),
      new Variant("markers to initiator only", s().markers(true).build(), s().build()),
      new Variant("markers to responder only", s().build(), s().markers(true).build()),
      new Variant("p2p send rtr", s().peerToPeer(true).rtrTypes(RtrType.SEND).build(), s().build()),
      new Variant("p2p write rtr", s().peerToPeer(true).rtrTypes(RtrType.WRITE).build(),
          s().build()),
      new Variant("p2p read rtr", s().peerToPeer(true).rtrTypes(RtrType.READ).build(),
          s().build()));

  @Test
  void everyNegotiationVariantPassesTheWireCheck() throws Exception {
    WireCheck.requireAvailable();
    WireReport result = WireCheck.withCaptureRetries(3, MpaWireCheckIT::captureAndCheck);
    String out = result.summary();
    System.out.println(out);
    assertTrue(result.passed(), "the wire check found errors:\n" + out);
    assertEquals(VARIANTS.size(), result.mpaConnections(), "every variant decoded: " + out);
    assertTrue(result.totals().crcGood() > 0, out);
    assertEquals(0, result.totals().crcBad(), out);
    assertTrue(result.totals().markers() > 0, "markers were exercised: " + out);
  }

  private static WireReport captureAndCheck() throws Exception {
    int port = WireCheck.freePort();
    Path dir = Paths.get(System.getProperty("iwarp4j.build.dir", "target"), "wirecheck");
    Files.createDirectories(dir);
    Path pcap = dir.resolve("mpa-variants.pcap");

    EventLoopGroup group = Transport.AUTO.newEventLoopGroup(2, new DefaultThreadFactory("mpa-it"));
    BlockingQueue<MpaResponderHandler> accepted = new LinkedBlockingQueue<>();
    BlockingQueue<MpaSettings> nextResponder = new LinkedBlockingQueue<>();
    try (LoopbackCapture capture = WireCheck.startCapture(port, 120, pcap)) {
      Channel server = new ServerBootstrap().group(group)
          .channel(Transport.AUTO.serverSocketChannelClass())
          .childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) throws Exception {
              MpaResponderHandler h = new MpaResponderHandler(nextResponder.take(), true);
              ch.pipeline().addLast(h);
              accepted.add(h);
            }
          })
          .bind(new InetSocketAddress("127.0.0.1", port)).sync().channel();
      try {
        for (Variant v : VARIANTS) {
          runVariant(group, port, v, nextResponder, accepted);
        }
      } finally {
        server.close().sync();
      }
      capture.stop();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    return WireCheck.check(pcap, port);
  }

  private static void runVariant(EventLoopGroup group, int port, Variant v,
      BlockingQueue<MpaSettings> nextResponder, BlockingQueue<MpaResponderHandler> accepted)
      throws Exception {
    nextResponder.add(v.responder());
    MpaInitiatorHandler ih = new MpaInitiatorHandler(v.initiator());
    new Bootstrap().group(group).channel(Transport.AUTO.socketChannelClass())
        .handler(ih).connect(new InetSocketAddress("127.0.0.1", port)).sync();
    MpaConnection client = await(ih.handshakeFuture(), v);
    MpaResponderHandler rh = accepted.poll(10, TimeUnit.SECONDS);
    MpaConnection server = await(rh.handshakeFuture(), v);

    Counter atServer = new Counter();
    Counter atClient = new Counter();
    server.setListener(atServer);
    client.setListener(atClient);

    // Initiator: Sends (MSN continues after a Send RTR), one Send of 3000 octets in 3 segments,
    // a 33-octet Send (PAD 3), and a 2000-octet RDMA Write in two segments.
    int firstMsn = client.info().rtr() == RtrType.SEND ? 2 : 1;
    client.channel().eventLoop().submit(() -> {
      int msn = firstMsn;
      sendSend(client, msn++, 0, 16, true);
      sendSend(client, msn, 0, 1000, false);
      sendSend(client, msn, 1000, 1000, false);
      sendSend(client, msn++, 2000, 1000, true);
      sendSend(client, msn++, 0, 33, true);
      sendWrite(client, 0x1234_5600, 0x10000, 1200, false);
      sendWrite(client, 0x1234_5600, 0x10000 + 1200, 800, true);
    }).sync();
    assertTrue(atServer.await(7), v.name() + ": server received " + atServer.count);

    // Responder: may send once the Initiator's first FPDU arrived (RFC 5044 §7.1.2 rule 4).
    assertTrue(server.sendEnabledFuture().await(5, TimeUnit.SECONDS), v.name());
    server.channel().eventLoop().submit(() -> {
      sendSend(server, 1, 0, 600, true);
      sendWrite(server, 0x0abc_0100, 0x2000, 700, true);
    }).sync();
    assertTrue(atClient.await(2), v.name() + ": client received " + atClient.count);
    assertEquals(null, atServer.error.getNow(null), v.name());
    assertEquals(null, atClient.error.getNow(null), v.name());
    client.close().sync();
    server.channel().closeFuture().await(5, TimeUnit.SECONDS);
  }

  private static MpaConnection await(Future<MpaConnection> f, Variant v) throws Exception {
    assertTrue(f.await(10, TimeUnit.SECONDS), v.name() + ": handshake did not finish");
    assertTrue(f.isSuccess(), () -> v.name() + ": handshake failed: " + f.cause());
    return f.getNow();
  }

  private static void sendSend(MpaConnection c, int msn, int mo, int length, boolean last) {
    ByteBuf header = c.channel().alloc().buffer(UntaggedHeader.LENGTH);
    long rsvdUlp = (long) RdmapControl.encode(RdmapOpcode.SEND) << 32;
    UntaggedHeader.write(header, last, rsvdUlp, 0, msn, mo);
    c.framer().write(header, payload(c, length, msn));
    c.framer().flush();
  }

  private static void sendWrite(MpaConnection c, int stag, long to, int length, boolean last) {
    ByteBuf header = c.channel().alloc().buffer(TaggedHeader.LENGTH);
    TaggedHeader.write(header, last, RdmapControl.encode(RdmapOpcode.RDMA_WRITE), stag, to);
    c.framer().write(header, payload(c, length, (int) to));
    c.framer().flush();
  }

  private static ByteBuf payload(MpaConnection c, int length, int seed) {
    ByteBuf p = c.channel().alloc().directBuffer(length);
    for (int i = 0; i < length; i++) {
      p.writeByte(seed * 31 + i);
    }
    return p;
  }

  /** Counts ULPDUs and records the first error. */
  private static final class Counter implements UlpduListener {
    volatile int count;
    final CompletableFuture<MpaException> error = new CompletableFuture<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile int expected = Integer.MAX_VALUE;

    boolean await(int n) throws Exception {
      expected = n;
      if (count >= n) {
        return true;
      }
      try {
        done.get(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        return false;
      }
      return count >= n;
    }

    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
      count++;
      if (count >= expected) {
        done.complete(null);
      }
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException e) {
      error.complete(e);
      done.complete(null);
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
    }
  }
}
