package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.AllocationMeter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30) // a hang guard only: nothing here measures time
class CompletionQueueTest {

  private final WorkCompletion scratch = new WorkCompletion();

  private static WorkCompletion[] slots(int n) {
    WorkCompletion[] out = new WorkCompletion[n];
    for (int i = 0; i < n; i++) {
      out[i] = new WorkCompletion();
    }
    return out;
  }

  private WorkCompletion success(long wrId) {
    return scratch.reset().wrId(wrId).status(WcStatus.SUCCESS).opcode(WcOpcode.SEND).qpNumber(1);
  }

  /** Counts listener calls. */
  private static final class CountingListener implements CompletionListener {
    final AtomicInteger completions = new AtomicInteger();
    final AtomicInteger overruns = new AtomicInteger();

    @Override
    public void onCompletion(CompletionQueue cq) {
      completions.incrementAndGet();
    }

    @Override
    public void onOverrun(CompletionQueue cq) {
      overruns.incrementAndGet();
    }
  }

  /** Starts a thread that runs {@code body} and records what it returned or threw. */
  private static Thread start(AtomicReference<Object> result, Callable body) {
    Thread t = new Thread(() -> {
      try {
        result.set(body.call());
      } catch (Throwable e) {
        result.set(e);
      }
    }, "cq-test-waiter");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private interface Callable {
    Object call() throws Exception;
  }

  /** Waits until {@code t} has parked (or ended); the tests pass either way, just sooner. */
  private static void awaitParked(Thread t) throws InterruptedException {
    while (t.isAlive() && t.getState() != Thread.State.TIMED_WAITING
        && t.getState() != Thread.State.WAITING) {
      Thread.sleep(1);
    }
  }

  @Test
  void pollReturnsCompletionsOldestFirstInBatches() {
    CompletionQueue cq = new CompletionQueue(8);
    for (int i = 0; i < 5; i++) {
      assertTrue(cq.offer(success(i)));
    }
    assertEquals(5, cq.size());
    WorkCompletion[] out = slots(3);
    assertEquals(3, cq.poll(out));
    for (int i = 0; i < 3; i++) {
      assertEquals(i, out[i].wrId());
    }
    assertEquals(2, cq.poll(out));
    assertEquals(3, out[0].wrId());
    assertEquals(4, out[1].wrId());
    assertEquals(0, cq.poll(out));
    assertEquals(0, cq.size());
  }

  @Test
  void offerCopiesSoTheSourceCanBeReused() {
    CompletionQueue cq = new CompletionQueue(2);
    WorkCompletion wc = new WorkCompletion().wrId(1).status(WcStatus.WR_FLUSH_ERR)
        .opcode(WcOpcode.RDMA_READ).qpNumber(5).vendorError(0x10203).immData(9);
    cq.offer(wc);
    wc.reset();
    WorkCompletion[] out = slots(1);
    assertEquals(1, cq.poll(out));
    assertEquals(1, out[0].wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, out[0].status());
    assertEquals(WcOpcode.RDMA_READ, out[0].opcode());
    assertEquals(5, out[0].qpNumber());
    assertEquals(0x10203, out[0].vendorError());
    assertEquals(9, out[0].immData());
  }

  @Test
  void wrapsAroundManyTimesWithANonPowerOfTwoCapacity() {
    CompletionQueue cq = new CompletionQueue(3);
    WorkCompletion[] out = slots(2);
    long next = 0;
    for (int round = 0; round < 1000; round++) {
      assertTrue(cq.offer(success(2 * round)));
      assertTrue(cq.offer(success(2 * round + 1)));
      assertEquals(2, cq.poll(out));
      assertEquals(next++, out[0].wrId());
      assertEquals(next++, out[1].wrId());
    }
  }

  @Test
  void pollArgumentsAreCheckedBeforeAnythingIsTaken() {
    CompletionQueue cq = new CompletionQueue(4);
    cq.offer(success(1));
    cq.offer(success(2));
    WorkCompletion[] holes = new WorkCompletion[] {new WorkCompletion(), null};
    NullPointerException e = assertThrows(NullPointerException.class, () -> cq.poll(holes));
    assertEquals("out[1] is null: preallocate every element", e.getMessage());
    assertEquals(2, cq.size(), "nothing may be taken when the call fails");
    assertEquals(1, cq.poll(holes, 1));
    IllegalArgumentException max = assertThrows(IllegalArgumentException.class,
        () -> cq.poll(slots(2), 3));
    assertEquals("max 3 is outside 0..2 (the length of out)", max.getMessage());
    assertEquals(0, cq.poll(slots(2), 0));
    assertThrows(NullPointerException.class, () -> cq.poll(null));
  }

  @Test
  void offerRejectsAnUnfilledCompletion() {
    CompletionQueue cq = new CompletionQueue(1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> cq.offer(new WorkCompletion().wrId(3)));
    assertTrue(e.getMessage().startsWith("completion without status or opcode"), e.getMessage());
    assertEquals(0, cq.size());
  }

  @Test
  void capacityOutOfRange() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new CompletionQueue(0));
    assertEquals("completion queue capacity 0 is outside 1..4194304", e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new CompletionQueue(CompletionQueue.MAX_CAPACITY + 1));
  }

  @Test
  void aCompletionWrittenInPlaceIsPolledOnceItIsPublished() {
    CompletionQueue cq = new CompletionQueue(2);
    long pos = cq.claimQuietly();
    assertTrue(pos >= 0);
    cq.claimedEntry(pos).reset().wrId(42).status(WcStatus.SUCCESS).opcode(WcOpcode.RECV)
        .byteLen(64).qpNumber(5);
    WorkCompletion[] out = slots(2);
    assertEquals(0, cq.poll(out), "claimed, not yet published");
    cq.publishClaimed(pos);
    assertEquals(1, cq.poll(out));
    assertEquals(42, out[0].wrId());
    assertEquals(WcStatus.SUCCESS, out[0].status());
    assertEquals(WcOpcode.RECV, out[0].opcode());
    assertEquals(64, out[0].byteLen());
    assertEquals(5, out[0].qpNumber());
  }

  @Test
  void aClaimOnAFullQueueLatchesOverrunLikeAnOffer() {
    CountingListener listener = new CountingListener();
    CompletionQueue cq = new CompletionQueue(1, listener);
    assertTrue(cq.offerQuietly(success(1)));
    assertEquals(-1, cq.claimQuietly(), "no room");
    assertTrue(cq.isOverrun());
    assertEquals(1, listener.overruns.get());
    WorkCompletion[] out = slots(1);
    assertEquals(1, cq.poll(out));
    assertEquals(-1, cq.claimQuietly(), "overrun is sticky for claims too");
    assertEquals(1, listener.overruns.get(), "the overrun event fires once");
  }

  @Test
  void aClosedQueueRefusesClaimsWithoutAnOverrun() {
    CountingListener listener = new CountingListener();
    CompletionQueue cq = new CompletionQueue(2, listener);
    cq.close();
    assertEquals(-1, cq.claimQuietly());
    assertFalse(cq.isOverrun());
    assertEquals(0, listener.overruns.get());
  }

  @Test
  void overflowLatchesOverrunAndRefusesEveryLaterCompletion() {
    CountingListener listener = new CountingListener();
    CompletionQueue cq = new CompletionQueue(3, listener);
    for (int i = 0; i < 3; i++) {
      assertTrue(cq.offer(success(i)));
    }
    assertFalse(cq.isOverrun());
    assertFalse(cq.offer(success(3)), "the fourth completion does not fit");
    assertTrue(cq.isOverrun());
    assertEquals(1, listener.overruns.get());

    WorkCompletion[] out = slots(1);
    assertEquals(1, cq.poll(out));
    assertEquals(0, out[0].wrId());
    assertFalse(cq.offer(success(4)), "overrun is sticky, as a verbs CQ in error");
    assertEquals(1, listener.overruns.get(), "the overrun event fires once");
    assertTrue(cq.toString().contains("OVERRUN"), cq.toString());

    WorkCompletion[] rest = slots(4);
    assertEquals(2, cq.poll(rest), "completions queued before the overrun can still be polled");
    assertEquals(1, rest[0].wrId());
    assertEquals(2, rest[1].wrId());
  }

  @Test
  void overrunListenerThatThrowsDoesNotBreakTheProducer() {
    CompletionQueue cq = new CompletionQueue(1, new CompletionListener() {
      @Override
      public void onCompletion(CompletionQueue q) {
      }

      @Override
      public void onOverrun(CompletionQueue q) {
        throw new IllegalStateException("listener bug");
      }
    });
    assertTrue(cq.offer(success(0)));
    assertFalse(cq.offer(success(1)));
    assertTrue(cq.isOverrun());
  }

  @Test
  void closeRefusesCompletionsWithoutOverrunButKeepsQueuedOnes() throws Exception {
    CompletionQueue cq = new CompletionQueue(4, new CountingListener());
    cq.offer(success(7));
    cq.close();
    cq.close();
    assertTrue(cq.isClosed());
    assertFalse(cq.offer(success(8)));
    assertFalse(cq.isOverrun());
    WorkCompletion[] out = slots(2);
    assertEquals(1, cq.await(out, 1, TimeUnit.MINUTES), "queued completions are still returned");
    assertEquals(7, out[0].wrId());
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> cq.await(out, 1, TimeUnit.MINUTES));
    assertEquals("completion queue is closed", e.getMessage());
    assertEquals(0, cq.poll(out));
    assertThrows(IllegalStateException.class, () -> cq.requestNotify(false));
  }

  @Test
  void awaitReturnsZeroWhenTheTimeoutPasses() throws Exception {
    CompletionQueue cq = new CompletionQueue(2);
    WorkCompletion[] out = slots(2);
    assertEquals(0, cq.await(out, 5, TimeUnit.MILLISECONDS));
    assertEquals(0, cq.await(out, 0, TimeUnit.SECONDS));
    assertEquals(0, cq.await(out, -1, TimeUnit.SECONDS));
  }

  @Test
  void awaitReturnsReadyCompletionsAtOnce() throws Exception {
    CompletionQueue cq = new CompletionQueue(4);
    cq.offer(success(1));
    cq.offer(success(2));
    WorkCompletion[] out = slots(4);
    assertEquals(2, cq.await(out, 1, TimeUnit.DAYS));
    cq.offer(success(3));
    assertEquals(1, cq.await(out, 1, 1, TimeUnit.DAYS));
    assertEquals(3, out[0].wrId());
    assertThrows(IllegalArgumentException.class, () -> cq.await(out, 0, 1, TimeUnit.SECONDS));
  }

  @Test
  void awaitIsWokenByACompletionFromAnotherThread() throws Exception {
    CompletionQueue cq = new CompletionQueue(4);
    AtomicReference<Object> result = new AtomicReference<>();
    WorkCompletion[] out = slots(4);
    Thread waiter = start(result, () -> cq.await(out, 1, TimeUnit.MINUTES));
    awaitParked(waiter);
    cq.offer(success(99));
    waiter.join();
    assertEquals(1, result.get());
    assertEquals(99, out[0].wrId());
  }

  @Test
  void everyWaiterIsWokenWhenCompletionsArrive() throws Exception {
    CompletionQueue cq = new CompletionQueue(8);
    int waiters = 3;
    Thread[] threads = new Thread[waiters];
    @SuppressWarnings("unchecked")
    AtomicReference<Object>[] results = new AtomicReference[waiters];
    for (int i = 0; i < waiters; i++) {
      results[i] = new AtomicReference<>();
      WorkCompletion[] own = slots(1);
      threads[i] = start(results[i], () -> cq.await(own, 1, TimeUnit.MINUTES) == 1
          ? own[0].wrId() : -1L);
    }
    for (Thread t : threads) {
      awaitParked(t);
    }
    for (int i = 0; i < waiters; i++) {
      cq.offer(success(100 + i));
    }
    long sum = 0;
    for (int i = 0; i < waiters; i++) {
      threads[i].join();
      assertInstanceOf(Long.class, results[i].get(), String.valueOf(results[i].get()));
      sum += (Long) results[i].get();
    }
    assertEquals(100 + 101 + 102, sum, "each waiter took a different completion");
  }

  @Test
  void awaitIsInterruptible() throws Exception {
    CompletionQueue cq = new CompletionQueue(4);
    AtomicReference<Object> result = new AtomicReference<>();
    Thread waiter = start(result, () -> cq.await(slots(1), 1, TimeUnit.MINUTES));
    awaitParked(waiter);
    waiter.interrupt();
    waiter.join();
    assertInstanceOf(InterruptedException.class, result.get());
  }

  @Test
  void awaitWithInterruptPendingReturnsReadyCompletionsElseThrows() {
    CompletionQueue cq = new CompletionQueue(4);
    cq.offer(success(1));
    WorkCompletion[] out = slots(1);
    Thread.currentThread().interrupt();
    try {
      assertEquals(1, assertDoesNotThrowInterrupted(() -> cq.await(out, 1, TimeUnit.SECONDS)));
      assertTrue(Thread.currentThread().isInterrupted(), "the status stays set");
      assertThrows(InterruptedException.class, () -> cq.await(out, 1, TimeUnit.SECONDS));
      assertFalse(Thread.currentThread().isInterrupted(), "throwing clears the status");
    } finally {
      Thread.interrupted();
    }
  }

  private static int assertDoesNotThrowInterrupted(Callable body) {
    try {
      return (Integer) body.call();
    } catch (Exception e) {
      throw new AssertionError("unexpected " + e, e);
    }
  }

  @Test
  void closeWakesWaiters() throws Exception {
    CompletionQueue cq = new CompletionQueue(4);
    AtomicReference<Object> result = new AtomicReference<>();
    Thread waiter = start(result, () -> cq.await(slots(1), 1, TimeUnit.MINUTES));
    awaitParked(waiter);
    cq.close();
    waiter.join();
    assertInstanceOf(IllegalStateException.class, result.get());
  }

  @Test
  void requestNotifyNeedsAListener() {
    CompletionQueue cq = new CompletionQueue(4);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> cq.requestNotify(false));
    assertEquals("requestNotify needs a CompletionListener or a CompletionChannel: set a"
        + " listener, or create the queue with a channel", e.getMessage());
    CountingListener listener = new CountingListener();
    cq.listener(listener);
    cq.requestNotify(false);
    assertEquals(listener, cq.listener());
  }

  @Test
  void notificationIsOneShot() {
    CountingListener listener = new CountingListener();
    CompletionQueue cq = new CompletionQueue(8, listener);
    cq.offer(success(0));
    assertEquals(0, listener.completions.get(), "not armed");
    cq.requestNotify(false);
    assertEquals(0, listener.completions.get(), "queued completions do not fire it");
    cq.offer(success(1));
    assertEquals(1, listener.completions.get());
    cq.offer(success(2));
    assertEquals(1, listener.completions.get(), "disarmed after firing");
    cq.requestNotify(false);
    cq.requestNotify(false);
    cq.offer(success(3));
    cq.offer(success(4));
    assertEquals(2, listener.completions.get(), "arming twice still fires once");
  }

  @Test
  void solicitedOnlyFiresOnSolicitedOrUnsuccessfulCompletions() {
    CountingListener listener = new CountingListener();
    CompletionQueue cq = new CompletionQueue(16, listener);
    cq.requestNotify(true);
    cq.offer(success(1));
    assertEquals(0, listener.completions.get(), "an unsolicited success does not fire it");
    cq.offer(success(2).opcode(WcOpcode.RECV).solicited(true));
    assertEquals(1, listener.completions.get(), "a solicited receive fires it");
    cq.offer(success(3).solicited(true));
    assertEquals(1, listener.completions.get(), "one-shot");

    cq.requestNotify(true);
    cq.offer(success(4).status(WcStatus.REM_ACCESS_ERR));
    assertEquals(2, listener.completions.get(), "an error fires it");

    cq.requestNotify(true);
    cq.requestNotify(false);
    cq.offer(success(5));
    assertEquals(3, listener.completions.get(), "arming for any widens a solicited arm");

    cq.requestNotify(false);
    cq.requestNotify(true);
    cq.offer(success(6));
    assertEquals(4, listener.completions.get(), "arming solicited-only keeps a wider arm");
  }

  @Test
  void listenerThatThrowsDoesNotLoseTheCompletion() {
    AtomicInteger calls = new AtomicInteger();
    CompletionQueue cq = new CompletionQueue(4, q -> {
      calls.incrementAndGet();
      throw new IllegalStateException("listener bug");
    });
    cq.requestNotify(false);
    assertTrue(cq.offer(success(5)));
    assertEquals(1, calls.get());
    assertEquals(1, cq.poll(slots(1)));
  }

  @Test
  void closeDisarmsTheNotification() {
    CountingListener listener = new CountingListener();
    CompletionQueue cq = new CompletionQueue(4, listener);
    cq.requestNotify(false);
    cq.close();
    cq.offer(success(1));
    assertEquals(0, listener.completions.get());
  }

  @Test
  void offerPollAndNotifyAllocateNothingInSteadyState() throws Exception {
    AllocationMeter meter = AllocationMeter.create();
    CountingListener listener = new CountingListener();
    CompletionQueue cq = new CompletionQueue(64, listener);
    WorkCompletion[] out = slots(16);
    WorkCompletion source = new WorkCompletion().status(WcStatus.SUCCESS)
        .opcode(WcOpcode.RDMA_WRITE).qpNumber(3);
    int rounds = 20_000;
    Runnable loop = () -> {
      for (int r = 0; r < rounds; r++) {
        cq.requestNotify((r & 1) == 0);
        for (int i = 0; i < 16; i++) {
          cq.offer(source.wrId(i).solicited(i == 15));
        }
        int n = cq.poll(out, 8);
        try {
          n += cq.await(out, 8, 1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        if (n != 16) {
          throw new AssertionError("polled " + n);
        }
      }
    };
    loop.run(); // warm-up: class loading and JIT compilation allocate
    loop.run();
    long bytes = meter.measure(loop);
    long operations = rounds * (16L + 16L);
    assertTrue(bytes < operations / 10,
        "allocated " + bytes + " bytes over " + operations + " offers and polls");
    assertEquals(3L * rounds, listener.completions.get(), "the notification fired every round");
  }

  @Test
  void aSingleWaiterParksWithoutAllocating() throws InterruptedException {
    // Octets, not time: every call below registers, parks (1 µs) and times out.
    CompletionQueue cq = new CompletionQueue(4);
    WorkCompletion[] out = slots(4);
    AllocationMeter meter = AllocationMeter.create();
    for (int i = 0; i < 20_000; i++) {
      assertEquals(0, cq.await(out, 1, TimeUnit.MICROSECONDS)); // warm-up (JIT)
    }
    long before = meter.allocatedBytes();
    for (int i = 0; i < 10_000; i++) {
      cq.await(out, 1, TimeUnit.MICROSECONDS);
    }
    long allocated = meter.allocatedBytes() - before;
    // A node per park would be ~240 000 octets; allow a little for the JVM's own bookkeeping.
    assertTrue(allocated < 20_000, allocated + " octets allocated by 10 000 parks");
    cq.offer(success(7));
    assertEquals(1, cq.await(out, 1, TimeUnit.SECONDS));
    assertEquals(7, out[0].wrId());
  }

  @Test
  void pollFillsOnlyWhatIsReady() {
    CompletionQueue cq = new CompletionQueue(8);
    WorkCompletion[] out = slots(8);
    out[3] = null; // never reached: only two completions are ready
    cq.offer(success(1));
    cq.offer(success(2));
    assertEquals(2, cq.poll(out));
    assertEquals(1, out[0].wrId());
    assertEquals(2, out[1].wrId());
    assertEquals(0, cq.poll(out));
  }
}
