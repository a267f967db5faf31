package io.iwarp4j.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.WorkQueueFullException;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkQueue#postOnLoop}: work requests posted on the loop, past the ring, get the next
 * sequence numbers, are handed over and retired in order, count against the depth, and reuse
 * the table's retired entries (no new entry once each table slot has one).
 */
class ReceiveQueuePostOnLoopTest {

  @Test
  void postsInOrderWithinTheDepthAndReusesRetiredEntries() {
    ReceiveQueue rq = new ReceiveQueue(2, 1, () -> {
      throw new AssertionError("nothing wakes for a post on the loop");
    });
    ReceiveQueue.Entry[] firstLap = new ReceiveQueue.Entry[2];
    for (int i = 0; i < 6; i++) {
      rq.postOnLoop(new RecvWorkRequest(1).wrId(100 + i));
      assertEquals(1, rq.outstanding());
      assertTrue(rq.hasUnhanded());
      assertEquals(i, rq.nextUnhandedSequence());
      ReceiveQueue.Entry e = rq.nextUnhanded();
      assertEquals(100 + i, e.wr.wrId());
      if (i < 2) {
        firstLap[i] = e;
      } else {
        assertEquals(firstLap[i % 2], e, "the retired entry of that table slot is reused");
      }
      rq.markHanded();
      assertEquals(e, rq.deliveredTo(i));
      rq.retireOldest();
      assertEquals(0, rq.outstanding());
    }
    rq.postOnLoop(new RecvWorkRequest(1).wrId(1));
    rq.postOnLoop(new RecvWorkRequest(1).wrId(2));
    WorkQueueFullException full = assertThrows(WorkQueueFullException.class,
        () -> rq.postOnLoop(new RecvWorkRequest(1).wrId(3)));
    assertEquals(2, full.depth());
    assertEquals(2, rq.outstanding());
    assertEquals(1, rq.oldest().wr.wrId());
  }
}
