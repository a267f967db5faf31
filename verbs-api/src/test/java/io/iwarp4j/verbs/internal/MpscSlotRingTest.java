package io.iwarp4j.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkQueueFullException;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class MpscSlotRingTest {

  /** The slot type of these tests: which producer posted what. */
  static final class Item {
    int producer;
    long seq;
  }

  /** Counts the wake-ups the ring asks for. */
  static final class WakeCounter implements Runnable {
    int count;

    @Override
    public void run() {
      count++;
    }
  }

  private final WakeCounter wakes = new WakeCounter();
  private final List<Long> seen = new ArrayList<>();
  private final Consumer<Item> record = item -> seen.add(item.seq);

  private MpscSlotRing<Item> ring(int capacity) {
    return new MpscSlotRing<>(capacity, Item::new, wakes);
  }

  private static long post(MpscSlotRing<Item> ring, long seq) {
    long ticket = ring.claim();
    if (ticket < 0) {
      return ticket;
    }
    ring.slot(ticket).seq = seq;
    ring.publish(ticket);
    return ticket;
  }

  @Test
  void forEachIdleItemVisitsMadeSlotsNoProducerHoldsAndMakesNone() {
    MpscSlotRing<Item> ring = ring(8);
    for (long i = 0; i < 3; i++) {
      post(ring, i);
    }
    ring.drain(record);
    post(ring, 3); // published, not drained: the producer's until the consumer takes it
    List<Long> visited = new ArrayList<>();
    ring.forEachIdleItem(item -> visited.add(item.seq));
    // Slots 0..2 were made and drained; slot 3 is claimed; 4..7 were never made.
    assertEquals(List.of(0L, 1L, 2L), visited.stream().sorted().toList());
    ring.drain(record);
    visited.clear();
    ring.forEachIdleItem(item -> visited.add(item.seq));
    assertEquals(List.of(0L, 1L, 2L, 3L), visited.stream().sorted().toList());
  }

  @Test
  void drainVisitsPublishedSlotsInOrder() {
    MpscSlotRing<Item> ring = ring(8);
    for (long i = 0; i < 5; i++) {
      post(ring, i);
    }
    assertEquals(5, ring.size());
    assertEquals(5, ring.drain(record));
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L), seen);
    assertEquals(0, ring.size());
    assertEquals(0, ring.drain(record));
  }

  @Test
  void capacityIsEnforcedExactlyAndFreedByDraining() {
    MpscSlotRing<Item> ring = ring(3); // not a power of two: 4 slots, 3 usable
    assertEquals(3, ring.capacity());
    for (long i = 0; i < 3; i++) {
      assertTrue(post(ring, i) >= 0);
    }
    assertEquals(-1, ring.claim(), "the fourth claim fails fast");
    assertEquals(-1, ring.claim());
    ring.drain(record, 1);
    assertTrue(post(ring, 3) >= 0, "one slot freed, one claim succeeds");
    assertEquals(-1, ring.claim());
    for (int lap = 0; lap < 100; lap++) {
      ring.drain(record);
      for (long i = 0; i < 3; i++) {
        assertTrue(post(ring, 4 + lap * 3 + i) >= 0);
      }
    }
    ring.drain(record);
    for (int i = 0; i < seen.size(); i++) {
      assertEquals(i, seen.get(i));
    }
  }

  @Test
  void theCallerTurnsAFullRingIntoAnExceptionNamingTheDepth() {
    // How the queue pair uses it: validate, offer, and on false throw with the depth.
    MpscSlotRing<SendWorkRequest> sendQueue = new MpscSlotRing<>(2,
        () -> new SendWorkRequest(1), () -> { });
    BiConsumer<SendWorkRequest, SendWorkRequest> copy = (wr, slot) -> slot.copyFrom(wr);
    SendWorkRequest wr = new SendWorkRequest(1).opcode(WorkRequestOpcode.SEND);
    assertTrue(sendQueue.offer(wr.wrId(1), copy));
    assertTrue(sendQueue.offer(wr.wrId(2), copy));
    WorkQueueFullException e = assertThrows(WorkQueueFullException.class, () -> {
      if (!sendQueue.offer(wr.wrId(3), copy)) {
        throw new WorkQueueFullException("send queue", sendQueue.capacity());
      }
    });
    assertEquals("send queue is full: it holds at most 2 work requests", e.getMessage());
    List<Long> ids = new ArrayList<>();
    sendQueue.drain(slot -> ids.add(slot.wrId()));
    assertEquals(List.of(1L, 2L), ids, "the slots hold copies taken at post time");
  }

  @Test
  void oneWakeUpPerBatch() {
    MpscSlotRing<Item> ring = ring(16);
    for (long i = 0; i < 10; i++) {
      post(ring, i);
    }
    assertEquals(1, wakes.count, "ten posts before the drain runs: one wake-up");
    assertEquals(10, ring.drain(record));
    assertEquals(1, wakes.count);
    post(ring, 10);
    post(ring, 11);
    assertEquals(2, wakes.count, "the next batch gets its own wake-up");
    ring.drain(record);
    assertEquals(2, wakes.count);
  }

  @Test
  void postsDuringADrainNeedNoWakeUp() {
    MpscSlotRing<Item> ring = ring(16);
    post(ring, 0);
    assertEquals(1, wakes.count);
    long[] next = {1};
    // The consumer posts while draining, as another thread could: the drain picks them up.
    ring.drain(item -> {
      seen.add(item.seq);
      if (next[0] < 5) {
        post(ring, next[0]++);
      }
    });
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L), seen);
    assertEquals(1, wakes.count, "the running drain was already scheduled");
  }

  @Test
  void drainStopsAtTheFirstUnpublishedSlot() {
    MpscSlotRing<Item> ring = ring(8);
    long first = ring.claim();
    long second = ring.claim();
    ring.slot(second).seq = 1;
    ring.publish(second);
    assertEquals(1, wakes.count);
    assertEquals(0, ring.drain(record), "ticket order: the second waits for the first");
    ring.slot(first).seq = 0;
    ring.publish(first);
    assertEquals(2, wakes.count, "the drain went idle, so publishing wakes it again");
    assertEquals(2, ring.drain(record));
    assertEquals(List.of(0L, 1L), seen);
  }

  @Test
  void aPostLandingAfterTheDrainsLastLookKeepsTheDrainGoing() {
    // The interleaving the re-check in goIdleUnlessMore exists for, played step by step.
    MpscSlotRing<Item> ring = ring(8);
    post(ring, 0);
    assertEquals(1, wakes.count);
    ring.beginDrain();
    assertEquals(1, ring.visitPublished(record, Integer.MAX_VALUE), "the drain found item 0");
    post(ring, 1); // published after the drain looked, while it is still SCHEDULED
    assertEquals(1, wakes.count, "the producer saw the drain running and scheduled nothing");
    assertTrue(ring.goIdleUnlessMore(), "going idle, the drain must notice item 1 and go on");
    assertEquals(1, ring.visitPublished(record, Integer.MAX_VALUE));
    assertFalse(ring.goIdleUnlessMore());
    assertEquals(List.of(0L, 1L), seen);
    post(ring, 2);
    assertEquals(2, wakes.count, "idle now: the next post wakes the consumer");
  }

  @Test
  void abandonedSlotsAreFreedWithoutBeingVisited() {
    MpscSlotRing<Item> ring = ring(2);
    long t = ring.claim();
    ring.abandon(t);
    post(ring, 7);
    assertEquals(1, ring.drain(record));
    assertEquals(List.of(7L), seen);
    assertEquals(0, ring.size());
    assertTrue(post(ring, 8) >= 0);
    assertTrue(post(ring, 9) >= 0, "the abandoned slot is reusable");
  }

  @Test
  void offerAbandonsTheSlotWhenTheWriterThrows() {
    MpscSlotRing<Item> ring = ring(4);
    Item source = new Item();
    assertThrows(IllegalStateException.class, () -> ring.offer(source, (s, slot) -> {
      throw new IllegalStateException("copy failed");
    }));
    source.seq = 5;
    assertTrue(ring.offer(source, (s, slot) -> slot.seq = s.seq));
    assertEquals(1, ring.drain(record));
    assertEquals(List.of(5L), seen);
  }

  @Test
  void drainLimitReschedulesTheRest() {
    MpscSlotRing<Item> ring = ring(16);
    for (long i = 0; i < 10; i++) {
      post(ring, i);
    }
    assertEquals(1, wakes.count);
    assertEquals(4, ring.drain(record, 4));
    assertEquals(2, wakes.count, "items remain: the drain rescheduled itself");
    post(ring, 10);
    assertEquals(2, wakes.count, "still scheduled: no wake-up from the producer");
    assertEquals(4, ring.drain(record, 4));
    assertEquals(3, ring.drain(record, 4));
    assertEquals(3, wakes.count, "two partial batches, two reschedules");
    assertEquals(11, seen.size());
    assertThrows(IllegalArgumentException.class, () -> ring.drain(record, 0));
  }

  @Test
  void aThrowingConsumerFreesItsSlotAndReschedules() {
    MpscSlotRing<Item> ring = ring(4);
    for (long i = 0; i < 3; i++) {
      post(ring, i);
    }
    assertEquals(1, wakes.count);
    assertThrows(IllegalStateException.class, () -> ring.drain(item -> {
      if (item.seq == 1) {
        throw new IllegalStateException("consumer bug");
      }
      seen.add(item.seq);
    }));
    assertEquals(2, wakes.count, "a drain is rescheduled for what is left");
    assertEquals(1, ring.drain(record));
    assertEquals(List.of(0L, 2L), seen, "item 1 was handed over once and not redelivered");
  }

  @Test
  void ticketMisuseIsRejected() {
    MpscSlotRing<Item> ring = ring(2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ring.publish(-1));
    assertEquals("ticket -1 was never claimed (claim() returns -1 when the ring is full)",
        e.getMessage());
    long t = ring.claim();
    ring.publish(t);
    IllegalStateException twice = assertThrows(IllegalStateException.class,
        () -> ring.publish(t));
    assertEquals("ticket 0 was already published", twice.getMessage());
    assertThrows(IllegalStateException.class, () -> ring.abandon(t));
  }

  @Test
  void constructorArgumentsAreChecked() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ring(0));
    assertEquals("ring capacity 0 is outside 1..16777216", e.getMessage());
    assertThrows(NullPointerException.class,
        () -> new MpscSlotRing<Item>(2, () -> null, () -> { }));
    assertThrows(NullPointerException.class,
        () -> new MpscSlotRing<Item>(2, Item::new, null));
  }

  @Test
  void postingAndDrainingAllocateNothingInSteadyState() {
    AllocationMeter meter = AllocationMeter.create();
    MpscSlotRing<Item> ring = ring(64);
    Item source = new Item();
    BiConsumer<Item, Item> writer = (s, slot) -> {
      slot.producer = s.producer;
      slot.seq = s.seq;
    };
    long[] sum = {0};
    Consumer<Item> consumer = item -> sum[0] += item.seq;
    int rounds = 20_000;
    Runnable loop = () -> {
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 16; i++) {
          long ticket = ring.claim();
          ring.slot(ticket).seq = i;
          ring.publish(ticket);
        }
        for (int i = 0; i < 16; i++) {
          source.seq = i;
          ring.offer(source, writer);
        }
        ring.drain(consumer, 20);
        ring.drain(consumer);
      }
    };
    loop.run(); // warm-up
    loop.run();
    long bytes = meter.measure(loop);
    long operations = rounds * 64L;
    assertTrue(bytes < operations / 10,
        "allocated " + bytes + " bytes over " + operations + " posts and visits");
    assertEquals(3L * rounds * 2 * (15 * 16 / 2), sum[0]);
    assertEquals(0, ring.size());
  }

  @Test
  void drainTakingHandsTheProducersObjectOverAndKeepsTheReplacement() {
    MpscSlotRing<Item> ring = ring(2);
    post(ring, 7);
    Item spare = new Item();
    List<Item> taken = new ArrayList<>();
    assertEquals(1, ring.drainTaking(item -> {
      taken.add(item);
      return spare;
    }));
    Item kept = taken.get(0);
    assertEquals(7, kept.seq, "the object the producer wrote, not a copy");
    // Two more posts reuse both slots; the slot drained above now holds the spare.
    post(ring, 8);
    post(ring, 9);
    assertEquals(7, kept.seq, "a taken object is never written by a later producer");
    List<Item> next = new ArrayList<>();
    ring.drainTaking(item -> {
      next.add(item);
      return null; // the slot makes a fresh object when next used
    });
    assertEquals(2, next.size());
    assertTrue(next.contains(spare), "the replacement was the next producer's object");
    assertFalse(next.contains(kept));
    post(ring, 10);
    ring.drainTaking(item -> {
      assertFalse(item == spare || item == kept, "null: a fresh object from the slot factory");
      assertEquals(10, item.seq);
      return item;
    });
  }

  @Test
  void drainingAnIdleEmptyRingChangesNothing() {
    MpscSlotRing<Item> ring = ring(4);
    for (int i = 0; i < 3; i++) {
      assertEquals(0, ring.drain(record), "an idle, empty ring");
    }
    assertEquals(0, wakes.count);
    post(ring, 1);
    assertEquals(1, wakes.count, "still idle: the first publish wakes the consumer");
    post(ring, 2);
    assertEquals(1, wakes.count, "a drain is scheduled: no second wake-up");
    assertEquals(2, ring.drain(record));
    assertEquals(List.of(1L, 2L), seen);
  }
}
