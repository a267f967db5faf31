package io.iwarp4j.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads parked in {@link CompletionQueue#await}, and their wake-up by producers.
 *
 * <p>The usual case, one thread waiting, needs no node: it registers in {@link #soleWaiter},
 * and the producer that clears that field unparks it, so a wait allocates nothing. Threads
 * that wait while another holds that field push a fresh {@link Waiter} on a lock-free stack
 * (fresh for every park, so a node is never pushed twice); a producer takes the whole stack and
 * unparks every node.
 *
 * <p>Registering is a volatile write, and a waiter looks at the ring after it; a producer
 * publishes, fences and then reads the registrations ({@link #wake}). One side sees the other,
 * so a completion cannot slip past a waiter (a Dekker pairing; see {@code CompletionQueue.signal}).
 */
final class CompletionWaiters {
  private static final VarHandle WAITERS;
  private static final VarHandle SOLE_WAITER;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      WAITERS = lookup.findVarHandle(CompletionWaiters.class, "waiters", Waiter.class);
      SOLE_WAITER = lookup.findVarHandle(CompletionWaiters.class, "soleWaiter", Thread.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** A thread parked while another one holds {@link #soleWaiter}. */
  static final class Waiter {
    final Thread thread;
    Waiter next;
    volatile boolean active = true;

    Waiter(Thread thread) {
      this.thread = thread;
    }
  }

  private volatile Waiter waiters;
  private volatile Thread soleWaiter;
  /** The owning device's counters; null for a queue made directly. */
  private volatile WakeUpCounters counters;

  void countInto(WakeUpCounters c) {
    counters = c;
  }

  /**
   * Registers the calling thread before it parks.
   *
   * @return null when it registered as the sole waiter, else its node on the stack
   */
  Waiter enlist(Thread me) {
    if (SOLE_WAITER.compareAndSet(this, null, me)) {
      return null;
    }
    Waiter node = new Waiter(me);
    push(node);
    return node;
  }

  /** Unregisters after the park, whatever woke it; {@code node} as {@link #enlist} gave it. */
  void delist(Thread me, Waiter node) {
    if (node == null) {
      // A producer may have cleared it already (and unparked us, or is about to: a stray
      // permit only makes a later park return early, which every park loop tolerates).
      SOLE_WAITER.compareAndSet(this, me, null);
    } else {
      node.active = false;
      WAITERS.compareAndSet(this, node, node.next); // unlinked if still on top
    }
  }

  /** Unparks every registered thread; the caller has fenced after publishing. */
  void wake() {
    if (waiters != null) {
      wakeStacked();
    }
    Thread t = soleWaiter;
    // Clearing first means one unpark per park, however many completions arrive meanwhile.
    if (t != null && SOLE_WAITER.compareAndSet(this, t, null)) {
      LockSupport.unpark(t);
      countWakeUp();
    }
  }

  private void wakeStacked() {
    Waiter w = (Waiter) WAITERS.getAndSet(this, null);
    while (w != null) {
      if (w.active) {
        LockSupport.unpark(w.thread);
        countWakeUp();
      }
      w = w.next;
    }
  }

  private void push(Waiter node) {
    for (;;) {
      Waiter top = waiters;
      // Drop nodes of waiters that have left, so repeated timeouts cannot grow the stack.
      if (top != null && !top.active) {
        WAITERS.compareAndSet(this, top, top.next);
        continue;
      }
      node.next = top;
      if (WAITERS.compareAndSet(this, top, node)) {
        return;
      }
    }
  }

  private void countWakeUp() {
    WakeUpCounters c = counters;
    if (c != null) {
      c.pollerWokenUp();
    }
  }
}
