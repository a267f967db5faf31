package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.iwarp4j.wire.FpduHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The receive side delivers views of the socket buffers themselves (no staging copy), and keeps
 * its memory bounded by one FPDU even when a peer trickles a maximum-size FPDU one octet per read.
 */
class FpduDeframerMemoryTest {

  @Test
  void maximumFpduOneOctetPerReadIsDeliveredWithBoundedMemory() {
    byte[] ulpdu = new byte[FpduHeader.MAX_ULPDU_LENGTH];
    new Random(5044).nextBytes(ulpdu);
    byte[] wire = ReferenceFpdu.encode(List.of(ulpdu, new byte[] {1, 2, 3}), true, false);
    RecordingUlpduListener listener = new RecordingUlpduListener();
    FpduDeframer deframer = new FpduDeframer(true, false, listener);
    EmbeddedChannel ch = new EmbeddedChannel(deframer);
    ByteBuf[] fed = new ByteBuf[wire.length];
    int maxHeld = 0;
    long maxCapacity = 0;
    try {
      for (int i = 0; i < wire.length; i++) {
        // Heap buffers are not tracked by the leak detector; their refCnt is checked below.
        fed[i] = Unpooled.wrappedBuffer(new byte[] {wire[i]});
        ch.pipeline().fireChannelRead(fed[i]);
        maxHeld = Math.max(maxHeld, deframer.heldBufferCount());
        maxCapacity = Math.max(maxCapacity, deframer.heldCapacity());
      }
      ch.checkException();
    } finally {
      ch.finishAndReleaseAll();
    }
    assertEquals(2, listener.ulpdus.size());
    assertArrayEquals(ulpdu, listener.ulpdus.get(0));
    assertArrayEquals(new byte[] {1, 2, 3}, listener.ulpdus.get(1));
    assertTrue(listener.errors.isEmpty(), () -> listener.errors.toString());
    assertTrue(maxHeld <= FpduDeframer.MAX_HELD_BUFFERS, "held " + maxHeld + " read buffers");
    // The staging buffer (the ULPDU) plus at most MAX_HELD_BUFFERS one-octet reads.
    assertTrue(maxCapacity <= FpduHeader.MAX_ULPDU_LENGTH + FpduDeframer.MAX_HELD_BUFFERS,
        "held " + maxCapacity + " octets of buffers");
    assertTrue(deframer.consolidations() > 0, "a trickled FPDU is consolidated");
    assertTrue(deframer.consolidations() <= ulpdu.length / FpduDeframer.MAX_HELD_BUFFERS + 1);
    assertEquals(0, deframer.heldCapacity());
    for (ByteBuf b : fed) {
      assertEquals(0, b.refCnt());
    }
  }

  @Test
  void piecesAreTheReceivedBuffersWithoutACopy() {
    byte[] ulpdu = new byte[3000];
    new Random(6581).nextBytes(ulpdu);
    for (boolean markers : new boolean[] {false, true}) {
      byte[] wire = ReferenceFpdu.encode(List.of(ulpdu), true, markers);
      List<ByteBuf> reads = new ArrayList<>();
      int[] cuts = {0, 700, 1500, wire.length};
      for (int i = 0; i + 1 < cuts.length; i++) {
        reads.add(Unpooled.directBuffer(cuts[i + 1] - cuts[i])
            .writeBytes(wire, cuts[i], cuts[i + 1] - cuts[i]));
      }
      List<ByteBuf> seen = new ArrayList<>();
      int[] deliveredLength = {-1};
      RecordingUlpduListener listener = new RecordingUlpduListener() {
        @Override
        public void onUlpdu(ChannelHandlerContext ctx, Ulpdu u) {
          super.onUlpdu(ctx, u);
          deliveredLength[0] = u.length();
          for (int p = 0; p < u.pieceCount(); p++) {
            seen.add(u.pieceBuffer(p));
          }
        }
      };
      FpduDeframer deframer = new FpduDeframer(true, markers, listener);
      EmbeddedChannel ch = new EmbeddedChannel(deframer);
      try {
        for (ByteBuf b : reads) {
          ch.writeInbound(b);
        }
      } finally {
        ch.finishAndReleaseAll();
      }
      assertEquals(3000, deliveredLength[0]);
      assertArrayEquals(ulpdu, listener.ulpdus.get(0));
      assertEquals(0, deframer.consolidations(), "no copy in the normal case");
      // Every piece is one of the read buffers; with Markers a read contributes several pieces.
      assertTrue(seen.size() >= 3, "pieces: " + seen.size());
      for (ByteBuf piece : seen) {
        assertTrue(reads.stream().anyMatch(r -> r == piece), "piece is a read buffer");
      }
      assertSame(reads.get(0), seen.get(0));
      assertSame(reads.get(2), seen.get(seen.size() - 1));
      for (ByteBuf b : reads) {
        assertEquals(0, b.refCnt(), "read buffer released after delivery");
      }
    }
  }

  @Test
  void readsThatBackAPendingFpduAreRetainedUntilDelivery() {
    byte[] ulpdu = new byte[1000];
    byte[] wire = ReferenceFpdu.encode(List.of(ulpdu), true, false);
    RecordingUlpduListener listener = new RecordingUlpduListener();
    FpduDeframer deframer = new FpduDeframer(true, false, listener);
    EmbeddedChannel ch = new EmbeddedChannel(deframer);
    try {
      ByteBuf first = Unpooled.directBuffer(500).writeBytes(wire, 0, 500);
      ByteBuf second = Unpooled.directBuffer(wire.length - 500).writeBytes(wire, 500,
          wire.length - 500);
      ch.writeInbound(first);
      assertEquals(1, first.refCnt(), "kept for the FPDU being assembled");
      assertEquals(1, deframer.heldBufferCount());
      assertEquals(500, deframer.heldCapacity());
      ch.writeInbound(second);
      assertEquals(0, first.refCnt());
      assertEquals(0, second.refCnt());
      assertEquals(0, deframer.heldBufferCount());
      assertEquals(1, listener.ulpdus.size());
    } finally {
      ch.finishAndReleaseAll();
    }
  }
}
