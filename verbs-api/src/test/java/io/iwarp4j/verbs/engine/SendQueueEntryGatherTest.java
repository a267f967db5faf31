package io.iwarp4j.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.iwarp4j.ddp.Gather;
import io.iwarp4j.verbs.LocalBuffer;
import io.iwarp4j.verbs.ScatterGatherList;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * A send-queue entry is the payload DDP cuts a Write or Send from: it reads the posted
 * scatter/gather list in place (no second list), with the send views the issuer set per SGE, or
 * the inline area as its one piece.
 */
class SendQueueEntryGatherTest {

  private record HeapBuffer(ByteBuf buffer, int stag) implements LocalBuffer {
    @Override
    public long length() {
      return buffer.capacity();
    }
  }

  private static final SendQueue.InlineGather COPY_SGES = (ScatterGatherList sgl, byte[] into) -> {
    int at = 0;
    for (int i = 0; i < sgl.count(); i++) {
      sgl.buffer(i).buffer().getBytes((int) sgl.offset(i), into, at, (int) sgl.length(i));
      at += (int) sgl.length(i);
    }
  };

  private final HeapBuffer a = new HeapBuffer(Unpooled.wrappedBuffer(bytes(64, 0)), 0x100);
  private final HeapBuffer b = new HeapBuffer(Unpooled.wrappedBuffer(bytes(64, 100)), 0x200);

  private static SendQueue.Entry postAndTake(SendQueue sq, SendWorkRequest wr) {
    sq.post(wr);
    sq.drain();
    return sq.nextUnissued();
  }

  @Test
  void theEntryReadsItsScatterGatherListInPlaceWithTheViewsTheIssuerSet() {
    SendQueue sq = new SendQueue(4, 3, () -> { });
    SendQueue.Entry e = postAndTake(sq, new SendWorkRequest(3).opcode(WorkRequestOpcode.SEND)
        .addSge(a, 3, 10).addSge(b, 0, 0).addSge(b, 20, 7));
    Gather g = e;
    assertEquals(3, g.size());
    assertEquals(17, g.totalLength());
    assertEquals(3, g.index(0));
    assertEquals(10, g.length(0));
    assertEquals(0, g.length(1));
    assertEquals(20, g.index(2));
    assertEquals(7, g.length(2));

    ByteBuf viewA = a.buffer().duplicate();
    ByteBuf viewB = b.buffer().duplicate();
    e.sendView(0, viewA);
    e.sendView(1, viewB);
    e.sendView(2, viewB);
    assertSame(viewA, g.buffer(0));
    assertSame(viewB, g.buffer(2));
    assertArrayEquals(concat(bytes(10, 3), bytes(7, 120)), read(g));
    assertThrows(IndexOutOfBoundsException.class, () -> g.buffer(3));
    assertThrows(IndexOutOfBoundsException.class, () -> e.sendView(3, viewA));

    e.dropSendViews();
    assertNull(g.buffer(0), "an issued entry keeps no view of registered memory");
    assertNull(g.buffer(2));
  }

  @Test
  void anInlineEntryIsOnePieceOfItsInlineArea() {
    SendQueue sq = new SendQueue(4, 2, 32, COPY_SGES, () -> { });
    SendQueue.Entry e = postAndTake(sq, new SendWorkRequest(2).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.INLINE).addSge(a, 60, 4).addSge(b, 1, 5));
    assertEquals(1, e.size());
    assertEquals(9, e.totalLength());
    assertSame(e.inlineData(), e.buffer(0));
    assertEquals(0, e.index(0));
    assertEquals(9, e.length(0));
    assertArrayEquals(concat(bytes(4, 60), bytes(5, 101)), read(e));
  }

  @Test
  void anEmptyInlineEntryHasNoPieces() {
    SendQueue sq = new SendQueue(4, 1, 32, COPY_SGES, () -> { });
    SendQueue.Entry e = postAndTake(sq, new SendWorkRequest(1).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.INLINE));
    assertEquals(0, e.size());
    assertEquals(0, e.totalLength());
  }

  private static byte[] read(Gather g) {
    byte[] out = new byte[(int) g.totalLength()];
    int at = 0;
    for (int i = 0; i < g.size(); i++) {
      g.buffer(i).getBytes(g.index(i), out, at, g.length(i));
      at += g.length(i);
    }
    return out;
  }

  private static byte[] bytes(int n, int first) {
    byte[] out = new byte[n];
    for (int i = 0; i < n; i++) {
      out[i] = (byte) (first + i);
    }
    return out;
  }

  private static byte[] concat(byte[] x, byte[] y) {
    byte[] out = new byte[x.length + y.length];
    System.arraycopy(x, 0, out, 0, x.length);
    System.arraycopy(y, 0, out, x.length, y.length);
    return out;
  }
}
