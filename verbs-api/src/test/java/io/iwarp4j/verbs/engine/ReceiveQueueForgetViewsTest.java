package io.iwarp4j.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.iwarp4j.verbs.LocalBuffer;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * {@link ReceiveQueue#forgetViews()}: once a queue is empty, no entry, in the table or kept by
 * the ring for its next posts, still holds a view of a receive buffer (registered memory).
 */
class ReceiveQueueForgetViewsTest {
  /** A buffer of the application's, never touched here. */
  private record Buffer(ByteBuf buffer) implements LocalBuffer {
    @Override
    public long length() {
      return buffer.capacity();
    }

    @Override
    public int stag() {
      return 0x100;
    }
  }

  @Test
  void anEmptiedQueueKeepsNoReceiveView() {
    ReceiveQueue rq = new ReceiveQueue(4, 1, () -> { });
    Buffer b = new Buffer(Unpooled.buffer(64));
    try {
      // Twice the depth: entries go round the table and the ring.
      for (int i = 0; i < 8; i++) {
        rq.post(new RecvWorkRequest(1).wrId(i).addSge(b, 0, 64));
        rq.drain();
        rq.nextUnhanded().preparePieces(LocalBuffer::buffer);
        rq.markHanded();
        assertThrows(IllegalStateException.class, rq::forgetViews, "a receive is outstanding");
        rq.retireOldest();
      }
      int cached = rq.cachedViews();
      assertEquals(true, cached > 1, "views cached in table and ring entries: " + cached);
      rq.forgetViews();
      assertEquals(0, rq.cachedViews());
    } finally {
      b.buffer().release();
    }
  }
}
