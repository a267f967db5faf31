package io.iwarp4j.verbs;

import java.util.concurrent.atomic.LongAdder;

/**
 * A device's wake-up counts ({@link CountersSnapshot#loopWakeUps()},
 * {@link CountersSnapshot#pollerWakeUps()}): each cross-thread hand-off that may have to wake a
 * sleeping thread. Counted where the hand-off is made, from any thread, on striped cells so
 * posters on several threads do not share one contended line; a count costs a few nanoseconds
 * next to the wake-up it stands for (an eventfd write or a futex call when the thread sleeps).
 */
final class WakeUpCounters {
  private final LongAdder loop = new LongAdder();
  private final LongAdder poller = new LongAdder();

  /** A poster handed a queue pair's event loop a drain task. */
  void loopWokenUp() {
    loop.increment();
  }

  /** An event loop unparked a thread waiting for completions or a channel event. */
  void pollerWokenUp() {
    poller.increment();
  }

  long loopWakeUps() {
    return loop.sum();
  }

  long pollerWakeUps() {
    return poller.sum();
  }
}
