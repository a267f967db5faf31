package io.iwarp4j.verbs;

import io.iwarp4j.verbs.internal.MpmcSlotRing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A completion queue, the counterpart of {@code ibv_cq}: a bounded queue of
 * {@link WorkCompletion}s that queue pairs add to and the application takes from.
 *
 * <h2>Taking completions</h2>
 * {@link #poll(WorkCompletion[])} copies ready completions into a caller-owned array and never
 * blocks or allocates; any number of threads may poll. {@link #await} blocks until a completion
 * is ready, the timeout passes, or the thread is interrupted. For event-driven use, arm the
 * one-shot notification with {@link #requestNotify(boolean)}, as with
 * {@code ibv_req_notify_cq}; it fires either a {@link CompletionListener}, on the event loop, or,
 * for a queue created with a {@link CompletionChannel}, an event that an application thread takes
 * from the channel ({@code ibv_get_cq_event}).
 *
 * <h2>Listener or channel</h2>
 * A queue created with a channel sends its notification there and never to
 * {@link CompletionListener#onCompletion}; a listener set on it still hears
 * {@link CompletionListener#onOverrun} (libibverbs reports that as the asynchronous event
 * {@code IBV_EVENT_CQ_ERR}, not through the completion channel). A queue without a channel sends
 * its notification to its listener.
 *
 * <h2>Capacity and overrun</h2>
 * The queue holds at most {@link #capacity()} completions, all preallocated. Size it for the
 * work requests that can be outstanding on the queue pairs feeding it. A completion that does
 * not fit is refused ({@link #offer} returns false) and the queue latches the overrun state, as
 * a verbs CQ does: it refuses every later completion, {@link CompletionListener#onOverrun} is
 * called once, and every queue pair whose send or receive queue completes here moves to the
 * ERROR state on its own event loop (as {@code IBV_EVENT_CQ_ERR} reaches every QP on a CQ), with
 * its ERROR and DISCONNECTED connection events; a queue pair not connected then finds out at
 * its first completion. Completions already queued can still be polled. Nothing is lost silently.
 *
 * <h2>Adding completions</h2>
 * {@link #offer(WorkCompletion)} is for the protocol engine; several event loops may feed one
 * queue. It copies the completion into a preallocated slot without locking or allocating, wakes
 * blocked waiters and fires an armed notification. A queue pair adds the successful completions
 * of one event-loop turn quietly instead and signals once at the end of the turn: they are
 * visible to {@link #poll} at once, while blocked waiters wake, and an armed notification fires,
 * once per batch rather than once per completion. Capacity is counted exactly: a completion
 * that a poller has taken no longer counts, even while it is still being copied out; a producer
 * that needs that very slot waits for the copy (a few field writes) rather than overflow.
 */
public final class CompletionQueue implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CompletionQueue.class);

  /** The largest capacity accepted. */
  public static final int MAX_CAPACITY = 1 << 22;

  private static final int OVERRUN = 1;
  private static final int CLOSED = 1 << 1;

  private static final int DISARMED = 0;
  private static final int ARMED_SOLICITED = 1;
  private static final int ARMED_NEXT = 2;

  private static final VarHandle STATE;
  private static final VarHandle ARMED;
  private static final AtomicInteger NUMBERS = new AtomicInteger();

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      STATE = lookup.findVarHandle(CompletionQueue.class, "state", int.class);
      ARMED = lookup.findVarHandle(CompletionQueue.class, "armed", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final MpmcSlotRing<WorkCompletion> ring;
  private final int capacity;
  private final int number;
  /** Where notifications go instead of {@link #listener}; null for none. */
  private final CompletionChannel channel;
  /** This queue's events on {@link #channel}; null without a channel. */
  private final ChannelEventCount events;
  /** The channel's link while an event of this queue is pending: owned by the channel then. */
  CompletionQueue nextEvent;
  private volatile CompletionListener listener;
  /**
   * The queue pairs whose send or receive queue completes here: an overrun moves every one of
   * them to ERROR. Changed on the control path (create, close) only.
   */
  private final CopyOnWriteArraySet<QueuePair> queuePairs = new CopyOnWriteArraySet<>();
  // OVERRUN | CLOSED bits; read on every offer, written once each.
  private volatile int state;
  private volatile int armed;
  /** The threads parked in {@link #await}. */
  private final CompletionWaiters waiters = new CompletionWaiters();

  /** The device that made this queue and keeps it until it is closed; null when made directly. */
  private volatile RdmaDevice device;
  /** How long {@link #await} spins before it parks; 0 (park at once) unless busy-polling. */
  private volatile long spinNanos;

  /**
   * Creates a queue with no listener.
   *
   * @param capacity the most completions it holds, 1 to {@value #MAX_CAPACITY}
   * @throws IllegalArgumentException if {@code capacity} is out of range
   */
  public CompletionQueue(int capacity) {
    this(capacity, (CompletionListener) null);
  }

  /**
   * Creates a queue.
   *
   * @param capacity the most completions it holds, 1 to {@value #MAX_CAPACITY}
   * @param listener receives notifications and the overrun event; may be null
   * @throws IllegalArgumentException if {@code capacity} is out of range
   */
  public CompletionQueue(int capacity, CompletionListener listener) {
    this(capacity, listener, null);
  }

  /**
   * Creates a queue whose notifications go to {@code channel}, like {@code ibv_create_cq} with a
   * completion channel.
   *
   * @param capacity the most completions it holds, 1 to {@value #MAX_CAPACITY}
   * @param channel where {@link #requestNotify} notifications are queued
   * @throws IllegalArgumentException if {@code capacity} is out of range
   * @throws IllegalStateException if {@code channel} is closed
   */
  public CompletionQueue(int capacity, CompletionChannel channel) {
    this(capacity, null, Objects.requireNonNull(channel, "channel"));
  }

  private CompletionQueue(int capacity, CompletionListener listener, CompletionChannel channel) {
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException("completion queue capacity " + capacity
          + " is outside 1.." + MAX_CAPACITY);
    }
    this.capacity = capacity;
    this.number = NUMBERS.incrementAndGet();
    this.ring = new MpmcSlotRing<>(capacity, WorkCompletion::new,
        (from, to) -> to.copyFrom(from));
    this.listener = listener;
    this.channel = channel;
    this.events = channel == null ? null : new ChannelEventCount(number);
    if (channel != null) {
      channel.attach(this); // last: a closed channel refuses before anything is shared
    }
  }

  /**
   * The most completions this queue holds.
   *
   * @return the capacity given at construction
   */
  public int capacity() {
    return capacity;
  }

  /**
   * The number naming this queue in messages, unique within the process.
   *
   * @return the number
   */
  public int number() {
    return number;
  }

  /**
   * The completion channel its notifications go to.
   *
   * @return the channel given at creation, or null
   */
  public CompletionChannel channel() {
    return channel;
  }

  /**
   * Sets or replaces the listener for notifications and the overrun event. On a queue with a
   * {@link #channel()}, it hears only the overrun event.
   *
   * @param listener the listener, or null for none
   * @return this queue
   */
  public CompletionQueue listener(CompletionListener listener) {
    this.listener = listener;
    return this;
  }

  /**
   * The current listener.
   *
   * @return the listener, or null
   */
  public CompletionListener listener() {
    return listener;
  }

  // ---- producer side (the protocol engine) ----

  /**
   * Adds a completion: copies {@code completion} into a free slot, wakes threads blocked in
   * {@link #await} and fires an armed notification whose condition it meets, on this thread.
   * Never allocates and never parks; safe from any number of threads. It waits only in one rare
   * case: when the slot it needs still holds a completion that a poller has taken and is
   * copying out.
   *
   * <p>Returns false, adding nothing, when the queue is full, overrun or closed. The first
   * refusal for lack of space latches the overrun state, calls
   * {@link CompletionListener#onOverrun} and moves every connected queue pair on this queue to
   * ERROR on its event loop; the caller moves the queue pair the completion belonged to into
   * the ERROR state at once.
   *
   * @param completion the completion to copy; its status and opcode must be set; the caller
   *     may reuse it as soon as this returns
   * @return true when added
   * @throws IllegalArgumentException if the status or opcode is not set
   */
  public boolean offer(WorkCompletion completion) {
    if (completion.status() == null || completion.opcode() == null) {
      throw new IllegalArgumentException("completion without status or opcode: " + completion);
    }
    if (!offerQuietly(completion)) {
      return false;
    }
    signal(completion.solicited() || !completion.isSuccess());
    return true;
  }

  /**
   * Adds a completion like {@link #offer} but wakes no waiter and fires no notification: the
   * producer (a queue pair, on its event loop) calls {@link #signal} once after a batch, so a
   * batch of completions costs one wake-up of a parked poller instead of one per completion.
   */
  boolean offerQuietly(WorkCompletion completion) {
    if (state != 0) {
      return false;
    }
    // A release write: signal() fences once for the batch before it looks for waiters.
    if (!ring.offerReleasing(completion)) {
      latchOverrun();
      return false;
    }
    return true;
  }

  /**
   * As {@link #offerQuietly}, for a completion written in place: claims the next entry, or
   * returns -1 when the queue refuses it (closed, or full: the overrun is latched as for
   * {@link #offerQuietly}). The producer fills {@link #claimedEntry} and then calls
   * {@link #publishClaimed}, with nothing that can throw in between: one copy of the completion
   * less than staging it and offering the staged copy.
   */
  long claimQuietly() {
    if (state != 0) {
      return -1;
    }
    long pos = ring.claim();
    if (pos < 0) {
      latchOverrun();
    }
    return pos;
  }

  /** The entry of a position {@link #claimQuietly} returned, to fill before publishing it. */
  WorkCompletion claimedEntry(long pos) {
    return ring.claimed(pos);
  }

  /** Makes a filled claimed entry visible to pollers, quietly, as {@link #offerQuietly} does. */
  void publishClaimed(long pos) {
    ring.publishReleasing(pos);
  }

  /**
   * Wakes the waiters and fires an armed notification for completions added by
   * {@link #offerQuietly}.
   *
   * @param solicitedOrError whether one of them was solicited or unsuccessful (the condition of
   *     a notification armed for solicited completions only)
   */
  void signal(boolean solicitedOrError) {
    // Publication was a release write; the fence orders it before these reads of what waiters
    // and requestNotify wrote before they looked at the ring (a Dekker pairing: one side sees
    // the other).
    MpmcSlotRing.publishFence();
    waiters.wake();
    if (armed != DISARMED) {
      fireIfArmed(solicitedOrError);
    }
  }

  /**
   * Whether the queue has overflowed and now refuses every completion.
   *
   * @return true once an overrun has happened
   */
  public boolean isOverrun() {
    return (state & OVERRUN) != 0;
  }

  // ---- consumer side ----

  /**
   * Takes up to {@code out.length} ready completions, oldest first, copying them into the
   * elements of {@code out}. Never blocks, never allocates; safe from any number of threads.
   *
   * @param out preallocated completions to fill; none may be null
   * @return the number filled, {@code out[0]} to {@code out[n - 1]}; 0 when none was ready
   * @throws NullPointerException if {@code out} or one of its elements is null
   */
  public int poll(WorkCompletion[] out) {
    return poll(out, out.length);
  }

  /**
   * Takes up to {@code max} ready completions into {@code out[0]} to {@code out[max - 1]}.
   *
   * @param out preallocated completions to fill
   * @param max the most to take, 0 to {@code out.length}
   * @return the number filled
   * @throws NullPointerException if {@code out} or one of its first {@code max} elements is
   *     null
   * @throws IllegalArgumentException if {@code max} is out of range
   */
  public int poll(WorkCompletion[] out, int max) {
    CompletionArrays.checkLength(out, max);
    // Only as many slots as completions are ready (or being added) are checked and filled: a
    // poll of a large array on a queue holding one completion costs one check, not out.length.
    int ready = Math.min(max, ring.size());
    if (ready == 0) {
      return 0;
    }
    CompletionArrays.checkElements(out, ready);
    return take(out, ready);
  }

  /**
   * Takes up to {@code out.length} completions, waiting up to {@code timeout} for the first
   * if none is ready. The wait parks the thread; on a queue of a device in
   * {@link PollMode#BUSY_POLL} it first spins, polling, for {@link DeviceConfig#awaitSpinNanos()}
   * (a completion added meanwhile is taken without a wake-up). Any number of threads may wait;
   * each new completion wakes the parked ones to compete for it.
   *
   * @param out preallocated completions to fill; none may be null
   * @param timeout how long to wait at most; 0 or less does not wait
   * @param unit the unit of {@code timeout}
   * @return the number filled; 0 when the timeout passed with none ready
   * @throws InterruptedException if the thread is interrupted while waiting (its interrupt
   *     status is cleared); completions ready on entry are returned without checking
   * @throws IllegalStateException if the queue is closed and empty, or is closed while waiting
   * @throws NullPointerException if {@code out} or one of its elements is null
   */
  public int await(WorkCompletion[] out, long timeout, TimeUnit unit)
      throws InterruptedException {
    return await(out, out.length, timeout, unit);
  }

  /**
   * As {@link #await(WorkCompletion[], long, TimeUnit)}, taking at most {@code max}.
   *
   * @param out preallocated completions to fill
   * @param max the most to take, 1 to {@code out.length}
   * @param timeout how long to wait at most; 0 or less does not wait
   * @param unit the unit of {@code timeout}
   * @return the number filled; 0 when the timeout passed with none ready
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws IllegalStateException if the queue is closed and empty, or is closed while waiting
   * @throws IllegalArgumentException if {@code max} is out of range
   */
  public int await(WorkCompletion[] out, int max, long timeout, TimeUnit unit)
      throws InterruptedException {
    CompletionArrays.checkAll(out, max);
    if (max == 0) {
      throw new IllegalArgumentException("await with max 0 would only wait");
    }
    Objects.requireNonNull(unit, "unit");
    int n = take(out, max);
    if (n > 0) {
      return n;
    }
    long remaining = unit.toNanos(Math.max(0, timeout));
    // Wrap-around arithmetic keeps deadline - now right even when now + remaining overflows.
    long deadline = System.nanoTime() + remaining;
    long spin = spinNanos;
    if (spin > 0 && remaining > 0) {
      n = spin(out, max, deadline, Math.min(spin, remaining));
      if (n > 0) {
        return n;
      }
      remaining = deadline - System.nanoTime();
    }
    for (;;) {
      if ((state & CLOSED) != 0) {
        throw new IllegalStateException("completion queue is closed");
      }
      if (remaining <= 0) {
        return 0;
      }
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while waiting for completions");
      }
      Thread me = Thread.currentThread();
      CompletionWaiters.Waiter node = waiters.enlist(me);
      try {
        // Registering was a volatile write; a producer publishes, fences (signal) and then
        // reads the registrations. One of us sees the other, so a completion cannot slip past.
        if (!ring.mayHaveReady() && (state & CLOSED) == 0) {
          LockSupport.parkNanos(this, remaining);
        }
      } finally {
        waiters.delist(me, node);
      }
      n = take(out, max);
      if (n > 0) {
        return n;
      }
      remaining = deadline - System.nanoTime();
    }
  }

  /**
   * Busy-polls for up to {@code spin} nanoseconds ({@link PollMode#BUSY_POLL}): takes what is
   * ready as soon as it is added, without a wake-up. Returns 0 when the spin ended empty (then
   * the caller parks, its checks of close, timeout and interrupt in front of it); throws as
   * {@link #await} does when the queue is closed or the thread interrupted meanwhile.
   */
  private int spin(WorkCompletion[] out, int max, long deadline, long spin)
      throws InterruptedException {
    long end = System.nanoTime() + spin;
    for (int i = 0; ; i++) {
      Thread.onSpinWait();
      if (ring.mayHaveReady()) {
        int n = take(out, max);
        if (n > 0) {
          return n;
        }
      }
      if ((state & CLOSED) != 0) {
        throw new IllegalStateException("completion queue is closed");
      }
      // The clock and the interrupt status are looked at every 64 turns: a ready completion is
      // seen at once, an ending spin a few hundred nanoseconds late. The core is yielded there
      // too: free at once with a core to spare, and with fewer cores than spinners the event
      // loop that must deliver the completion gets to run.
      if ((i & 63) == 63) {
        Thread.yield();
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while waiting for completions");
        }
        long now = System.nanoTime();
        if (now - end >= 0 || now - deadline >= 0) {
          return 0;
        }
      }
    }
  }

  /**
   * Sets how long {@link #await} spins before it parks (the device's
   * {@link DeviceConfig#awaitSpinNanos()}; 0 parks at once, as a queue made directly does).
   */
  void spinNanos(long nanos) {
    spinNanos = nanos;
  }

  /** {@return how long {@link #await} spins before it parks}, in nanoseconds. */
  long spinNanos() {
    return spinNanos;
  }

  /**
   * Arms a one-shot notification, like {@code ibv_req_notify_cq}: the next completion added
   * after this call (with {@code solicitedOnly}, the next one that is {@link
   * WorkCompletion#solicited() solicited} or unsuccessful) disarms it and either queues one
   * event on the {@link #channel()} or, without one, calls
   * {@link CompletionListener#onCompletion} once. Completions already queued do not fire it, so
   * arm first and then poll until empty before waiting for the event (see
   * {@link CompletionChannel}): a completion added in between fires it and is not missed.
   * Arming for any completion while armed for solicited ones widens the condition; the reverse
   * keeps it wide. Arming again after it fired and before its channel event was taken adds no
   * second event: the pending one stands for both.
   *
   * @param solicitedOnly whether only solicited or unsuccessful completions fire it
   * @throws IllegalStateException if the queue has neither a listener nor a channel, or is
   *     closed
   */
  public void requestNotify(boolean solicitedOnly) {
    if (listener == null && channel == null) {
      throw new IllegalStateException("requestNotify needs a CompletionListener or a"
          + " CompletionChannel: set a listener, or create the queue with a channel");
    }
    if ((state & CLOSED) != 0) {
      throw new IllegalStateException("completion queue is closed");
    }
    int want = solicitedOnly ? ARMED_SOLICITED : ARMED_NEXT;
    for (;;) {
      int current = armed;
      if (current >= want || ARMED.compareAndSet(this, current, want)) {
        return;
      }
    }
  }

  /**
   * The number of completions queued or being queued, a snapshot that may be stale at once.
   *
   * @return 0 to {@link #capacity()}
   */
  public int size() {
    return ring.size();
  }

  /**
   * Whether {@link #close()} has been called.
   *
   * @return true when closed
   */
  public boolean isClosed() {
    return (state & CLOSED) != 0;
  }

  /**
   * Closes the queue, like {@code ibv_destroy_cq}: later completions are refused, the
   * notification is disarmed, an event of it still pending on its channel is dropped, and
   * blocked waiters wake with {@link IllegalStateException}. Completions already queued can still
   * be polled. Idempotent.
   *
   * @throws IllegalStateException if channel events of this queue were taken and not
   *     acknowledged ({@link CompletionChannel#ackEvents}), naming how many; nothing is changed
   *     then (libibverbs' {@code ibv_destroy_cq} waits for them instead)
   */
  @Override
  public void close() {
    close(false);
  }

  /** Device shutdown: closes whatever events are unacknowledged. */
  void closeForced() {
    close(true);
  }

  private void close(boolean force) {
    if (events != null) {
      events.close(force);
    }
    int previous = (int) STATE.getAndBitwiseOr(this, CLOSED);
    armed = DISARMED;
    waiters.wake();
    if ((previous & CLOSED) == 0) {
      if (channel != null) {
        channel.detach(this);
      }
      RdmaDevice d = device;
      if (d != null) {
        d.forget(this); // a server making a queue per connection must not grow
      }
    }
  }

  // ---- channel events (see CompletionChannel) ----

  /** Before queuing an event: false if one is pending already. */
  boolean markEventQueued() {
    return events.markQueued();
  }

  /** A taker took this queue's pending event; false, handing nothing out, once closed. */
  boolean takeEvent() {
    return events.take();
  }

  void ackEvents(int n) {
    events.ack(n);
  }

  /** Called once by the device that made this queue; {@link #close()} tells it. */
  void ownedBy(RdmaDevice d) {
    spinNanos = d.config().awaitSpinNanos();
    waiters.countInto(d.wakeUps());
    device = d;
  }

  /**
   * A short description for diagnostics; it allocates.
   *
   * @return capacity, size and state
   */
  @Override
  public String toString() {
    return "CompletionQueue{" + number + ", capacity=" + capacity + ", size=" + size()
        + (isOverrun() ? ", OVERRUN" : "") + (isClosed() ? ", CLOSED" : "") + '}';
  }

  private void latchOverrun() {
    if ((state & CLOSED) != 0) {
      return; // refused because of close, not for lack of space
    }
    int previous = (int) STATE.getAndBitwiseOr(this, OVERRUN);
    if ((previous & OVERRUN) == 0) {
      CompletionListener l = listener;
      if (l != null) {
        try {
          l.onOverrun(this);
        } catch (RuntimeException e) {
          LOG.warn("CompletionListener.onOverrun threw; ignored", e);
        }
      }
      // Like IBV_EVENT_CQ_ERR: the error reaches every queue pair on the queue, each on its
      // own event loop, not only the one whose completion was refused.
      for (QueuePair qp : queuePairs) {
        qp.completionQueueOverran(this);
      }
    }
  }

  /** Adds a queue pair that completes here ({@link #latchOverrun} moves it to ERROR). */
  void attach(QueuePair qp) {
    queuePairs.add(qp);
  }

  /** Removes a closed queue pair. */
  void detach(QueuePair qp) {
    queuePairs.remove(qp);
  }

  private void fireIfArmed(boolean matchesSolicited) {
    for (;;) {
      int current = armed;
      if (current == DISARMED || current == ARMED_SOLICITED && !matchesSolicited) {
        return;
      }
      if (ARMED.compareAndSet(this, current, DISARMED)) {
        break;
      }
    }
    CompletionChannel ch = channel;
    if (ch != null) {
      ch.enqueue(this);
      return;
    }
    CompletionListener l = listener;
    if (l != null) {
      try {
        l.onCompletion(this);
      } catch (RuntimeException e) {
        LOG.warn("CompletionListener.onCompletion threw; ignored", e);
      }
    }
  }

  private int take(WorkCompletion[] out, int max) {
    return ring.poll(out, max); // one claim for the whole run of ready completions
  }
}
