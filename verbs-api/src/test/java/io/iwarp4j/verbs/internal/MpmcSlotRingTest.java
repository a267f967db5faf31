package io.iwarp4j.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30) // a hang guard only
class MpmcSlotRingTest {

  /** A mutable holder, the slot type of these tests. */
  static final class Cell {
    long value;
  }

  private static MpmcSlotRing<Cell> ring(int capacity) {
    return new MpmcSlotRing<>(capacity, Cell::new, (from, to) -> to.value = from.value);
  }

  private static Cell cell(long v) {
    Cell c = new Cell();
    c.value = v;
    return c;
  }

  @Test
  void capacityIsExactForEverySizeIncludingOne() {
    for (int capacity : new int[] {1, 2, 3, 5, 8}) {
      MpmcSlotRing<Cell> ring = ring(capacity);
      Cell out = new Cell();
      for (int lap = 0; lap < 4; lap++) {
        for (int i = 0; i < capacity; i++) {
          assertTrue(ring.offer(cell(lap * 100 + i)), "capacity " + capacity);
        }
        assertFalse(ring.offer(cell(-1)), "capacity " + capacity + " is full");
        assertEquals(capacity, ring.size());
        assertTrue(ring.mayHaveReady());
        for (int i = 0; i < capacity; i++) {
          assertTrue(ring.poll(out));
          assertEquals(lap * 100 + i, out.value);
        }
        assertFalse(ring.poll(out));
        assertFalse(ring.mayHaveReady());
      }
    }
  }

  @Test
  void pollingInPlaceHandsTheOldestValueOverAndFreesItsSlot() {
    MpmcSlotRing<Cell> ring = ring(2);
    ring.offer(cell(1));
    ring.offer(cell(2));
    long[] got = new long[1];
    assertTrue(ring.poll((Cell c, long[] into) -> into[0] = c.value, got));
    assertEquals(1, got[0]);
    assertTrue(ring.offer(cell(3)), "the slot is free again");
    assertTrue(ring.poll((Cell c, long[] into) -> into[0] = c.value, got));
    assertEquals(2, got[0]);
    // A consumer that throws still frees the slot (the value is gone).
    assertThrows(IllegalStateException.class, () -> ring.poll((Cell c, Object x) -> {
      throw new IllegalStateException("consumer");
    }, null));
    assertEquals(0, ring.size());
    assertFalse(ring.poll((Cell c, long[] into) -> into[0] = c.value, got));
  }

  @Test
  void forEachStoredVisitsTheValuesNotYetTakenOldestFirst() {
    MpmcSlotRing<Cell> ring = ring(3);
    for (long v = 1; v <= 3; v++) {
      ring.offer(cell(v));
    }
    ring.poll(new Cell());
    ring.offer(cell(4));
    java.util.List<Long> seen = new java.util.ArrayList<>();
    assertEquals(3, ring.forEachStored(new Cell(), c -> seen.add(c.value)));
    assertEquals(java.util.List.of(2L, 3L, 4L), seen);
  }

  @Test
  void capacityOutOfRange() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ring(0));
    assertEquals("ring capacity 0 is outside 1..16777216", e.getMessage());
    assertThrows(NullPointerException.class,
        () -> new MpmcSlotRing<Cell>(2, () -> null, (a, b) -> { }));
  }

  @Test
  void aValueBeingCopiedOutDoesNotMakeTheRingLookFull() throws Exception {
    // Two values fill the ring; a consumer takes the first and is held inside its copy-out.
    // Logically one place is free, so an offer must wait for the copy, not report overflow.
    CountDownLatch inCopy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Cell blockingDestination = new Cell();
    MpmcSlotRing<Cell> ring = new MpmcSlotRing<>(2, Cell::new, (from, to) -> {
      if (to == blockingDestination) {
        inCopy.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      to.value = from.value;
    });
    assertTrue(ring.offer(cell(1)));
    assertTrue(ring.offer(cell(2)));
    Thread consumer = new Thread(() -> ring.poll(blockingDestination));
    consumer.start();
    assertTrue(inCopy.await(20, TimeUnit.SECONDS));

    AtomicReference<Boolean> offered = new AtomicReference<>();
    Thread producer = new Thread(() -> offered.set(ring.offer(cell(3))));
    producer.start();
    Thread.sleep(50); // lets the producer reach the occupied slot; not a timing assertion
    release.countDown();
    producer.join();
    consumer.join();
    assertEquals(Boolean.TRUE, offered.get());
    assertEquals(1, blockingDestination.value);
    Cell out = new Cell();
    assertTrue(ring.poll(out));
    assertEquals(2, out.value);
    assertTrue(ring.poll(out));
    assertEquals(3, out.value);
  }
}
