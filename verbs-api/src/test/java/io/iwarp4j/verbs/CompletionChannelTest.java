package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.wire.RdmapOpcode;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CompletionChannel}: one-shot events queued by armed completion queues, taken by
 * application threads, acknowledged, and every misuse refused with a message. Counted and
 * latched, never timed (timeouts below only bound waits that must end).
 */
@Timeout(60) // a hang guard only
class CompletionChannelTest {
  private static final long T = 10;

  private final WorkCompletion scratch = new WorkCompletion();

  private WorkCompletion success(long wrId) {
    return scratch.reset().wrId(wrId).status(WcStatus.SUCCESS).opcode(WcOpcode.RECV).qpNumber(1);
  }

  private static WorkCompletion[] slots(int n) {
    return QpHarness.newCompletions(n);
  }

  /** Starts a daemon thread that runs {@code body} and records what it returned or threw. */
  private static Thread start(AtomicReference<Object> result, Body body) {
    Thread t = new Thread(() -> {
      try {
        result.set(body.call());
      } catch (Throwable e) {
        result.set(e);
      }
    }, "channel-test-taker");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private interface Body {
    Object call() throws Exception;
  }

  /** Waits until {@code t} parks (or ends): the tests pass either way, the park makes them bite. */
  private static void awaitParked(Thread t) throws InterruptedException {
    while (t.isAlive() && t.getState() != Thread.State.TIMED_WAITING
        && t.getState() != Thread.State.WAITING) {
      Thread.sleep(1);
    }
  }

  @Test
  void anArmedQueueQueuesOneEventAndDisarms() throws Exception {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    assertSame(channel, cq.channel());
    cq.requestNotify(false);
    assertNull(channel.pollEvent(), "no completion yet");
    cq.offer(success(1));
    cq.offer(success(2));
    assertSame(cq, channel.pollEvent());
    assertNull(channel.pollEvent(), "one event, then disarmed");
    cq.offer(success(3));
    assertNull(channel.pollEvent(), "disarmed: a later completion fires nothing");
    channel.ackEvents(cq, 1);
    assertEquals(3, cq.poll(slots(8)));
    cq.requestNotify(false);
    cq.offer(success(4));
    assertSame(cq, channel.awaitEvent(T, TimeUnit.SECONDS), "re-armed, fires again");
    channel.ackEvents(cq, 1);
    cq.close();
    channel.close();
  }

  @Test
  void completionsQueuedBeforeTheArmDoNotFireIt() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    cq.offer(success(1));
    cq.requestNotify(false);
    assertNull(channel.pollEvent(), "the completion was there before the arm");
    assertEquals(1, cq.poll(slots(8)), "which is why the idiom drains after arming");
    cq.offer(success(2));
    assertSame(cq, channel.pollEvent());
    channel.ackEvents(cq, 1);
  }

  @Test
  void aCompletionBetweenArmAndWaitIsDelivered() throws Exception {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    WorkCompletion[] out = slots(8);
    // The idiom: arm, drain, wait. The completion lands after the drain, before the wait.
    cq.requestNotify(false);
    assertEquals(0, cq.poll(out));
    Thread producer = new Thread(() -> cq.offer(new WorkCompletion().wrId(9)
        .status(WcStatus.SUCCESS).opcode(WcOpcode.RECV)));
    producer.start();
    producer.join();
    assertSame(cq, channel.awaitEvent(T, TimeUnit.SECONDS), "not lost");
    channel.ackEvents(cq, 1);
    cq.requestNotify(false);
    assertEquals(1, cq.poll(out));
    assertEquals(9, out[0].wrId());
    assertNull(channel.pollEvent(), "not duplicated");
  }

  @Test
  void aParkedTakerIsWokenByAnEventFromAnotherThread() throws Exception {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    cq.requestNotify(false);
    AtomicReference<Object> result = new AtomicReference<>();
    Thread taker = start(result, () -> channel.awaitEvent(T, TimeUnit.SECONDS));
    awaitParked(taker);
    Thread producer = new Thread(() -> cq.offer(new WorkCompletion().wrId(1)
        .status(WcStatus.SUCCESS).opcode(WcOpcode.RECV)));
    producer.start();
    producer.join();
    taker.join();
    assertSame(cq, result.get());
    channel.ackEvents(cq, 1);
  }

  @Test
  void aQueueHasAtMostOneEventPending() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    for (int i = 0; i < 3; i++) {
      cq.requestNotify(false); // re-armed before its event was taken
      cq.offer(success(i));
    }
    assertSame(cq, channel.pollEvent());
    assertNull(channel.pollEvent(), "the pending event stood for all three");
    channel.ackEvents(cq, 1);
    assertThrows(IllegalArgumentException.class, () -> channel.ackEvents(cq, 1));
  }

  @Test
  void queuesSharingAChannelReturnInTheOrderTheyFired() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue a = new CompletionQueue(4, channel);
    CompletionQueue b = new CompletionQueue(4, channel);
    CompletionQueue c = new CompletionQueue(4, channel);
    for (CompletionQueue cq : new CompletionQueue[] {a, b, c}) {
      cq.requestNotify(false);
    }
    b.offer(success(1));
    c.offer(success(2));
    assertSame(b, channel.pollEvent());
    a.offer(success(3)); // while c's event is held by the taker side
    assertSame(c, channel.pollEvent());
    assertSame(a, channel.pollEvent());
    assertNull(channel.pollEvent());
    // Fired again after being taken: queued again.
    b.requestNotify(false);
    b.offer(success(4));
    assertSame(b, channel.pollEvent());
    channel.ackEvents(a, 1);
    channel.ackEvents(b, 2);
    channel.ackEvents(c, 1);
  }

  @Test
  void solicitedOnlyFiresOnASolicitedOrUnsuccessfulCompletion() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    cq.requestNotify(true);
    cq.offer(success(1));
    assertNull(channel.pollEvent(), "unsolicited");
    cq.offer(success(2).solicited(true));
    assertSame(cq, channel.pollEvent());
    cq.requestNotify(true);
    cq.offer(scratch.reset().wrId(3).status(WcStatus.WR_FLUSH_ERR).opcode(WcOpcode.RECV));
    assertSame(cq, channel.pollEvent(), "an error completion fires it too");
    channel.ackEvents(cq, 2);
  }

  /**
   * Through a queue pair: a Send fires a solicited-only notification only with the Solicited
   * Event flag, once per loop turn (the end of the turn signals its completions).
   */
  @Test
  void aSendWithSolicitedEventFiresASolicitedOnlyArmAndAPlainSendDoesNot() {
    QpHarness h = new QpHarness(8, 8, 16).connected();
    try {
      CompletionChannel channel = new CompletionChannel();
      CompletionQueue cq = new CompletionQueue(16, channel);
      QueuePair qp = new QueuePair(null, 9, h.pd, h.sendCq, cq,
          new QueuePairCapabilities(8, 8, 2, 2, 8, 8, true), false);
      qp.binding().bindLoop(h.loop);
      qp.binding().attach(h.ep, (q, t, reason) -> { }, null);
      qp.binding().enableSend();
      for (int i = 0; i < 4; i++) {
        qp.postRecv(h.recv(i));
      }
      h.loop.runAll();
      cq.requestNotify(true);
      qp.endpointListener().onReceive(0, RdmapOpcode.SEND, 10, 0);
      h.loop.runAll();
      assertEquals(1, cq.size());
      assertNull(channel.pollEvent(), "a Send without Solicited Event does not fire it");
      qp.endpointListener().onReceive(1, RdmapOpcode.SEND_WITH_SE, 10, 0);
      assertNull(channel.pollEvent(), "signalled at the end of the loop turn");
      h.loop.runAll();
      assertSame(cq, channel.pollEvent(), "a Send with Solicited Event fires it");
      channel.ackEvents(cq, 1);
      cq.requestNotify(false);
      qp.endpointListener().onReceive(2, RdmapOpcode.SEND, 10, 0);
      h.loop.runAll();
      assertSame(cq, channel.pollEvent(), "armed for any completion: a plain Send fires it");
      channel.ackEvents(cq, 1);
      assertEquals(3, cq.poll(slots(8)));
      qp.close();
      h.loop.runAll();
      cq.close();
      channel.close();
    } finally {
      h.close();
    }
  }

  @Test
  void acknowledgingMoreThanWasTakenIsRefused() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> channel.ackEvents(cq, 1));
    assertEquals("cannot acknowledge 1 events of completion queue " + cq.number()
        + ": 0 taken and not acknowledged", none.getMessage());
    cq.requestNotify(false);
    cq.offer(success(1));
    assertSame(cq, channel.pollEvent());
    assertThrows(IllegalArgumentException.class, () -> channel.ackEvents(cq, 2),
        "one taken, two acknowledged");
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> channel.ackEvents(cq, 0));
    assertTrue(zero.getMessage().contains("at least 1"), zero.getMessage());
    channel.ackEvents(cq, 1); // the refusals acknowledged nothing
    CompletionChannel other = new CompletionChannel();
    CompletionQueue foreign = new CompletionQueue(4, other);
    IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
        () -> channel.ackEvents(foreign, 1));
    assertEquals("completion queue " + foreign.number() + " is not attached to completion"
        + " channel " + channel.number(), wrong.getMessage());
  }

  @Test
  void aQueueWithUnacknowledgedEventsRefusesToClose() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    cq.requestNotify(false);
    cq.offer(success(1));
    assertSame(cq, channel.pollEvent());
    IllegalStateException e = assertThrows(IllegalStateException.class, cq::close);
    assertEquals("completion queue " + cq.number() + " has 1 unacknowledged completion channel"
        + " event; acknowledge them with CompletionChannel.ackEvents before closing it",
        e.getMessage());
    assertFalse(cq.isClosed(), "nothing changed");
    cq.offer(success(2));
    assertEquals(2, cq.poll(slots(4)));
    channel.ackEvents(cq, 1);
    cq.close();
    assertTrue(cq.isClosed());
    cq.close(); // idempotent
  }

  @Test
  void closingAQueueDropsItsPendingEvent() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(8, channel);
    CompletionQueue other = new CompletionQueue(8, channel);
    cq.requestNotify(false);
    other.requestNotify(false);
    cq.offer(success(1));
    other.offer(success(2));
    cq.close(); // its event is pending, not taken: nothing to acknowledge
    assertSame(other, channel.pollEvent(), "the closed queue's event is skipped");
    assertNull(channel.pollEvent());
    channel.ackEvents(other, 1);
    assertThrows(IllegalStateException.class, () -> cq.requestNotify(false));
  }

  @Test
  void aChannelWithQueuesAttachedRefusesToClose() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue a = new CompletionQueue(4, channel);
    CompletionQueue b = new CompletionQueue(4, channel);
    IllegalStateException e = assertThrows(IllegalStateException.class, channel::close);
    assertEquals("completion channel " + channel.number() + " has completion queues "
        + a.number() + ", " + b.number() + " attached; close them first"
        + " (ibv_destroy_comp_channel: EBUSY)", e.getMessage());
    assertFalse(channel.isClosed());
    a.close();
    e = assertThrows(IllegalStateException.class, channel::close);
    assertTrue(e.getMessage().contains("has completion queue " + b.number() + " attached"),
        e.getMessage());
    b.close();
    channel.close();
    assertTrue(channel.isClosed());
    channel.close(); // idempotent
  }

  @Test
  void aClosedChannelRefusesQueuesAndTakers() {
    CompletionChannel channel = new CompletionChannel();
    channel.close();
    IllegalStateException attach = assertThrows(IllegalStateException.class,
        () -> new CompletionQueue(4, channel));
    assertEquals("completion channel " + channel.number() + " is closed", attach.getMessage());
    assertThrows(IllegalStateException.class, channel::pollEvent);
    IllegalStateException await = assertThrows(IllegalStateException.class,
        () -> channel.awaitEvent(1, TimeUnit.SECONDS));
    assertEquals("completion channel " + channel.number() + " is closed", await.getMessage());
  }

  @Test
  void closingTheChannelWakesAParkedTakerWithAnException() throws Exception {
    CompletionChannel channel = new CompletionChannel();
    AtomicReference<Object> result = new AtomicReference<>();
    Thread taker = start(result, () -> channel.awaitEvent(T, TimeUnit.MINUTES));
    awaitParked(taker);
    channel.close();
    taker.join();
    assertInstanceOf(IllegalStateException.class, result.get());
  }

  @Test
  void severalTakersEachGetAnEventOrAnException() throws Exception {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue a = new CompletionQueue(4, channel);
    CompletionQueue b = new CompletionQueue(4, channel);
    AtomicReference<Object> first = new AtomicReference<>();
    AtomicReference<Object> second = new AtomicReference<>();
    Thread t1 = start(first, () -> channel.awaitEvent(T, TimeUnit.MINUTES));
    Thread t2 = start(second, () -> channel.awaitEvent(T, TimeUnit.MINUTES));
    awaitParked(t1);
    awaitParked(t2);
    a.requestNotify(false);
    b.requestNotify(false);
    a.offer(success(1));
    b.offer(success(2));
    t1.join();
    t2.join();
    assertTrue(first.get() == a && second.get() == b || first.get() == b && second.get() == a,
        first.get() + " " + second.get());
    channel.ackEvents(a, 1);
    channel.ackEvents(b, 1);
  }

  @Test
  void awaitEventTimesOutWithNullAndIsInterruptible() throws Exception {
    CompletionChannel channel = new CompletionChannel();
    assertNull(channel.awaitEvent(0, TimeUnit.SECONDS));
    assertNull(channel.awaitEvent(1, TimeUnit.MILLISECONDS));
    AtomicReference<Object> result = new AtomicReference<>();
    Thread taker = start(result, () -> channel.awaitEvent(T, TimeUnit.MINUTES));
    awaitParked(taker);
    taker.interrupt();
    taker.join();
    assertInstanceOf(InterruptedException.class, result.get());
    // An event ready on entry is returned even with an interrupt pending.
    CompletionQueue cq = new CompletionQueue(4, channel);
    cq.requestNotify(false);
    cq.offer(success(1));
    Thread.currentThread().interrupt();
    try {
      assertSame(cq, channel.awaitEvent(T, TimeUnit.SECONDS));
    } finally {
      Thread.interrupted();
    }
    channel.ackEvents(cq, 1);
  }

  @Test
  void aListenerOnAChannelQueueHearsOnlyTheOverrun() {
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue cq = new CompletionQueue(1, channel);
    AtomicInteger completions = new AtomicInteger();
    AtomicInteger overruns = new AtomicInteger();
    cq.listener(new CompletionListener() {
      @Override
      public void onCompletion(CompletionQueue q) {
        completions.incrementAndGet();
      }

      @Override
      public void onOverrun(CompletionQueue q) {
        overruns.incrementAndGet();
      }
    });
    cq.requestNotify(false);
    assertTrue(cq.offer(success(1)));
    assertFalse(cq.offer(success(2)));
    assertSame(cq, channel.pollEvent());
    assertEquals(0, completions.get(), "the notification went to the channel");
    assertEquals(1, overruns.get());
    channel.ackEvents(cq, 1);
  }

  @Test
  void armingQueuingTakingAndAcknowledgingAllocateNothing() throws Exception {
    AllocationMeter meter = AllocationMeter.create();
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue a = new CompletionQueue(64, channel);
    CompletionQueue b = new CompletionQueue(64, channel);
    WorkCompletion[] out = slots(16);
    WorkCompletion source = new WorkCompletion().status(WcStatus.SUCCESS)
        .opcode(WcOpcode.RECV).qpNumber(3);
    int rounds = 20_000;
    Runnable loop = () -> {
      try {
        for (int r = 0; r < rounds; r++) {
          a.requestNotify(false);
          b.requestNotify(true);
          for (int i = 0; i < 8; i++) {
            a.offer(source.wrId(i).solicited(false));
            b.offer(source.wrId(i).solicited(i == 7));
          }
          CompletionQueue first = channel.awaitEvent(1, TimeUnit.SECONDS);
          CompletionQueue second = channel.pollEvent();
          if (first != a || second != b) {
            throw new AssertionError(first + " " + second);
          }
          channel.ackEvents(a, 1);
          channel.ackEvents(b, 1);
          if (a.poll(out) + b.poll(out) != 16) {
            throw new AssertionError("lost completions");
          }
        }
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    };
    loop.run(); // warm-up: class loading and JIT compilation allocate
    loop.run();
    long bytes = meter.measure(loop);
    assertTrue(bytes < rounds / 10, "allocated " + bytes + " bytes over " + rounds
        + " rounds of two events");
  }

  /**
   * Two producer threads (as two event loops) feed two queues; one taker serves both through the
   * channel with the arm, drain, wait idiom. Every completion is taken exactly once.
   */
  @Test
  void oneTakerServesTwoQueuesFedByTwoThreadsWithoutLosingAnything() throws Exception {
    int perQueue = 200_000;
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue a = new CompletionQueue(64, channel);
    CompletionQueue b = new CompletionQueue(64, channel);
    CountDownLatch start = new CountDownLatch(1);
    Thread pa = producer(a, 0, perQueue, start);
    Thread pb = producer(b, 1L << 32, perQueue, start);
    WorkCompletion[] out = slots(32);
    long[] next = {0, 1L << 32};
    long taken = 0;
    int events = 0;
    a.requestNotify(false);
    b.requestNotify(false);
    start.countDown();
    while (taken < 2L * perQueue) {
      CompletionQueue fired = channel.awaitEvent(T, TimeUnit.SECONDS);
      assertTrue(fired == a || fired == b, "no event within " + T + " s after " + taken);
      channel.ackEvents(fired, 1);
      events++;
      fired.requestNotify(false);
      int n;
      while ((n = fired.poll(out)) > 0) {
        for (int i = 0; i < n; i++) {
          int which = (int) (out[i].wrId() >>> 32);
          assertEquals(next[which]++, out[i].wrId(), "in order, none lost, none twice");
        }
        taken += n;
      }
    }
    pa.join();
    pb.join();
    assertEquals(perQueue, next[0]);
    assertEquals((1L << 32) + perQueue, next[1]);
    assertTrue(events > 0);
    CompletionQueue late = channel.pollEvent(); // a spurious event may remain: harmless
    if (late != null) {
      channel.ackEvents(late, 1);
      assertEquals(0, late.poll(out));
    }
    a.close();
    b.close();
    channel.close();
  }

  /**
   * Two takers share the channel that two producer-fed queues report to; each runs the idiom on
   * whatever queue fired. Between them every completion is taken exactly once. (The takers wait
   * in short slices to see the end; a lost wake-up is what the single-taker test above catches,
   * as a wait that ends empty.)
   */
  @Test
  void twoTakersServeTwoQueuesWithoutLosingOrDuplicatingACompletion() throws Exception {
    int perQueue = 100_000;
    CompletionChannel channel = new CompletionChannel();
    CompletionQueue a = new CompletionQueue(64, channel);
    CompletionQueue b = new CompletionQueue(64, channel);
    java.util.concurrent.atomic.AtomicIntegerArray seen =
        new java.util.concurrent.atomic.AtomicIntegerArray(2 * perQueue);
    java.util.concurrent.atomic.AtomicLong taken = new java.util.concurrent.atomic.AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    AtomicReference<Object> failure = new AtomicReference<>();
    a.requestNotify(false);
    b.requestNotify(false);
    Thread[] takers = new Thread[2];
    for (int t = 0; t < 2; t++) {
      takers[t] = new Thread(() -> {
        WorkCompletion[] out = slots(16);
        try {
          while (taken.get() < 2L * perQueue) {
            CompletionQueue fired = channel.awaitEvent(50, TimeUnit.MILLISECONDS);
            if (fired == null) {
              continue; // only to look at the end condition again
            }
            channel.ackEvents(fired, 1);
            fired.requestNotify(false);
            int n;
            while ((n = fired.poll(out)) > 0) {
              for (int i = 0; i < n; i++) {
                int index = (int) (out[i].wrId() >>> 32) * perQueue + (int) out[i].wrId();
                if (seen.getAndIncrement(index) != 0) {
                  throw new AssertionError("taken twice: " + out[i].wrId());
                }
              }
              taken.addAndGet(n);
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
          taken.set(Long.MAX_VALUE); // stop the other taker
        }
      }, "channel-test-taker-" + t);
      takers[t].setDaemon(true);
      takers[t].start();
    }
    Thread pa = producer(a, 0, perQueue, start);
    Thread pb = producer(b, 1L << 32, perQueue, start);
    start.countDown();
    for (Thread t : takers) {
      t.join();
    }
    pa.join();
    pb.join();
    if (failure.get() != null) {
      throw new AssertionError("a taker failed", (Throwable) failure.get());
    }
    assertEquals(2L * perQueue, taken.get());
    for (int i = 0; i < 2 * perQueue; i++) {
      assertEquals(1, seen.get(i), "completion " + i);
    }
  }

  private static Thread producer(CompletionQueue cq, long base, int count,
      CountDownLatch start) {
    Thread t = new Thread(() -> {
      WorkCompletion wc = new WorkCompletion().status(WcStatus.SUCCESS).opcode(WcOpcode.RECV);
      try {
        start.await();
      } catch (InterruptedException e) {
        return;
      }
      for (int i = 0; i < count; i++) {
        wc.wrId(base + i);
        while (!offerIfRoom(cq, wc)) {
          Thread.onSpinWait();
        }
      }
    }, "channel-test-producer");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Offers only with room, so the queue never latches overrun (the taker drains it). */
  private static boolean offerIfRoom(CompletionQueue cq, WorkCompletion wc) {
    if (cq.size() >= cq.capacity()) {
      return false;
    }
    if (!cq.offer(wc)) {
      throw new AssertionError("overrun with room checked: only one producer per queue");
    }
    return true;
  }

  @Test
  void theDeviceMakesChannelsAndClosesThemWithItsQueues() throws Exception {
    RdmaDevice device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    RdmaDevice other = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    try {
      CompletionChannel channel = device.createCompletionChannel();
      CompletionQueue cq = device.createCompletionQueue(8, channel);
      assertSame(channel, cq.channel());
      IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
          () -> other.createCompletionQueue(8, channel));
      assertTrue(foreign.getMessage().contains("belongs to device " + device.name()),
          foreign.getMessage());
      assertThrows(IllegalArgumentException.class,
          () -> device.createCompletionQueue(0, channel));
      cq.requestNotify(false);
      cq.offer(success(1));
      assertSame(cq, channel.pollEvent()); // taken, never acknowledged
      AtomicReference<Object> result = new AtomicReference<>();
      Thread taker = start(result, () -> channel.awaitEvent(T, TimeUnit.MINUTES));
      awaitParked(taker);
      device.close(); // closes the queue despite the unacknowledged event, then the channel
      taker.join();
      assertInstanceOf(IllegalStateException.class, result.get());
      assertTrue(cq.isClosed());
      assertTrue(channel.isClosed());
      assertThrows(IllegalStateException.class, device::createCompletionChannel);
    } finally {
      device.close();
      other.close();
    }
  }
}
