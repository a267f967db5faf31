package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.FramingHarness.Sender;
import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Buffer ownership on the send side: every buffer handed to the framer is released exactly
 * once, and only after the transport took all of its octets — so "payload released" can complete
 * a send work request. Also the precise exceptions for misuse.
 */
class FpduFramerOwnershipTest {

  /** A heap buffer that records the moment it is deallocated (its refCnt reached 0). */
  private static final class TrackedBuf extends UnpooledHeapByteBuf {
    int deallocations;
    /** Number of transport buffers taken when this one was deallocated. */
    int deallocatedAfter = -1;
    private final SlowSocket socket;

    TrackedBuf(byte[] content, SlowSocket socket) {
      super(UnpooledByteBufAllocator.DEFAULT, content.length, content.length);
      writeBytes(content);
      this.socket = socket;
    }

    @Override
    protected void deallocate() {
      deallocations++;
      deallocatedAfter = socket == null ? -1 : socket.taken;
      super.deallocate();
    }
  }

  /**
   * Stands in for a socket that accepts data only when told to: keeps every written buffer and
   * "sends" them one at a time, in order, releasing each once its octets are out.
   */
  private static final class SlowSocket extends ChannelOutboundHandlerAdapter {
    final List<ByteBuf> pending = new ArrayList<>();
    final ByteArrayOutputStream sent = new ByteArrayOutputStream();
    int taken;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      pending.add((ByteBuf) msg);
    }

    void releasePending() {
      pending.forEach(ByteBuf::release);
      pending.clear();
    }

    void takeOne() {
      ByteBuf b = pending.remove(0);
      byte[] bytes = new byte[b.readableBytes()];
      b.readBytes(bytes);
      sent.write(bytes, 0, bytes.length);
      taken++;
      b.release();
    }
  }

  private static byte[] ramp(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i + 1);
    }
    return b;
  }

  @Test
  void payloadIsReleasedOnceAndOnlyAfterFlush() {
    for (boolean markers : new boolean[] {false, true}) {
      try (Sender s = new Sender()) {
        FpduFramer framer = s.framer(true, markers, 65000);
        ByteBuf header = Unpooled.directBuffer().writeBytes(ramp(18));
        ByteBuf payload = Unpooled.directBuffer().writeBytes(ramp(1500));
        payload.retain(); // the test's own reference, to watch the framer's
        header.retain();
        framer.write(header, payload);
        assertTrue(payload.refCnt() >= 2, "the framer still owns the payload before the flush");
        // Without Markers the header is copied into the outgoing buffer and given back at once.
        assertEquals(markers ? 2 : 1, header.refCnt());
        framer.flush();
        // EmbeddedChannel "wrote" everything: the framer's references are gone; the outbound
        // queue holds its own while the test has not read them.
        byte[] wire = s.drain();
        assertEquals(1, payload.refCnt(), "exactly the framer's reference was released");
        assertEquals(1, header.refCnt());
        assertTrue(payload.release());
        assertTrue(header.release());
        assertEquals(1, ReferenceFpdu.decodeStrict(wire, true, markers).size());
      }
    }
  }

  @Test
  void payloadSplitByMarkersIsReleasedWhenItsLastPartIsTaken() {
    SlowSocket socket = new SlowSocket();
    EmbeddedChannel ch = new EmbeddedChannel(socket, new ChannelInboundHandlerAdapter());
    try {
      ChannelHandlerContext ctx = ch.pipeline().lastContext();
      FpduFramer framer = new FpduFramer(ctx, true, true, 65000);
      TrackedBuf header = new TrackedBuf(ramp(18), socket);
      TrackedBuf payload = new TrackedBuf(ramp(1200), socket);
      framer.write(header, payload);
      framer.flush();
      // prefix (Marker + length), header, payload part, Marker, payload part, Marker, payload
      // rest, trailer: the payload spans stream octets 24..1223, Markers at 512 and 1024.
      assertEquals(8, socket.pending.size());
      assertEquals(0, payload.deallocations);
      int lastPayloadPart = 7; // number of buffers up to and including the payload's last part
      while (socket.taken < lastPayloadPart) {
        assertEquals(0, payload.deallocations, "payload released before its octets were sent ("
            + socket.taken + " buffers taken)");
        socket.takeOne();
      }
      assertEquals(1, payload.deallocations);
      assertEquals(lastPayloadPart, payload.deallocatedAfter);
      assertEquals(2, header.deallocatedAfter);
      while (!socket.pending.isEmpty()) {
        socket.takeOne();
      }
      assertEquals(1, payload.deallocations, "released exactly once");
      assertEquals(1, header.deallocations);
      byte[] ulpdu = new byte[1218];
      System.arraycopy(ramp(18), 0, ulpdu, 0, 18);
      System.arraycopy(ramp(1200), 0, ulpdu, 18, 1200);
      assertArrayEquals(ulpdu, ReferenceFpdu.decodeStrict(socket.sent.toByteArray(), true, true)
          .get(0));
    } finally {
      socket.releasePending();
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void gatherListPiecesAreEachReleasedAfterTheirOctetsAreTaken() {
    SlowSocket socket = new SlowSocket();
    EmbeddedChannel ch = new EmbeddedChannel(socket, new ChannelInboundHandlerAdapter());
    try {
      FpduFramer framer = new FpduFramer(ch.pipeline().lastContext(), false, false, 1442);
      int big = FpduFramer.INLINE_THRESHOLD + 1; // above it, pieces go zero-copy
      TrackedBuf[] pieces = {new TrackedBuf(ramp(big), socket), new TrackedBuf(ramp(7), socket),
          new TrackedBuf(new byte[0], socket)};
      framer.beginFpdu(new TrackedBuf(ramp(14), socket), big + 7);
      for (TrackedBuf p : pieces) {
        framer.addPayload(p);
      }
      framer.endFpdu();
      framer.flush();
      // length + header (one outgoing buffer), 3 pieces, trailer (the outgoing buffer again)
      assertEquals(5, socket.pending.size());
      for (int i = 0; i < 5; i++) {
        socket.takeOne();
      }
      for (int i = 0; i < pieces.length; i++) {
        assertEquals(1, pieces[i].deallocations);
        assertEquals(2 + i, pieces[i].deallocatedAfter, "piece " + i);
      }
    } finally {
      socket.releasePending();
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void smallPayloadsAreCopiedAndGivenBackAtOnceAndABatchLeavesInOneBuffer() {
    SlowSocket socket = new SlowSocket();
    EmbeddedChannel ch = new EmbeddedChannel(socket, new ChannelInboundHandlerAdapter());
    try {
      FpduFramer framer = new FpduFramer(ch.pipeline().lastContext(), true, false, 1442);
      List<byte[]> ulpdus = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int n = i == 2 ? FpduFramer.INLINE_THRESHOLD : 64 + i;
        TrackedBuf header = new TrackedBuf(ramp(18), socket);
        TrackedBuf payload = new TrackedBuf(ramp(n), socket);
        framer.write(header, payload);
        assertEquals(1, header.deallocations, "header copied and given back at once");
        assertEquals(1, payload.deallocations, "payload copied and given back at once");
        byte[] ulpdu = new byte[18 + n];
        System.arraycopy(ramp(18), 0, ulpdu, 0, 18);
        System.arraycopy(ramp(n), 0, ulpdu, 18, n);
        ulpdus.add(ulpdu);
      }
      assertEquals(0, socket.pending.size(), "nothing written before the flush");
      framer.flush();
      assertEquals(1, socket.pending.size(), "three FPDUs, one buffer");
      socket.takeOne();
      assertArrayEquals(ReferenceFpdu.encode(ulpdus, true, false), socket.sent.toByteArray());
    } finally {
      socket.releasePending();
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void writePendingPutsTheGatheredFpdusAheadOfTheCallersOwnWrite() {
    SlowSocket socket = new SlowSocket();
    EmbeddedChannel ch = new EmbeddedChannel(socket, new ChannelInboundHandlerAdapter());
    try {
      ChannelHandlerContext ctx = ch.pipeline().lastContext();
      FpduFramer framer = new FpduFramer(ctx, false, false, 1442);
      framer.write(new TrackedBuf(ramp(18), socket), new TrackedBuf(ramp(10), socket));
      framer.writePending();
      ByteBuf own = Unpooled.wrappedBuffer(new byte[] {9});
      ctx.write(own);
      framer.write(new TrackedBuf(ramp(18), socket), null);
      framer.flush();
      assertEquals(3, socket.pending.size());
      assertEquals(2 + 18 + 10 + 2 + 4, socket.pending.get(0).readableBytes());
      assertTrue(socket.pending.get(1) == own, "the caller's write follows the first FPDU");
      assertEquals(2 + 18 + 4, socket.pending.get(2).readableBytes());
    } finally {
      socket.releasePending();
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void oversizeUlpduIsRejectedWithTheNumbersAndBuffersAreReleased() {
    try (Sender s = new Sender()) {
      FpduFramer framer = s.framer(true, false, 1442);
      ByteBuf header = Unpooled.buffer().writeZero(18);
      ByteBuf payload = Unpooled.buffer().writeZero(1425);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> framer.write(header, payload));
      assertTrue(e.getMessage().contains("1443") && e.getMessage().contains("1442")
          && e.getMessage().contains("18") && e.getMessage().contains("1425"), e.getMessage());
      assertEquals(0, header.refCnt());
      assertEquals(0, payload.refCnt());
      assertFalse(framer.isFpduOpen());
      assertEquals(0, framer.streamPosition(), "nothing was written");
      // The largest allowed one goes through.
      framer.write(Unpooled.buffer().writeZero(18), Unpooled.buffer().writeZero(1424));
      framer.flush();
      assertEquals(1442 + 2 + 4, framer.streamPosition());
      assertEquals(1442 + 2 + 4, s.drain().length);
    }
  }

  @Test
  void gatherListMustAddUpToTheAnnouncedLength() {
    try (Sender s = new Sender()) {
      FpduFramer framer = s.framer(true, false, 1442);
      framer.beginFpdu(Unpooled.buffer().writeZero(18), 10);
      framer.addPayload(Unpooled.buffer().writeZero(6));
      ByteBuf tooMuch = Unpooled.buffer().writeZero(5);
      IllegalStateException over = assertThrows(IllegalStateException.class,
          () -> framer.addPayload(tooMuch));
      assertTrue(over.getMessage().contains("11") && over.getMessage().contains("10"),
          over.getMessage());
      assertEquals(0, tooMuch.refCnt());
      IllegalStateException short_ = assertThrows(IllegalStateException.class, framer::endFpdu);
      assertTrue(short_.getMessage().contains("6 of the 10"), short_.getMessage());
      ByteBuf nested = Unpooled.buffer().writeZero(4);
      assertThrows(IllegalStateException.class, () -> framer.beginFpdu(nested, 0));
      assertEquals(0, nested.refCnt());
      // The FPDU is still open and can be completed.
      framer.addPayload(Unpooled.buffer().writeZero(4));
      framer.endFpdu();
      framer.flush();
      assertEquals(1, ReferenceFpdu.decodeStrict(s.drain(), true, false).size());
      assertThrows(IllegalStateException.class, framer::endFpdu);
      ByteBuf orphan = Unpooled.buffer().writeZero(4);
      assertThrows(IllegalStateException.class, () -> framer.addPayload(orphan));
      assertEquals(0, orphan.refCnt());
    }
  }

  @Test
  void constructorChecksTheUlpduBound() {
    try (Sender s = new Sender()) {
      assertThrows(IllegalArgumentException.class, () -> s.framer(true, false, 0));
      assertThrows(IllegalArgumentException.class, () -> s.framer(true, false, 65536));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> s.framer(true, true, 65535));
      assertTrue(e.getMessage().contains("65014"), e.getMessage());
      assertEquals(65535, s.framer(true, false, 65535).maxUlpduLength());
      assertEquals(65014, s.framer(false, true, 65014).maxUlpduLength());
    }
  }
}
