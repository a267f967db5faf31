package io.iwarp4j.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Four producer threads and one consumer thread standing in for an event loop: the wake-up
 * hook releases a permit, the consumer takes one permit per drain, like a task queued with
 * {@code eventLoop.execute}.
 */
@Timeout(60) // a hang guard only: nothing here measures time
class MpscSlotRingConcurrencyTest {

  static final class Item {
    int producer;
    long seq;
  }

  @Test
  void fourProducersOneConsumerEachItemOnceInPerProducerOrder() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int producers = 4;
    int perProducer = 50_000;
    int total = producers * perProducer;

    Semaphore drainTasks = new Semaphore(0);
    AtomicInteger pendingWakeUps = new AtomicInteger();
    AtomicInteger wakeUps = new AtomicInteger();
    AtomicReference<String> failure = new AtomicReference<>();
    MpscSlotRing<Item> ring = new MpscSlotRing<>(64, Item::new, () -> {
      wakeUps.incrementAndGet();
      if (pendingWakeUps.getAndIncrement() != 0) {
        failure.compareAndSet(null, "a second wake-up was scheduled before the first drain ran");
      }
      drainTasks.release();
    });

    long[] next = new long[producers];
    int[] consumed = {0};
    int[] drains = {0};
    Consumer<Item> check = item -> {
      if (item.seq != next[item.producer]) {
        failure.compareAndSet(null, "producer " + item.producer + ": expected " 
            + next[item.producer] + ", got " + item.seq);
      }
      next[item.producer] = item.seq + 1;
      consumed[0]++;
    };
    Thread consumer = new Thread(() -> {
      try {
        while (consumed[0] < total && failure.get() == null) {
          if (!drainTasks.tryAcquire(20, TimeUnit.SECONDS)) {
            failure.compareAndSet(null, "no wake-up for 20 s with " + (total - consumed[0])
                + " items posted and not drained: a lost wake-up");
            return;
          }
          pendingWakeUps.decrementAndGet();
          drains[0]++;
          ring.drain(check);
        }
      } catch (InterruptedException e) {
        failure.compareAndSet(null, "consumer interrupted");
      }
    }, "consumer");

    Thread[] threads = new Thread[producers];
    AtomicInteger fullClaims = new AtomicInteger();
    for (int p = 0; p < producers; p++) {
      int id = p;
      long producerSeed = random.nextLong();
      threads[p] = new Thread(() -> {
        Random r = new Random(producerSeed);
        for (long i = 0; i < perProducer && failure.get() == null; i++) {
          long ticket;
          while ((ticket = ring.claim()) < 0) {
            fullClaims.incrementAndGet();
            Thread.yield(); // the queue pair would throw WorkQueueFullException here
          }
          Item slot = ring.slot(ticket);
          slot.producer = id;
          slot.seq = i;
          ring.publish(ticket);
          if (r.nextInt(128) == 0) {
            Thread.yield();
          }
        }
      }, "producer-" + p);
    }
    consumer.setDaemon(true);
    consumer.start();
    for (Thread t : threads) {
      t.setDaemon(true);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    consumer.join();

    String context = "seed " + seed + ", " + wakeUps.get() + " wake-ups, " + drains[0]
        + " drains, " + fullClaims.get() + " full claims";
    assertNull(failure.get(), context);
    assertEquals(total, consumed[0], context);
    for (int p = 0; p < producers; p++) {
      assertEquals(perProducer, next[p], context);
    }
    assertTrue(wakeUps.get() <= drains[0] + 1, context);
    assertTrue(wakeUps.get() <= total, context);
    assertEquals(0, ring.size(), context);
    assertFalse(ring.claim() < 0, context);
  }

  @Test
  void everyPostAfterTheDrainWentIdleWakesItAgain() throws Exception {
    // One item at a time: each post finds the drain idle or finishing, so every item goes
    // through the idle / wake-up hand-over. (The narrow interleaving where a post lands between
    // the drain's last look and its IDLE write is pinned down step by step in
    // MpscSlotRingTest, since threads hit it too rarely to rely on.)
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int items = 20_000;
    Semaphore drainTasks = new Semaphore(0);
    AtomicInteger consumed = new AtomicInteger();
    AtomicReference<String> failure = new AtomicReference<>();
    MpscSlotRing<Item> ring = new MpscSlotRing<>(4, Item::new, drainTasks::release);
    Consumer<Item> count = item -> consumed.incrementAndGet();
    Thread consumer = new Thread(() -> {
      try {
        while (consumed.get() < items && failure.get() == null) {
          if (drainTasks.tryAcquire(5, TimeUnit.SECONDS)) {
            ring.drain(count);
          } else if (consumed.get() < items) {
            failure.compareAndSet(null, "item " + consumed.get() + " stranded: no wake-up came");
          }
        }
      } catch (InterruptedException e) {
        failure.compareAndSet(null, "consumer interrupted");
      }
    }, "consumer");
    consumer.setDaemon(true);
    consumer.start();
    for (int i = 0; i < items && failure.get() == null; i++) {
      long ticket = ring.claim();
      ring.slot(ticket).seq = i;
      ring.publish(ticket);
      while (consumed.get() <= i && failure.get() == null) {
        Thread.onSpinWait();
      }
      for (int spin = random.nextInt(64); spin > 0; spin--) {
        Thread.onSpinWait();
      }
    }
    consumer.join();
    assertNull(failure.get(), "seed " + seed);
    assertEquals(items, consumed.get(), "seed " + seed);
  }
}
