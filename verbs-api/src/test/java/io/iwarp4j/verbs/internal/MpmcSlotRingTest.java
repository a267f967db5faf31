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
    // Slots are made on first use, so a factory that returns null fails the first offer.
    MpmcSlotRing<Cell> broken = new MpmcSlotRing<Cell>(2, () -> null, (a, b) -> { });
    assertThrows(NullPointerException.class, () -> broken.offer(cell(1)));
  }

  @Test
  void slotsAreMadeChunkByChunkOnFirstUseAndKept() {
    // 200 = three whole chunks of 64 and a last chunk of 8.
    MpmcSlotRing<Cell> ring = ring(200);
    Cell out = new Cell();
    assertEquals(0, ring.slotsMade(), "an unused ring holds no slot objects");
    assertFalse(ring.mayHaveReady());
    assertFalse(ring.poll(out));
    assertEquals(0, ring.poll(new Cell[] {out}, 1));
    assertEquals(0, ring.forEachStored(new Cell(), c -> { }));
    assertTrue(ring.offer(cell(0)));
    assertEquals(MpmcSlotRing.CHUNK, ring.slotsMade());
    assertTrue(ring.poll(out));
    assertEquals(MpmcSlotRing.CHUNK, ring.slotsMade(), "taking a value makes no chunk");
    // Two laps, values across every chunk boundary and the wrap, in order.
    for (int v = 1; v <= 400; v++) {
      assertTrue(ring.offer(cell(v)), "offer " + v);
      assertTrue(ring.poll(out), "poll " + v);
      assertEquals(v, out.value);
    }
    assertEquals(200, ring.slotsMade(), "every chunk made once, the last one partial");
    for (int v = 0; v < 200; v++) {
      assertTrue(ring.offer(cell(v)));
    }
    assertFalse(ring.offer(cell(-1)), "full at exactly the capacity");
    assertEquals(200, ring.forEachStored(new Cell(), c -> { }));
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
  @Test
  void batchPollTakesTheReadyRunInOrderUpToMaxAcrossTheWrap() {
    MpmcSlotRing<Cell> ring = ring(5); // not a power of two: the index wraps by hand
    Cell[] out = {new Cell(), new Cell(), new Cell(), new Cell(), new Cell(), new Cell()};
    long next = 0;
    long expected = 0;
    for (int lap = 0; lap < 7; lap++) {
      int offered = 1 + lap % 5;
      for (int i = 0; i < offered; i++) {
        assertTrue(lap % 2 == 0 ? ring.offer(cell(next++)) : ring.offerReleasing(cell(next++)));
      }
      int max = 1 + lap % 3;
      int taken = 0;
      int n;
      while ((n = ring.poll(out, max)) > 0) {
        assertTrue(n <= max, "took " + n + " with max " + max);
        for (int k = 0; k < n; k++) {
          assertEquals(expected++, out[k].value);
        }
        taken += n;
      }
      assertEquals(offered, taken);
      assertEquals(0, ring.size());
      assertFalse(ring.mayHaveReady());
    }
    assertEquals(0, ring.poll(out, out.length));
  }

  @Test
  void batchPollStopsAtAValueNotYetPublished() throws Exception {
    // The producer of the second value is held inside its copy-in: a batch poll takes the first
    // value only and leaves the claimed-but-unpublished one for later.
    CountDownLatch inCopy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    MpmcSlotRing<Cell> ring = new MpmcSlotRing<>(4, Cell::new, (from, to) -> {
      if (from.value == 2) {
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
    Thread producer = new Thread(() -> ring.offer(cell(2)));
    producer.start();
    assertTrue(inCopy.await(20, TimeUnit.SECONDS));
    Cell[] out = {new Cell(), new Cell(), new Cell()};
    assertEquals(1, ring.poll(out, 3));
    assertEquals(1, out[0].value);
    assertEquals(0, ring.poll(out, 3));
    release.countDown();
    producer.join();
    assertEquals(1, ring.poll(out, 3));
    assertEquals(2, out[0].value);
  }

  @Test
  void batchConsumersAndProducersTakeEveryValueExactlyOnce() throws Exception {
    // Two producers and two consumers, one polling in batches and one by one, on a small ring
    // that wraps thousands of times: every value is taken once, each producer's in order.
    everyValueTakenExactlyOnce(7);
  }

  @Test
  void producersRacingToMakeChunksLoseNoValue() throws Exception {
    // Five chunks, the last partial: the producers race to make each chunk on the first lap.
    everyValueTakenExactlyOnce(300);
  }

  private static void everyValueTakenExactlyOnce(int capacity) throws Exception {
    int perProducer = 50_000;
    MpmcSlotRing<Cell> ring = ring(capacity);
    java.util.concurrent.atomic.AtomicIntegerArray seen =
        new java.util.concurrent.atomic.AtomicIntegerArray(2 * perProducer);
    java.util.concurrent.atomic.AtomicLong taken = new java.util.concurrent.atomic.AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread[] threads = new Thread[4];
    for (int p = 0; p < 2; p++) {
      int id = p;
      threads[p] = new Thread(() -> {
        for (int i = 0; i < perProducer && failure.get() == null; i++) {
          Cell c = cell(id * (long) perProducer + i);
          boolean releasing = (i & 1) == 0;
          while (!(releasing ? ring.offerReleasing(c) : ring.offer(c))) {
            Thread.yield(); // full: let a consumer run (the machine may have fewer cores)
          }
        }
      });
    }
    for (int q = 0; q < 2; q++) {
      boolean batch = q == 0;
      threads[2 + q] = new Thread(() -> {
        Cell[] out = {new Cell(), new Cell(), new Cell(), new Cell(), new Cell()};
        long[] last = {-1, -1};
        try {
          while (taken.get() < 2L * perProducer && failure.get() == null) {
            int n = batch ? ring.poll(out, out.length) : ring.poll(out[0]) ? 1 : 0;
            if (n == 0) {
              Thread.yield(); // empty: let a producer run
            }
            for (int k = 0; k < n; k++) {
              int v = (int) out[k].value;
              if (seen.getAndIncrement(v) != 0) {
                throw new AssertionError("value " + v + " taken twice");
              }
              int producer = v / perProducer;
              if (v <= last[producer]) {
                throw new AssertionError("producer " + producer + "'s " + v + " after "
                    + last[producer]);
              }
              last[producer] = v;
            }
            taken.addAndGet(n);
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      });
    }
    for (Thread t : threads) {
      t.setDaemon(true);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    for (int v = 0; v < 2 * perProducer; v++) {
      assertEquals(1, seen.get(v), "value " + v);
    }
  }

  @Test
  void aValueWrittenInPlaceIsInvisibleUntilPublishedAndHoldsUpLaterValues() {
    MpmcSlotRing<Cell> ring = ring(4);
    long first = ring.claim();
    assertEquals(0, first);
    ring.claimed(first).value = 10;
    assertTrue(ring.offer(cell(11)), "a value offered after the claim");
    Cell out = new Cell();
    assertFalse(ring.poll(out), "the claimed slot is not published: consumers stop at it");
    Cell[] batch = {new Cell(), new Cell()};
    assertEquals(0, ring.poll(batch, 2));
    ring.publishReleasing(first);
    assertEquals(2, ring.poll(batch, 2));
    assertEquals(10, batch[0].value, "the value written in place, in claim order");
    assertEquals(11, batch[1].value);
    assertFalse(ring.poll(out));
  }

  @Test
  void claimsCountAgainstTheCapacityAndWrapLikeOffers() {
    MpmcSlotRing<Cell> ring = ring(3);
    Cell out = new Cell();
    for (int lap = 0; lap < 5; lap++) {
      for (int i = 0; i < 3; i++) {
        long pos = ring.claim();
        assertEquals(lap * 3L + i, pos);
        ring.claimed(pos).value = pos;
        ring.publishReleasing(pos);
      }
      assertEquals(-1, ring.claim(), "full: lap " + lap);
      assertFalse(ring.offer(cell(-1)), "full for offers too");
      for (int i = 0; i < 3; i++) {
        assertTrue(ring.poll(out));
        assertEquals(lap * 3L + i, out.value);
      }
    }
  }
}
