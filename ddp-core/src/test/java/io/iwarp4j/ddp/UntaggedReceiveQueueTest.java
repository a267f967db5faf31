package io.iwarp4j.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The bounded ring of posted buffers and its receive progress. */
class UntaggedReceiveQueueTest {
  private ByteBuf target;

  @BeforeEach
  void setUp() {
    target = Unpooled.buffer(64).writeZero(64);
  }

  @AfterEach
  void tearDown() {
    target.release();
  }

  @Test
  void theRingIsBoundedAndRejectsAPostWhenFull() {
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(2);
    q.post(target, 0, 8, 1);
    q.post(target, 8, 8, 2);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> q.post(target, 16, 8, 3));
    assertTrue(e.getMessage().contains("full"), e.getMessage());
    assertEquals(2, q.postedCount());
  }

  @Test
  void buffersAreConsumedInPostingOrderAcrossTheRingsWrap() {
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(3);
    List<Long> consumed = new ArrayList<>();
    long next = 0;
    for (int round = 0; round < 10; round++) {
      while (q.postedCount() < q.capacity()) {
        q.post(target, 0, 8, next++);
      }
      int msn = q.expectedMsn();
      assertNull(q.validate(msn, 0, 0));
      q.place(null, 0, 0); // zero-length: nothing is read from the segment
      consumed.add(q.complete());
      assertEquals(msn + 1, q.expectedMsn());
    }
    for (int i = 0; i < consumed.size(); i++) {
      assertEquals(i, consumed.get(i));
    }
  }

  @Test
  void drainHandsBackEveryPostedIdOldestFirstAndForgetsTheMessageInProgress() {
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(4);
    q.post(target, 0, 8, 10);
    q.post(target, 8, 8, 11);
    q.place(null, 0, 0);
    assertTrue(q.messageInProgress());
    List<Long> ids = new ArrayList<>();
    assertEquals(2, q.drain(ids::add));
    assertEquals(List.of(10L, 11L), ids);
    assertEquals(0, q.postedCount());
    assertFalse(q.messageInProgress());
  }

  @Test
  void misuseIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> new UntaggedReceiveQueue(0));
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(1);
    assertThrows(IndexOutOfBoundsException.class, () -> q.post(target, 60, 8, 1));
    assertThrows(IndexOutOfBoundsException.class, () -> q.post(target, -1, 8, 1));
    assertThrows(IndexOutOfBoundsException.class, () -> q.post(target, 0, -1, 1));
    assertThrows(NullPointerException.class, () -> q.post(null, 0, 0, 1));
    assertEquals(0, q.postedCount());
  }

  @Test
  void dispatcherQueuesAreEnabledOnceWithinZeroToThree() {
    UntaggedDispatcher d = new UntaggedDispatcher(new RecordingUntaggedListener());
    d.enableQueue(3, 1);
    assertThrows(IllegalStateException.class, () -> d.enableQueue(3, 1));
    assertThrows(IllegalArgumentException.class, () -> d.enableQueue(4, 1));
    assertEquals(null, d.queue(0));
  }
}
