package io.iwarp4j.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.testing.RecordingUntaggedListener;
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
  void theArraysGrowFromEightSlotsToTheCapacityKeepingOrderAndTheMessageInProgress() {
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(40, 2);
    long next = 0;
    for (int i = 0; i < 5; i++) {
      q.post(target, 0, 0, next++);
    }
    for (int i = 0; i < 3; i++) { // head moves to slot 3, so the posts below wrap
      q.place(null, 0, 0);
      assertEquals(i, q.complete());
    }
    for (int i = 0; i < 6; i++) {
      q.post(target, 0, 0, next++);
    }
    assertEquals(8, q.postedCount());
    // The head buffer gets a message in progress: 2 octets into its first piece.
    ByteBuf seg = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4});
    UntaggedReceiveQueue big = new UntaggedReceiveQueue(40, 2);
    try {
      big.post(new GatherList().add(target, 10, 2).add(target, 30, 2), 100);
      for (int i = 0; i < 7; i++) {
        big.post(target, 0, 0, 101 + i);
      }
      big.place(UlpduPieces.ulpdu(seg, 1), 0, 2);
      for (int i = 0; i < 32; i++) { // past 8, 16 and 32 slots
        big.post(target, 0, 0, 108 + i);
      }
      assertEquals(40, big.postedCount());
      assertThrows(IllegalStateException.class, () -> big.post(target, 0, 0, -1));
      assertNull(big.validate(1, 2, 2));
      big.place(UlpduPieces.ulpdu(seg, 1), 2, 2);
      assertEquals(100, big.complete());
      for (int i = 1; i < 40; i++) {
        big.place(null, 0, 0);
        assertEquals(100 + i, big.complete());
      }
    } finally {
      seg.release();
    }
    assertEquals(1, target.getByte(10));
    assertEquals(2, target.getByte(11));
    assertEquals(3, target.getByte(30));
    assertEquals(4, target.getByte(31));
    for (int i = 0; i < 20; i++) { // the wrapped queue grows too and keeps posting order
      q.post(target, 0, 0, next++);
    }
    for (long id = 3; id < next; id++) {
      q.place(null, 0, 0);
      assertEquals(id, q.complete());
    }
    assertEquals(40, q.capacity());
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

  @Test
  void aScatterListIsFilledPieceByPieceAcrossSegmentsAndCounted() {
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(2, 3);
    GatherList sgl = new GatherList().add(target, 40, 3).add(target, 10, 0).add(target, 20, 5);
    q.post(sgl, 7);
    sgl.clear(); // the queue copied the entries
    ByteBuf seg = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    try {
      assertNull(q.validate(1, 0, 2));
      q.place(UlpduPieces.ulpdu(seg, 1), 0, 2);          // 1 2 -> piece 0
      assertNull(q.validate(1, 2, 6));
      q.place(UlpduPieces.ulpdu(seg, 3), 2, 6);          // 3 | 4..8 -> rest of piece 0, piece 2
      assertEquals(DdpError.MESSAGE_TOO_LONG, q.validate(1, 8, 1));
      assertEquals(8, q.receivedLength());
      assertEquals(7, q.complete());
    } finally {
      seg.release();
    }
    byte[] b = new byte[64];
    target.getBytes(0, b);
    byte[] expected = new byte[64];
    expected[40] = 1;
    expected[41] = 2;
    expected[42] = 3;
    for (int i = 0; i < 5; i++) {
      expected[20 + i] = (byte) (4 + i);
    }
    org.junit.jupiter.api.Assertions.assertArrayEquals(expected, b);
    assertEquals(8, q.placedOctets());
  }

  @Test
  void aPieceWhoseRegionWasClosedIsNeverWritten() {
    io.iwarp4j.ddp.mem.StagTable table = new io.iwarp4j.ddp.mem.StagTable(4);
    io.iwarp4j.ddp.mem.ProtectionDomain pd = table.newProtectionDomain();
    io.iwarp4j.ddp.mem.MemoryRegion first = pd.allocate(64, io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE);
    io.iwarp4j.ddp.mem.MemoryRegion gone = pd.allocate(64, io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE);
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(2, 2);
    q.post(new GatherList().add(first.receiveView(), 0, 2).add(gone.receiveView(), 0, 4), 9);
    ByteBuf seg = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6});
    try {
      assertTrue(q.place(UlpduPieces.ulpdu(seg, 1), 0, 2), "the first region is registered");
      gone.close();
      assertNull(q.validate(1, 2, 4));
      assertFalse(q.place(UlpduPieces.ulpdu(seg, 1), 2, 4), "the second one was deregistered");
      assertEquals(9, q.headId());
      assertEquals(1, first.buffer().getByte(0));
      assertEquals(2, first.buffer().getByte(1));
    } finally {
      seg.release();
      first.close();
      pd.close();
    }
  }

  @Test
  void scatterMisuseIsRejectedAndPostsNothing() {
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(1, 2);
    GatherList three = new GatherList().add(target, 0, 1).add(target, 1, 1).add(target, 2, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> q.post(three, 1));
    assertTrue(e.getMessage().contains("at most 2"), e.getMessage());
    assertThrows(NullPointerException.class, () -> q.post((GatherList) null, 1));
    assertThrows(IllegalArgumentException.class, () -> new UntaggedReceiveQueue(1, 0));
    assertEquals(0, q.postedCount());
    q.post(new GatherList(), 1); // zero-length buffer
    assertThrows(IllegalStateException.class, () -> q.post(new GatherList(), 2));
    assertEquals(DdpError.MESSAGE_TOO_LONG, q.validate(1, 0, 1));
    assertNull(q.validate(1, 0, 0));
  }
}
