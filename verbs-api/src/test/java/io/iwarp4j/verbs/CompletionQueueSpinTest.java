package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CompletionQueue#await} with a spin ({@link PollMode#BUSY_POLL}): a completion added
 * while it spins is taken without any wake-up, one added after it parked wakes it, and close,
 * interrupt and timeout end it in either phase. Nothing is timed: the phase a waiter is in is
 * told apart by its thread state (RUNNABLE while spinning, TIMED_WAITING once parked), and a
 * spin of an hour stands for "still spinning".
 */
@Timeout(60)
class CompletionQueueSpinTest {
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  private static WorkCompletion success(long wrId) {
    return new WorkCompletion().wrId(wrId).status(WcStatus.SUCCESS).opcode(WcOpcode.SEND)
        .qpNumber(1);
  }

  /** Starts a thread in await(1 h) and returns its result (or failure). */
  private static CompletableFuture<Integer> awaitOnAnotherThread(CompletionQueue cq,
      WorkCompletion[] out, Thread[] thread) {
    CompletableFuture<Integer> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        result.complete(cq.await(out, 1, 1, TimeUnit.HOURS));
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, "spin-test-waiter");
    thread[0] = t;
    t.start();
    return result;
  }

  private static void awaitState(Thread t, Thread.State state) throws InterruptedException {
    while (t.getState() != state) {
      if (!t.isAlive()) {
        throw new AssertionError(t.getName() + " ended before reaching " + state);
      }
      Thread.sleep(1);
    }
  }

  @Test
  void aCompletionAddedQuietlyWhileSpinningIsTakenWithoutAWakeUp() throws Exception {
    CompletionQueue cq = new CompletionQueue(8);
    cq.spinNanos(HOUR);
    WorkCompletion[] out = QpHarness.newCompletions(1);
    Thread[] t = new Thread[1];
    CompletableFuture<Integer> r = awaitOnAnotherThread(cq, out, t);
    awaitState(t[0], Thread.State.RUNNABLE);
    // offerQuietly wakes nobody: a parked waiter would sleep for the hour (and time the test
    // out); a spinning one sees it.
    assertTrue(cq.offerQuietly(success(7)));
    assertEquals(1, r.get(30, TimeUnit.SECONDS));
    assertEquals(7, out[0].wrId());
  }

  @Test
  void aCompletionAfterTheSpinEndedWakesTheParkedWaiter() throws Exception {
    CompletionQueue cq = new CompletionQueue(8);
    cq.spinNanos(TimeUnit.MICROSECONDS.toNanos(50));
    WorkCompletion[] out = QpHarness.newCompletions(1);
    Thread[] t = new Thread[1];
    CompletableFuture<Integer> r = awaitOnAnotherThread(cq, out, t);
    awaitState(t[0], Thread.State.TIMED_WAITING); // spun, found nothing, parked
    assertTrue(cq.offer(success(8)));
    assertEquals(1, r.get(30, TimeUnit.SECONDS));
    assertEquals(8, out[0].wrId());
  }

  @Test
  void closeEndsASpinningWait() throws Exception {
    CompletionQueue cq = new CompletionQueue(8);
    cq.spinNanos(HOUR);
    Thread[] t = new Thread[1];
    CompletableFuture<Integer> r = awaitOnAnotherThread(cq, QpHarness.newCompletions(1), t);
    awaitState(t[0], Thread.State.RUNNABLE);
    cq.close();
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
        ExecutionException.class, () -> r.get(30, TimeUnit.SECONDS));
    assertInstanceOf(IllegalStateException.class, e.getCause());
  }

  @Test
  void closeEndsAWaitParkedAfterItsSpin() throws Exception {
    CompletionQueue cq = new CompletionQueue(8);
    cq.spinNanos(TimeUnit.MICROSECONDS.toNanos(50));
    Thread[] t = new Thread[1];
    CompletableFuture<Integer> r = awaitOnAnotherThread(cq, QpHarness.newCompletions(1), t);
    awaitState(t[0], Thread.State.TIMED_WAITING);
    cq.close();
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
        ExecutionException.class, () -> r.get(30, TimeUnit.SECONDS));
    assertInstanceOf(IllegalStateException.class, e.getCause());
  }

  @Test
  void anInterruptEndsASpinningWait() throws Exception {
    CompletionQueue cq = new CompletionQueue(8);
    cq.spinNanos(HOUR);
    Thread[] t = new Thread[1];
    CompletableFuture<Integer> r = awaitOnAnotherThread(cq, QpHarness.newCompletions(1), t);
    awaitState(t[0], Thread.State.RUNNABLE);
    t[0].interrupt();
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
        ExecutionException.class, () -> r.get(30, TimeUnit.SECONDS));
    assertInstanceOf(InterruptedException.class, e.getCause());
  }

  @Test
  void aTimeoutShorterThanTheSpinEndsIt() throws Exception {
    CompletionQueue cq = new CompletionQueue(8);
    cq.spinNanos(HOUR);
    assertEquals(0, cq.await(QpHarness.newCompletions(1), 1, TimeUnit.MILLISECONDS));
    assertEquals(0, cq.await(QpHarness.newCompletions(1), 0, TimeUnit.MILLISECONDS));
  }

  @Test
  void aReadyCompletionIsTakenBeforeAnySpin() throws Exception {
    CompletionQueue cq = new CompletionQueue(8);
    cq.spinNanos(HOUR);
    assertTrue(cq.offer(success(3)));
    WorkCompletion[] out = QpHarness.newCompletions(2);
    assertEquals(1, cq.await(out, 1, TimeUnit.HOURS));
    assertEquals(3, out[0].wrId());
  }
}
