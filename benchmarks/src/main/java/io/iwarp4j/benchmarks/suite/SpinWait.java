package io.iwarp4j.benchmarks.suite;

import java.util.concurrent.TimeUnit;

/**
 * Busy-waiting for the latency benchmarks that poll memory or a counter. On a 2-core machine
 * the event loops need the CPU the spinner holds, so it yields every few dozen spins; and it
 * gives up after {@link VerbsPair#WAIT_SECONDS} so a lost message cannot hang a benchmark.
 */
final class SpinWait {
  private long spins;
  private long deadline;

  /** Starts a new wait. */
  SpinWait reset() {
    spins = 0;
    deadline = 0;
    return this;
  }

  /**
   * One round of waiting; throws once the wait has lasted too long.
   *
   * @param what what is awaited, for the exception
   */
  void spin(String what) {
    Thread.onSpinWait();
    if ((++spins & 63) == 0) {
      Thread.yield();
      long now = System.nanoTime();
      if (deadline == 0) {
        deadline = now + TimeUnit.SECONDS.toNanos(VerbsPair.WAIT_SECONDS);
      } else if (now > deadline) {
        throw new IllegalStateException(what + ": nothing within " + VerbsPair.WAIT_SECONDS
            + " s");
      }
    }
  }
}
