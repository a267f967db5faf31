package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.CompletionChannel;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.WorkCompletion;
import java.util.concurrent.TimeUnit;

/**
 * How the tool waits for its data completions, as perftest lets one choose: park in
 * {@link CompletionQueue#await} (the default), spin on {@link CompletionQueue#poll}
 * ({@code --busy-poll}, perftest's default {@code ibv_poll_cq} loop), or sleep until the queue's
 * {@link CompletionChannel} has an event ({@code -e}, perftest's {@code --events}: arm, poll,
 * wait, acknowledge). The send and the receive queue may share one channel: a wait on one that
 * takes the other's event leaves it nothing to miss, since every wait arms and polls before it
 * sleeps.
 */
final class CompletionWaiter {
  /** The three ways. */
  enum Kind {
    PARKED, BUSY_POLL, EVENTS
  }

  private final Kind kind;
  private final CompletionChannel channel;

  CompletionWaiter(Kind kind, CompletionChannel channel) {
    if ((kind == Kind.EVENTS) != (channel != null)) {
      throw new IllegalArgumentException("a channel for EVENTS only: " + kind);
    }
    this.kind = kind;
    this.channel = channel;
  }

  Kind kind() {
    return kind;
  }

  /**
   * Takes up to {@code max} completions of {@code cq}, waiting up to {@code nanos} for the first.
   *
   * @return the number taken; 0 when the time passed with none
   */
  int await(CompletionQueue cq, WorkCompletion[] wc, int max, long nanos)
      throws InterruptedException {
    switch (kind) {
      case BUSY_POLL:
        return spin(cq, wc, max, nanos);
      case EVENTS:
        return viaChannel(cq, wc, max, nanos);
      default:
        return cq.await(wc, max, nanos, TimeUnit.NANOSECONDS);
    }
  }

  private static int spin(CompletionQueue cq, WorkCompletion[] wc, int max, long nanos) {
    long deadline = System.nanoTime() + nanos;
    for (int i = 1; ; i++) {
      int n = cq.poll(wc, max);
      if (n > 0) {
        return n;
      }
      Thread.onSpinWait();
      if ((i & 63) == 0) {
        Thread.yield(); // as the device's busy loops do: free with a spare core, fair without
        if ((i & 1023) == 0 && System.nanoTime() - deadline >= 0) {
          return 0;
        }
      }
    }
  }

  private int viaChannel(CompletionQueue cq, WorkCompletion[] wc, int max, long nanos)
      throws InterruptedException {
    int n = cq.poll(wc, max);
    if (n > 0) {
      return n;
    }
    long deadline = System.nanoTime() + nanos;
    for (;;) {
      cq.requestNotify(false);
      n = cq.poll(wc, max); // what came before the arm fires nothing: take it now
      if (n > 0) {
        return n;
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return 0;
      }
      CompletionQueue fired = channel.awaitEvent(remaining, TimeUnit.NANOSECONDS);
      if (fired == null) {
        return cq.poll(wc, max);
      }
      channel.ackEvents(fired, 1);
      n = cq.poll(wc, max);
      if (n > 0) {
        return n;
      }
      // The other queue's event, or this one's for a completion taken already: arm again.
    }
  }
}
