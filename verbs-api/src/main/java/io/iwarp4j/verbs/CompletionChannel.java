package io.iwarp4j.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion channel, the counterpart of {@code ibv_comp_channel}: completion queues created
 * with it ({@link RdmaDevice#createCompletionQueue(int, CompletionChannel)}) deliver their
 * notifications here, and application threads take them with {@link #awaitEvent} (blocking,
 * like {@code ibv_get_cq_event}) or {@link #pollEvent} (non-blocking), instead of a
 * {@link CompletionListener} running on the event loop.
 *
 * <h2>The idiom</h2>
 * A notification is one-shot, exactly as in libibverbs: {@link CompletionQueue#requestNotify}
 * arms the queue, the next completion added after it (with {@code solicitedOnly}, the next
 * solicited or unsuccessful one) queues one event here and disarms the queue. Completions already
 * queued when it is armed do not fire it, so always arm, then drain, then wait:
 *
 * <pre>{@code
 * CompletionChannel channel = device.createCompletionChannel();
 * CompletionQueue cq = device.createCompletionQueue(256, channel);
 * WorkCompletion[] wc = ...;                       // preallocated
 * cq.requestNotify(false);                         // ibv_req_notify_cq
 * for (;;) {
 *   CompletionQueue fired = channel.awaitEvent(1, TimeUnit.SECONDS); // ibv_get_cq_event
 *   if (fired == null) continue;                   // timed out
 *   channel.ackEvents(fired, 1);                   // ibv_ack_cq_events (may be batched)
 *   fired.requestNotify(false);                    // re-arm first ...
 *   int n;
 *   while ((n = fired.poll(wc)) > 0) {             // ... then drain: a completion added after
 *     handle(wc, n);                               // the arm fires a new event, one added before
 *   }                                              // it is polled here; none is lost
 * }
 * }</pre>
 *
 * A completion that arrives between the arm and the wait queues an event, so the wait returns at
 * once; the drain may then find nothing (it was polled already), which is harmless.
 *
 * <h2>Bounds and ordering</h2>
 * A queue has at most one event pending on its channel: a queue that fires again while its event
 * has not been taken yet (it was re-armed before {@link #awaitEvent} returned it) adds nothing,
 * as the one pending event already sends its taker to poll it. So the channel holds at most as
 * many events as queues are attached, and queuing allocates nothing: the queue itself is the
 * entry. Events are returned in the order the queues fired, except that events queued while a
 * taker is busy are returned after the ones it already holds (oldest first among them).
 *
 * <h2>Acknowledging and closing</h2>
 * Every event returned counts against its queue until {@link #ackEvents(CompletionQueue, int)}
 * acknowledges it (batch acknowledgements: one call for many events is cheaper in libibverbs,
 * and harmless here). {@link CompletionQueue#close()} refuses with an
 * {@link IllegalStateException} naming the unacknowledged count while any is outstanding, and
 * {@link #close()} refuses while queues are attached, naming them (libibverbs' destroy calls
 * block or fail with {@code EBUSY}; here they throw, so a forgotten acknowledgement is a message,
 * not a hang). Closing a queue drops its event if one is pending. Closing the channel wakes its
 * waiters with an {@link IllegalStateException}. {@link RdmaDevice#close()} closes its queues and
 * channels regardless.
 *
 * <h2>Threads</h2>
 * Event loops queue events without locks (one CAS, and an unpark when a taker is parked). Any
 * number of application threads may take events; they take turns (a lock among the takers, held
 * while one of them waits), so a {@link #pollEvent} while another thread waits returns null, and
 * that thread gets the next event. One taker allocates nothing, parked or not.
 */
public final class CompletionChannel implements AutoCloseable {
  private static final AtomicInteger NUMBERS = new AtomicInteger();
  private static final VarHandle PUSHED;

  static {
    try {
      PUSHED = MethodHandles.lookup().findVarHandle(CompletionChannel.class, "pushed",
          CompletionQueue.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final int number;
  /**
   * Events queued by event loops and not yet taken, newest first: a lock-free stack linked
   * through {@link CompletionQueue#nextEvent}. A queue is on it at most once (its queued flag).
   */
  @SuppressWarnings("unused") // through PUSHED
  private volatile CompletionQueue pushed;
  /** Serializes the takers; the one holding it may park for an event. */
  private final ReentrantLock takers = new ReentrantLock();
  /** Events moved off the stack, oldest first; guarded by {@link #takers}. */
  private CompletionQueue taken;
  /** The taker parked for an event (it holds {@link #takers}), or null. */
  private volatile Thread waiter;
  private volatile boolean closed;
  /** The queues created with this channel and not closed; guarded by itself. */
  private final Set<CompletionQueue> attached = new LinkedHashSet<>();
  /** The device that made this channel; null when made directly. */
  private volatile RdmaDevice device;

  /**
   * Creates a channel that belongs to no device; {@link RdmaDevice#createCompletionChannel()}
   * makes one the device closes with itself.
   */
  public CompletionChannel() {
    this.number = NUMBERS.incrementAndGet();
  }

  /**
   * The number naming this channel in messages, unique within the process.
   *
   * @return the number
   */
  public int number() {
    return number;
  }

  /**
   * Whether {@link #close()} succeeded (or the device closed it).
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return closed;
  }

  // ---- taking events ----

  /**
   * Waits for the next event, like {@code ibv_get_cq_event}: returns the queue whose armed
   * notification fired. The queue is disarmed; re-arm it with
   * {@link CompletionQueue#requestNotify} and poll it until empty (in that order, see the class
   * comment), and acknowledge the event with {@link #ackEvents}. The wait parks the thread.
   *
   * @param timeout how long to wait at most; 0 or less does not wait
   * @param unit the unit of {@code timeout}
   * @return the queue, or null when the timeout passed first
   * @throws InterruptedException if the thread is interrupted while waiting (its interrupt status
   *     is cleared); an event ready on entry is returned without checking
   * @throws IllegalStateException if the channel is closed, or is closed while waiting
   */
  public CompletionQueue awaitEvent(long timeout, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    long remaining = unit.toNanos(Math.max(0, timeout));
    long deadline = System.nanoTime() + remaining;
    checkOpen();
    // Uncontended, the lock is taken without looking at the interrupt status (an event ready on
    // entry is returned); behind another taker the wait for it is interruptible.
    if (!takers.tryLock() && !takers.tryLock(remaining, TimeUnit.NANOSECONDS)) {
      checkOpen();
      return null; // another taker held the channel for the whole timeout
    }
    try {
      for (;;) {
        checkOpen();
        CompletionQueue cq = takeLocked();
        if (cq != null) {
          return cq;
        }
        remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return null;
        }
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while waiting for a completion event");
        }
        waiter = Thread.currentThread();
        try {
          // Registering was a volatile write; an event loop pushes and then reads waiter (and
          // close sets closed and then reads it): one of us sees the other.
          if (pushed == null && !closed) {
            LockSupport.parkNanos(this, remaining);
          }
        } finally {
          waiter = null; // a late unpark only makes a later park return early: tolerated
        }
      }
    } finally {
      takers.unlock();
    }
  }

  /**
   * Takes the next event if one is ready; never blocks for long (it does not wait behind a
   * thread parked in {@link #awaitEvent}: that thread gets the next event).
   *
   * @return the queue whose notification fired, or null
   * @throws IllegalStateException if the channel is closed
   */
  public CompletionQueue pollEvent() {
    checkOpen();
    if (!takers.tryLock()) {
      return null;
    }
    try {
      return takeLocked();
    } finally {
      takers.unlock();
    }
  }

  /**
   * Acknowledges events of {@code cq} returned by {@link #awaitEvent} or {@link #pollEvent}, like
   * {@code ibv_ack_cq_events}. Any thread.
   *
   * @param cq a queue attached to this channel
   * @param events how many, at least 1 and at most those returned and not yet acknowledged
   * @throws IllegalArgumentException if {@code cq} is not attached to this channel, or
   *     {@code events} is below 1 or more than are unacknowledged (nothing is acknowledged then)
   */
  public void ackEvents(CompletionQueue cq, int events) {
    Objects.requireNonNull(cq, "cq");
    if (cq.channel() != this) {
      throw new IllegalArgumentException("completion queue " + cq.number()
          + " is not attached to completion channel " + number);
    }
    if (events < 1) {
      throw new IllegalArgumentException("cannot acknowledge " + events + " events of"
          + " completion queue " + cq.number() + ": at least 1");
    }
    cq.ackEvents(events);
  }

  // ---- closing ----

  /**
   * Closes the channel, like {@code ibv_destroy_comp_channel}: threads waiting in
   * {@link #awaitEvent} wake with {@link IllegalStateException}, later calls throw it. Idempotent.
   *
   * @throws IllegalStateException while queues created with it are open, naming them
   *     (libibverbs: {@code EBUSY}); nothing is changed then
   */
  @Override
  public void close() {
    synchronized (attached) {
      if (closed) {
        return;
      }
      if (!attached.isEmpty()) {
        throw new IllegalStateException("completion channel " + number + " has "
            + describe(attached) + " attached; close them first"
            + " (ibv_destroy_comp_channel: EBUSY)");
      }
      closed = true;
    }
    Thread w = waiter;
    if (w != null) {
      LockSupport.unpark(w);
    }
    RdmaDevice d = device;
    if (d != null) {
      d.forget(this);
    }
  }

  /** Device shutdown: its queues are closed already. */
  void closeForced() {
    synchronized (attached) {
      attached.clear();
    }
    close();
  }

  /** Called once by the device that made this channel; {@link #close()} tells it. */
  void ownedBy(RdmaDevice d) {
    device = d;
  }

  RdmaDevice device() {
    return device;
  }

  /** A new queue is created with this channel. */
  void attach(CompletionQueue cq) {
    synchronized (attached) {
      if (closed) {
        throw new IllegalStateException("completion channel " + number + " is closed");
      }
      attached.add(cq);
    }
  }

  /** The queue is closed: it queues nothing more. */
  void detach(CompletionQueue cq) {
    synchronized (attached) {
      attached.remove(cq);
    }
  }

  // ---- the event loop's side ----

  /**
   * Queues an event for {@code cq}, whose armed notification fired (on the thread that added
   * the completion). Lock-free, allocation-free; nothing is added while an event of it is
   * pending.
   */
  void enqueue(CompletionQueue cq) {
    if (!cq.markEventQueued()) {
      return; // its pending event covers this one
    }
    for (;;) {
      CompletionQueue top = pushed;
      cq.nextEvent = top;
      if (PUSHED.compareAndSet(this, top, cq)) {
        break;
      }
    }
    Thread w = waiter;
    if (w != null) {
      LockSupport.unpark(w);
      RdmaDevice d = device;
      if (d != null) {
        d.wakeUps().pollerWokenUp();
      }
    }
  }

  // ---- internals ----

  /** The next event for a taker (holding {@link #takers}): a queue that is not closed. */
  private CompletionQueue takeLocked() {
    for (;;) {
      CompletionQueue cq = taken;
      if (cq == null) {
        cq = (CompletionQueue) PUSHED.getAndSet(this, null);
        if (cq == null) {
          return null;
        }
        taken = reverse(cq);
        continue;
      }
      taken = cq.nextEvent;
      cq.nextEvent = null; // before the flag is cleared: then an event loop may link it again
      if (cq.takeEvent()) {
        return cq;
      }
      // closed since it fired: its event is dropped, as ibv_destroy_cq drops queued events
    }
  }

  private static CompletionQueue reverse(CompletionQueue newestFirst) {
    CompletionQueue oldestFirst = null;
    CompletionQueue cq = newestFirst;
    while (cq != null) {
      CompletionQueue next = cq.nextEvent;
      cq.nextEvent = oldestFirst;
      oldestFirst = cq;
      cq = next;
    }
    return oldestFirst;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("completion channel " + number + " is closed");
    }
  }

  private static String describe(Set<CompletionQueue> queues) {
    List<Integer> numbers = new ArrayList<>();
    for (CompletionQueue cq : queues) {
      numbers.add(cq.number());
    }
    return (numbers.size() == 1 ? "completion queue " : "completion queues ")
        + numbers.toString().replace("[", "").replace("]", "");
  }

  /**
   * A short description for diagnostics; it allocates.
   *
   * @return the number and state
   */
  @Override
  public String toString() {
    return "CompletionChannel{" + number + (closed ? ", closed" : "") + '}';
  }
}
