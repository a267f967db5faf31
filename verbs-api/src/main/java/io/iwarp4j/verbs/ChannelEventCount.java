package io.iwarp4j.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A completion queue's events on its {@link CompletionChannel}: whether one is pending (at most
 * one is), and how many were handed out and not acknowledged, with the closed bit in the same
 * word, so that a close that finds none unacknowledged and a taker that hands one out cannot
 * both succeed ({@code ibv_ack_cq_events} accounting).
 */
final class ChannelEventCount {
  /** In {@link #events}: closed; no more events are handed out. */
  private static final long CLOSED = 1L << 62;
  private static final VarHandle QUEUED;
  private static final VarHandle EVENTS;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      QUEUED = lookup.findVarHandle(ChannelEventCount.class, "queued", boolean.class);
      EVENTS = lookup.findVarHandle(ChannelEventCount.class, "events", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final int queueNumber;
  private volatile boolean queued;
  private volatile long events;

  ChannelEventCount(int queueNumber) {
    this.queueNumber = queueNumber;
  }

  /** Before queuing an event: false if one is pending already. */
  boolean markQueued() {
    return !queued && QUEUED.compareAndSet(this, false, true);
  }

  /**
   * A taker took the pending event: it may be queued again from now on. Returns false, handing
   * nothing out, once closed.
   */
  boolean take() {
    queued = false;
    for (;;) {
      long current = events;
      if ((current & CLOSED) != 0) {
        return false;
      }
      if (EVENTS.compareAndSet(this, current, current + 1)) {
        return true;
      }
    }
  }

  void ack(int n) {
    for (;;) {
      long current = events;
      long unacked = current & ~CLOSED;
      if (n > unacked) {
        throw new IllegalArgumentException("cannot acknowledge " + n + " events of completion"
            + " queue " + queueNumber + ": " + unacked + " taken and not acknowledged");
      }
      if (EVENTS.compareAndSet(this, current, current - n)) {
        return;
      }
    }
  }

  /**
   * Closes the count; unless {@code force}, refuses (changing nothing) while events are
   * unacknowledged.
   */
  void close(boolean force) {
    for (;;) {
      long current = events;
      long unacked = current & ~CLOSED;
      if ((current & CLOSED) != 0) {
        return;
      }
      if (unacked != 0 && !force) {
        throw new IllegalStateException("completion queue " + queueNumber + " has " + unacked
            + " unacknowledged completion channel event" + (unacked == 1 ? "" : "s")
            + "; acknowledge them with CompletionChannel.ackEvents before closing it");
      }
      if (EVENTS.compareAndSet(this, current, current | CLOSED)) {
        return;
      }
    }
  }
}
