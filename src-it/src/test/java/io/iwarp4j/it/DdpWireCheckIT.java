package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.ddp.UntaggedReceiveQueue;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Control;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Error;
import io.iwarp4j.ddp.testing.RecordingStreamListener.InputClosed;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Tagged;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Untagged;
import io.iwarp4j.it.wirecheck.Code;
import io.iwarp4j.it.wirecheck.Finding;
import io.iwarp4j.it.wirecheck.LoopbackCapture;
import io.iwarp4j.it.wirecheck.WireReport;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaInitiatorHandler;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.iwarp4j.mpa.MpaSettings;
import io.iwarp4j.mpa.RtrType;
import io.iwarp4j.mpa.Transport;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Acceptance for the DDP layer on the wire: two {@link DdpStream}s, each with its own STag table,
 * Protection Domain and registered memory, talk over real TCP on 127.0.0.1 ({@link
 * Transport#AUTO}); one tshark capture covers every connection (six), and
 * the project's wire checker ({@code io.iwarp4j.it.wirecheck}) must find zero errors in it (MSN sequences per
 * queue and direction, MO and TO progression, L bits, opcode/T/QN consistency, CRC, Markers,
 * the Terminate format).
 *
 * <p>The connections:
 * <ol>
 *   <li>CRC on, MULPDU from the kernel MSS: in both directions (the Responder only once the
 *       Initiator's first FPDU arrived, RFC 5044 §7.1.2 rule 4) RDMA Writes of 1, 4096 and
 *       200 000 octets (the last a gather list of 3 pieces from 2 regions) into the peer's
 *       registered region at its STag and base TO, interleaved with Sends of 0, 33 and 100 000
 *       octets (QN 0, opcode 3) into posted receive buffers (the last a scatter list of 2
 *       pieces);
 *   <li>CRC off, MULPDU 200: the same messages (smaller) cut into hundreds of segments;
 *   <li>Markers in both directions, each message one FPDU flushed alone, so that tshark can
 *       decode them (it needs one FPDU per TCP segment);
 *   <li>Markers in both directions with the multi-segment messages of connection 1 in one batch:
 *       tshark gives up on the coalesced FPDUs (a {@code W_TSHARK_LIMIT} warning), the checker's
 *       own framer still checks every CRC and Marker, and the test every octet;
 *   <li>peer-to-peer with a Send RTR: the Initiator's Sends continue at MSN 2;
 *   <li>an RDMA Write to an unknown STag: the Responder's stream reports Invalid STag (DDP
 *       Layer 1, EType 1, code 0x00), sends the DDP Terminate with {@link
 *       DdpStream#terminateForError()}, and the Initiator's stream receives it on QN 2 with
 *       M=1, D=1, the DDP Segment Length and the echoed 14-octet header.
 * </ol>
 * For every message the delivery upcalls (kind, STag, TO, QN, MSN, length, buffer id) come in
 * the order sent, and every octet of every sink region and receive region is compared with what
 * should be there (payload where it belongs, zeros everywhere else).
 */
class DdpWireCheckIT {
  private static final int WRITE = RdmapControl.encode(RdmapOpcode.RDMA_WRITE);
  private static final long SEND = RdmapControl.untaggedRsvdUlp(RdmapOpcode.SEND, 0);
  private static final long TERMINATE = RdmapControl.untaggedRsvdUlp(RdmapOpcode.TERMINATE, 0);

  /** Where the three RDMA Writes land in the peer's sink region. */
  private static final int SINK_OFFSET_1 = 3;
  private static final int SINK_OFFSET_4096 = 64;
  private static final int SINK_OFFSET_BIG = 8192;

  /** The posted receive buffers on QN 0, by id: their regions in the receive region. */
  private static final long RECV_ID_0 = 101;
  private static final long RECV_ID_33 = 102;
  private static final long RECV_ID_BIG = 103;
  private static final int RECV_33_INDEX = 16;
  private static final int RECV_BIG_PIECE_1 = 256;
  private static final int RECV_BIG_PIECE_2 = 64_000;
  private static final int RECV_BIG_PIECE_LENGTH = 60_000;

  /**
   * Socket receive buffers (the kernel caps them at net.core.rmem_max) large enough that a
   * batch never fills the receive window: a full window delays the ACK, and Linux's tail loss
   * probe then resends a segment, which the wire checker reports as an error (T_CAPTURE).
   */
  private static final int RECEIVE_BUFFER = 4 << 20;

  /** The size of the largest Write and Send of one direction's messages. */
  record Workload(int bigWrite, int bigSend) {
  }

  private static final Workload FULL = new Workload(200_000, 100_000);
  private static final Workload SMALL = new Workload(20_000, 10_000);

  private static MpaSettings.Builder s() {
    return MpaSettings.builder();
  }

  private EventLoopGroup group;
  private int port;
  private final BlockingQueue<MpaSettings> nextResponder = new LinkedBlockingQueue<>();
  private final BlockingQueue<MpaResponderHandler> accepted = new LinkedBlockingQueue<>();

  @Test
  void ddpStreamsPassTheWireCheck() throws Exception {
    WireCheck.requireAvailable();
    port = WireCheck.freePort();
    Path dir = Paths.get(System.getProperty("iwarp4j.build.dir", "target"), "wirecheck");
    Files.createDirectories(dir);
    Path pcap = dir.resolve("ddp-streams.pcap");

    group = Transport.AUTO.newEventLoopGroup(2, new DefaultThreadFactory("ddp-it"));
    try (LoopbackCapture capture = WireCheck.startCapture(port, 120, pcap)) {
      Channel server = new ServerBootstrap().group(group)
          .channel(Transport.AUTO.serverSocketChannelClass())
          .option(ChannelOption.SO_RCVBUF, RECEIVE_BUFFER)
          .childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) throws Exception {
              MpaSettings settings = nextResponder.poll(DdpEndpoint.TIMEOUT_SECONDS,
                  TimeUnit.SECONDS);
              MpaResponderHandler h = new MpaResponderHandler(
                  settings != null ? settings : MpaSettings.defaults(), true);
              ch.pipeline().addLast(QuickAck.INSTANCE, h);
              accepted.add(h);
            }
          })
          .bind(new InetSocketAddress("127.0.0.1", port)).sync().channel();
      try {
        exchange("crc, MULPDU from the MSS", s().build(), s().build(), FULL, false, 10);
        exchange("no crc, MULPDU 200", s().crc(false).maxUlpduLength(200).build(),
            s().crc(false).maxUlpduLength(200).build(), SMALL, false, 20);
        // tshark decodes Markers only with one FPDU per TCP segment: one FPDU per message, each
        // flushed alone and delivered before the next.
        MpaSettings markers = s().markers(true).emss(32768).build();
        exchange("markers, one FPDU per segment", markers, markers, SMALL, true, 30);
        // Multi-FPDU messages with Markers: tshark loses the FPDUs of coalesced segments
        // (W_TSHARK_LIMIT); the checker's own framer still checks every CRC and Marker.
        exchange("markers, multi-segment batch", s().markers(true).build(),
            s().markers(true).build(), FULL, false, 40);
        exchange("p2p send rtr", s().peerToPeer(true).rtrTypes(RtrType.SEND).build(),
            s().build(), SMALL, false, 50);
        invalidStagIsTerminated(60);
      } finally {
        server.close().await(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS);
      }
      capture.stop();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS)
          .await(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    WireReport result = WireCheck.check(pcap, port);
    String out = result.summary();
    System.out.println(out);
    assertTrue(result.passed(), "the wire check found errors:\n" + out);
    assertEquals(6, result.connections().size(), out);
    assertEquals(6, result.mpaConnections(), out);
    assertTrue(result.totals().crcGood() > 0, out);
    assertEquals(0, result.totals().crcBad(), out);
    assertTrue(result.totals().markers() > 0, "markers were exercised: " + out);
    // What tshark decoded: 2 directions x 3 messages of each kind on 4 connections (not the
    // batch with Markers), plus the Write to the unknown STag, plus the Send RTR.
    assertTrue(result.messages(0) >= 25, out);
    assertTrue(result.messages(3) >= 25, out);
    assertEquals(1, result.messages(7), out);
    // The only warnings allowed are tshark giving up on the coalesced FPDUs with Markers.
    assertTrue(result.codes(Finding.Level.WARNING).keySet().stream()
        .allMatch(c -> c == Code.W_TSHARK_LIMIT), out);
  }

  // ---- connections ----

  /** Connects an Initiator and returns {Initiator's, Responder's} established connection. */
  private MpaConnection[] connect(MpaSettings initiator, MpaSettings responder) throws Exception {
    nextResponder.add(responder);
    MpaInitiatorHandler ih = new MpaInitiatorHandler(initiator);
    ChannelFuture connected = new Bootstrap().group(group)
        .channel(Transport.AUTO.socketChannelClass())
        .option(ChannelOption.SO_RCVBUF, RECEIVE_BUFFER)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(QuickAck.INSTANCE, ih);
          }
        })
        .connect(new InetSocketAddress("127.0.0.1", port));
    assertTrue(connected.await(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS), "connect");
    assertTrue(connected.isSuccess(), () -> "connect failed: " + connected.cause());
    MpaConnection ic = established(ih.handshakeFuture(), "Initiator");
    MpaResponderHandler rh = accepted.poll(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertNotNull(rh, "the server accepted the connection");
    MpaConnection rc = established(rh.handshakeFuture(), "Responder");
    return new MpaConnection[] {ic, rc};
  }

  private static MpaConnection established(Future<MpaConnection> f, String who) throws Exception {
    assertTrue(f.await(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS),
        who + ": MPA startup did not finish");
    assertTrue(f.isSuccess(), () -> who + ": MPA startup failed: " + f.cause());
    return f.getNow();
  }

  /** Closes both channels (if still open), waits for them, then deregisters the memory. */
  private static void tearDown(MpaConnection[] c, List<DdpEndpoint> endpoints)
      throws InterruptedException {
    for (MpaConnection connection : c) {
      connection.channel().close();
    }
    for (MpaConnection connection : c) {
      connection.channel().closeFuture().await(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
    for (DdpEndpoint e : endpoints) {
      e.close();
    }
  }

  /** QN 0 with three posted buffers (the last of two pieces) and QN 2 for a Terminate. */
  private static void standardQueues(DdpEndpoint e) {
    DdpStream stream = e.stream();
    UntaggedReceiveQueue q = stream.enableReceiveQueue(0, 4, 2);
    ByteBuf recv = e.recv.buffer();
    q.post(recv, 0, RECV_33_INDEX, RECV_ID_0);
    q.post(recv, RECV_33_INDEX, 48, RECV_ID_33);
    q.post(new GatherList()
        .add(recv, RECV_BIG_PIECE_1, RECV_BIG_PIECE_LENGTH)
        .add(recv, RECV_BIG_PIECE_2, RECV_BIG_PIECE_LENGTH), RECV_ID_BIG);
    stream.enableControlQueue(2, 52);
  }

  // ---- 1 to 4: messages both ways ----

  /**
   * One connection: the Initiator's messages, then the Responder's, each direction verified;
   * {@code paced}: every message flushed alone and awaited before the next.
   */
  private void exchange(String name, MpaSettings initiatorSettings,
      MpaSettings responderSettings, Workload w, boolean paced, long seed) throws Exception {
    MpaConnection[] c = connect(initiatorSettings, responderSettings);
    List<DdpEndpoint> endpoints = new ArrayList<>();
    try {
      DdpEndpoint i = DdpEndpoint.open(name + " Initiator", c[0], seed,
          DdpWireCheckIT::standardQueues);
      endpoints.add(i);
      DdpEndpoint r = DdpEndpoint.open(name + " Responder", c[1], seed + 1,
          DdpWireCheckIT::standardQueues);
      endpoints.add(r);

      RtrType rtr = c[0].info().rtr();
      if (rtr == null) {
        // Nothing was sent yet: a client-server Responder may not send (rule 4).
        assertFalse(r.call(() -> r.stream().sendEnabled()), name + ": rule 4");
      }
      int firstMsn = rtr == RtrType.SEND ? 2 : 1;
      assertEquals(firstMsn, i.call(() -> i.stream().nextSendMsn(0)), name);

      verify(i, r, w, firstMsn, transfer(i, r, w, paced), name + ", Initiator to Responder");

      assertTrue(c[1].sendEnabledFuture().await(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS),
          name + ": the Responder may send");
      assertTrue(r.call(() -> r.stream().sendEnabled()), name);
      assertEquals(1, r.call(() -> r.stream().nextSendMsn(0)), name);
      verify(r, i, w, 1, transfer(r, i, w, paced), name + ", Responder to Initiator");

      // Graceful teardown: the Initiator closes, the Responder sees the FIN at an FPDU boundary.
      ChannelFuture closed = i.call(() -> i.stream().close());
      assertEquals(List.of(new InputClosed()), r.events.take(1), name);
      assertTrue(closed.await(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS), name);
      assertTrue(c[1].channel().closeFuture().await(DdpEndpoint.TIMEOUT_SECONDS,
          TimeUnit.SECONDS), name + ": the Responder closed too");
      for (Object e : i.events.pending()) {
        assertEquals(new InputClosed(), e, name + ": the Initiator after its close");
      }
    } finally {
      tearDown(c, endpoints);
    }
  }

  /**
   * Sends, in this order, a 1-octet Write, a 0-octet Send, a 4096-octet Write, a 33-octet Send,
   * a big Write (3 gather pieces from regions A, B, A) and a big Send (pieces from B and A):
   * flushed as one batch, or each alone and delivered before the next when {@code paced}.
   *
   * @return the six events {@code to} handed up
   */
  private static List<Object> transfer(DdpEndpoint from, DdpEndpoint to, Workload w,
      boolean paced) throws Exception {
    int sinkStag = to.sink.stag();
    long base = to.sink.baseTo();
    ByteBuf a = from.srcA.buffer();
    ByteBuf b = from.srcB.buffer();
    int[] p = bigWritePieces(w.bigWrite());
    int[] q = bigSendPieces(w.bigSend());
    List<Consumer<DdpStream>> messages = List.of(
        s -> s.sendTagged(WRITE, sinkStag, base + SINK_OFFSET_1, new GatherList().add(a, 7, 1)),
        s -> s.sendUntagged(SEND, 0, null, new GatherList()),
        s -> s.sendTagged(WRITE, sinkStag, base + SINK_OFFSET_4096,
            new GatherList().add(b, 0, 4096)),
        s -> s.sendUntagged(SEND, 0, null, new GatherList().add(a, 1000, 33)),
        s -> s.sendTagged(WRITE, sinkStag, base + SINK_OFFSET_BIG,
            new GatherList().add(a, p[0], p[1]).add(b, p[2], p[3]).add(a, p[4], p[5])),
        s -> s.sendUntagged(SEND, 0, null,
            new GatherList().add(b, q[0], q[1]).add(a, q[2], q[3])));
    if (!paced) {
      from.call(() -> {
        for (Consumer<DdpStream> m : messages) {
          m.accept(from.stream());
        }
        from.stream().flush();
        return null;
      });
      return to.events.take(messages.size());
    }
    List<Object> events = new ArrayList<>();
    for (Consumer<DdpStream> m : messages) {
      from.call(() -> {
        m.accept(from.stream());
        from.stream().flush();
        return null;
      });
      events.addAll(to.events.take(1));
    }
    return events;
  }

  /** The big Write's pieces as {index, length} in regions A, B, A. */
  private static int[] bigWritePieces(int length) {
    int first = length * 35 / 100;
    int second = length * 40 / 100;
    return new int[] {100, first, 5, second, 100 + first + 1000, length - first - second};
  }

  /** The big Send's pieces as {index, length} in regions B, A. */
  private static int[] bigSendPieces(int length) {
    return new int[] {1000, length / 2, 200, length - length / 2};
  }

  /** Checks what {@code to} got from {@code from}: upcalls in order, then every octet. */
  private static void verify(DdpEndpoint from, DdpEndpoint to, Workload w, int firstMsn,
      List<Object> events, String what) throws Exception {
    int stag = to.sink.stag();
    long base = to.sink.baseTo();
    assertEquals(List.of(
        new Tagged(WRITE, stag, base + SINK_OFFSET_1, 1),
        new Untagged(0, firstMsn, SEND, 0, RECV_ID_0),
        new Tagged(WRITE, stag, base + SINK_OFFSET_4096, 4096),
        new Untagged(0, firstMsn + 1, SEND, 33, RECV_ID_33),
        new Tagged(WRITE, stag, base + SINK_OFFSET_BIG, w.bigWrite()),
        new Untagged(0, firstMsn + 2, SEND, w.bigSend(), RECV_ID_BIG)),
        events, what + ": deliveries");
    assertEquals(List.of(), to.events.pending(), what + ": nothing else (no error)");

    byte[] sink = new byte[DdpEndpoint.SINK_LENGTH];
    System.arraycopy(from.srcAData, 7, sink, SINK_OFFSET_1, 1);
    System.arraycopy(from.srcBData, 0, sink, SINK_OFFSET_4096, 4096);
    int[] p = bigWritePieces(w.bigWrite());
    System.arraycopy(from.srcAData, p[0], sink, SINK_OFFSET_BIG, p[1]);
    System.arraycopy(from.srcBData, p[2], sink, SINK_OFFSET_BIG + p[1], p[3]);
    System.arraycopy(from.srcAData, p[4], sink, SINK_OFFSET_BIG + p[1] + p[3], p[5]);
    assertArrayEquals(sink, DdpEndpoint.contentOf(to.sink), what + ": the sink region");
    assertEquals(1 + 4096 + w.bigWrite(), to.sink.placedOctets(), what + ": placed once");

    byte[] message = new byte[w.bigSend()];
    int[] q = bigSendPieces(w.bigSend());
    System.arraycopy(from.srcBData, q[0], message, 0, q[1]);
    System.arraycopy(from.srcAData, q[2], message, q[1], q[3]);
    byte[] recv = new byte[DdpEndpoint.RECV_LENGTH];
    System.arraycopy(from.srcAData, 1000, recv, RECV_33_INDEX, 33);
    int head = Math.min(message.length, RECV_BIG_PIECE_LENGTH);
    System.arraycopy(message, 0, recv, RECV_BIG_PIECE_1, head);
    System.arraycopy(message, head, recv, RECV_BIG_PIECE_2, message.length - head);
    assertArrayEquals(recv, DdpEndpoint.contentOf(to.recv), what + ": the receive region");
    assertEquals(0, to.call(() -> to.stream().receiveQueue(0).postedCount()),
        what + ": every posted buffer consumed");
  }

  // ---- 5: an error and its Terminate ----

  private void invalidStagIsTerminated(long seed) throws Exception {
    String name = "invalid STag";
    MpaConnection[] c = connect(MpaSettings.defaults(), MpaSettings.defaults());
    List<DdpEndpoint> endpoints = new ArrayList<>();
    try {
      DdpEndpoint i = DdpEndpoint.open(name + " Initiator", c[0], seed,
          DdpWireCheckIT::standardQueues);
      endpoints.add(i);
      DdpEndpoint r = DdpEndpoint.open(name + " Responder", c[1], seed + 1,
          DdpWireCheckIT::standardQueues);
      endpoints.add(r);

      // Slot 0xABCD lies beyond the Responder's 16-slot table: no region has this STag.
      int unknownStag = 0x00AB_CD01;
      long to = 0x1000;
      int length = 100;
      assertNull(r.table.lookup(unknownStag));
      i.call(() -> {
        i.stream().sendTagged(WRITE, unknownStag, to,
            new GatherList().add(i.srcA.buffer(), 0, length));
        i.stream().flush();
        return null;
      });

      ByteBuf expected = Unpooled.buffer(TaggedHeader.LENGTH);
      String header;
      try {
        TaggedHeader.write(expected, true, WRITE, unknownStag, to);
        header = ByteBufUtil.hexDump(expected);
      } finally {
        expected.release();
      }
      int segmentLength = TaggedHeader.LENGTH + length;
      assertEquals(List.of(new Error(DdpError.INVALID_STAG, header, TaggedHeader.LENGTH,
          segmentLength)), r.events.take(1), name + ": the Responder's error");
      assertEquals(1, DdpError.INVALID_STAG.errorType());
      assertEquals(0x00, DdpError.INVALID_STAG.code());
      assertEquals(DdpError.INVALID_STAG, r.call(() -> r.stream().error()));
      assertTrue(r.call(() -> r.stream().isErroneous()));
      assertEquals(0, r.sink.placedOctets(), name + ": nothing placed");
      assertTrue(r.call(() -> r.stream().sendEnabled()), "the bad Write enabled sending");

      ChannelFuture closed = r.call(() -> r.stream().terminateForError());
      List<Object> got = i.events.take(2);
      assertEquals(new InputClosed(), got.get(1), name + ": the Responder closed after it");
      Control terminate = (Control) got.get(0);
      assertEquals(2, terminate.qn(), name + ": QN");
      assertEquals(1, terminate.msn(), name + ": MSN");
      assertEquals(TERMINATE, terminate.rsvdUlp(), name + ": RDMAP opcode 7");
      byte[] t = ByteBufUtil.decodeHexDump(terminate.hex());
      assertEquals(4 + 2 + TaggedHeader.LENGTH, t.length, name + ": Terminate length");
      assertEquals(DdpError.LAYER, (t[0] & 0xF0) >>> 4, name + ": Layer DDP");
      assertEquals(DdpError.ETYPE_TAGGED, t[0] & 0x0F, name + ": EType tagged buffer");
      assertEquals(0x00, t[1] & 0xFF, name + ": code Invalid STag");
      assertEquals(0xC0, t[2] & 0xE0, name + ": M=1 D=1 R=0");
      assertEquals(0, t[2] & 0x1F, name + ": reserved");
      assertEquals(0, t[3], name + ": reserved");
      assertEquals(segmentLength, (t[4] & 0xFF) << 8 | (t[5] & 0xFF), name + ": segment length");
      assertEquals(header, ByteBufUtil.hexDump(Arrays.copyOfRange(t, 6, t.length)),
          name + ": the echoed DDP header");
      assertTrue(closed.await(DdpEndpoint.TIMEOUT_SECONDS, TimeUnit.SECONDS), name);
      assertTrue(c[0].channel().closeFuture().await(DdpEndpoint.TIMEOUT_SECONDS,
          TimeUnit.SECONDS), name + ": the Initiator closed too");
      for (Object e : r.events.pending()) {
        assertEquals(new InputClosed(), e, name + ": the Responder after the error");
      }
    } finally {
      tearDown(c, endpoints);
    }
  }
}
