package io.iwarp4j.testkit;

import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Waits for the completions of one {@link CompletionQueue} with a bound, and asserts on them:
 * every wait either returns a completion or fails the test with an {@link AssertionError} that
 * says how long it waited. Not thread-safe: one test thread polls a queue.
 *
 * <pre>{@code
 * Completions cq = Completions.of(queue, Duration.ofSeconds(2));
 * cq.next().isSuccess().hasOpcode(WcOpcode.RDMA_WRITE).hasWrId(7);
 * cq.assertNoneWithin(Duration.ofMillis(50));
 * }</pre>
 */
public final class Completions {
  private final CompletionQueue cq;
  private final Duration timeout;
  private final WorkCompletion[] out = {new WorkCompletion()};

  private Completions(CompletionQueue cq, Duration timeout) {
    this.cq = Objects.requireNonNull(cq, "cq");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout " + timeout + " is negative");
    }
  }

  /**
   * Completions of {@code cq}, each wait bounded by {@code timeout}.
   *
   * @param cq the queue to poll
   * @param timeout the default bound of {@link #next()}
   * @return a new waiter
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  public static Completions of(CompletionQueue cq, Duration timeout) {
    return new Completions(cq, timeout);
  }

  /**
   * The queue this polls.
   *
   * @return the completion queue
   */
  public CompletionQueue queue() {
    return cq;
  }

  /**
   * The next completion, waiting at most the default timeout.
   *
   * @return an assertion on a copy of the completion
   * @throws AssertionError if none arrives in time
   */
  public CompletionAssert next() {
    return next(timeout);
  }

  /**
   * The next completion, waiting at most {@code wait}.
   *
   * @param wait how long to wait
   * @return an assertion on a copy of the completion
   * @throws AssertionError if none arrives in time
   */
  public CompletionAssert next(Duration wait) {
    int n = await(wait);
    if (n == 0) {
      throw new AssertionError("no completion on " + cq + " within " + wait.toMillis() + " ms");
    }
    return new CompletionAssert(new WorkCompletion().copyFrom(out[0]));
  }

  /**
   * The next {@code n} completions in the order polled, all within the default timeout.
   *
   * @param n how many
   * @return assertions on copies of them
   * @throws AssertionError if fewer arrive in time
   */
  public List<CompletionAssert> next(int n) {
    List<CompletionAssert> all = new ArrayList<>(n);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (all.size() < n) {
      long left = Math.max(0, deadline - System.nanoTime());
      if (await(Duration.ofNanos(left)) == 0) {
        throw new AssertionError("only " + all.size() + " of " + n + " completions on " + cq
            + " within " + timeout.toMillis() + " ms: " + all);
      }
      all.add(new CompletionAssert(new WorkCompletion().copyFrom(out[0])));
    }
    return all;
  }

  /**
   * Asserts that nothing completes within {@code window}.
   *
   * @param window how long to watch
   * @throws AssertionError naming the completion that arrived
   */
  public void assertNoneWithin(Duration window) {
    if (await(window) != 0) {
      throw new AssertionError("unexpected completion within " + window.toMillis() + " ms: "
          + out[0]);
    }
  }

  /**
   * Asserts that no completion is queued now.
   *
   * @throws AssertionError naming the completion that is queued
   */
  public void assertNone() {
    if (cq.poll(out) != 0) {
      throw new AssertionError("unexpected completion: " + out[0]);
    }
  }

  /**
   * Polls every completion queued now.
   *
   * @return copies of them, in order
   */
  public List<WorkCompletion> drain() {
    List<WorkCompletion> all = new ArrayList<>();
    while (cq.poll(out) != 0) {
      all.add(new WorkCompletion().copyFrom(out[0]));
    }
    return all;
  }

  private int await(Duration wait) {
    try {
      return cq.await(out, 1, wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for a completion on " + cq, e);
    }
  }
}
