package io.iwarp4j.verbs;

import io.iwarp4j.verbs.internal.MpmcSlotRing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared receive queue, the counterpart of {@code ibv_srq}: receives posted once and consumed
 * by whichever attached {@link QueuePair} receives a Send (any variant) or Immediate Data first,
 * in posting order. Created by {@link ProtectionDomain#createSharedReceiveQueue}; a queue pair is
 * attached when it is created ({@link QueuePairConfig.Builder#sharedReceiveQueue}) and then
 * refuses its own {@link QueuePair#postRecv}.
 *
 * <h2>Consumption</h2>
 * The queue is a bounded lock-free multi-producer, multi-consumer ring (D. Vyukov's algorithm):
 * {@link #postRecv} copies the work request into a free slot from any thread; a queue pair, on
 * its own event loop, takes the oldest receive at the moment a new message arrives and finds
 * none (one CAS, no lock, no allocation), copies it into its own table and places the message
 * into it exactly as into a receive of its own. Attached queue pairs may run on different event
 * loops. The receive completes on the taking queue pair's receive completion queue, with that
 * queue pair's number ({@link WorkCompletion#qpNumber()}) and the posted wrId.
 *
 * <h2>Running dry</h2>
 * iWARP has no receiver-not-ready retry: a Send (or Immediate Data) that finds the shared queue
 * empty ends its own connection with DDP's Terminate "no buffer available" (1/2/0x02), exactly
 * as a queue pair without a receive does; that queue pair goes to ERROR. The other attached
 * queue pairs and the receives still posted are not affected. Arm a {@link #armLimit limit} to
 * hear in time that the queue runs low.
 *
 * <h2>Errors and memory</h2>
 * A queue pair going to ERROR flushes ({@link WcStatus#WR_FLUSH_ERR}) only the receive it had
 * taken and not completed; the receives still in the shared queue stay there for the others
 * (libibverbs semantics). Receives posted here hold their regions as a queue pair's receives do:
 * checked when taken and pinned around each copy, never pinned while they wait, so
 * {@link MemoryRegion#close()} always succeeds; the receive then completes with
 * {@link WcStatus#LOC_PROT_ERR} on the queue pair that takes it (which goes to ERROR), and
 * {@link MemoryRegion#closeChecked()} refuses, naming the shared queue's receives that use it.
 *
 * <h2>Closing</h2>
 * {@link #close()} refuses while queue pairs are attached (libibverbs' {@code ibv_destroy_srq}
 * fails with {@code EBUSY}); once they are closed, it drops the receives still posted without a
 * completion: a shared queue has no completion queue of its own, as in libibverbs, where the
 * receives of a destroyed SRQ are simply gone.
 */
public final class SharedReceiveQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SharedReceiveQueue.class);
  private static final AtomicInteger NUMBERS = new AtomicInteger();
  private static final BiConsumer<RecvWorkRequest, RecvWorkRequest> COPY =
      (from, to) -> to.copyFrom(from);
  private static final VarHandle LIMIT;

  static {
    try {
      LIMIT = MethodHandles.lookup().findVarHandle(SharedReceiveQueue.class, "limit", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final ProtectionDomain pd;
  private final int number;
  private final int maxWr;
  private final int maxSge;
  private final MpmcSlotRing<RecvWorkRequest> ring;
  private final SharedReceiveQueueListener listener;
  /** The queue pairs attached; guarded by itself (control path only). */
  private final Set<QueuePair> attached = new LinkedHashSet<>();
  /** The armed limit, 0 when disarmed; accessed through {@link #LIMIT}. */
  @SuppressWarnings("unused")
  private volatile int limit;
  private volatile boolean closed;

  SharedReceiveQueue(ProtectionDomain pd, int maxWr, int maxSge, int limit,
      SharedReceiveQueueListener listener) {
    this.pd = Objects.requireNonNull(pd, "pd");
    this.number = NUMBERS.incrementAndGet();
    this.maxWr = maxWr;
    this.maxSge = maxSge;
    checkLimit(limit);
    this.listener = listener;
    // Every slot is made now: maxWr receives of maxSge entries (as a CQ makes its slots).
    this.ring = new MpmcSlotRing<>(maxWr, () -> new RecvWorkRequest(maxSge), COPY);
    this.limit = limit;
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
   * The protection domain.
   *
   * @return the domain
   */
  public ProtectionDomain pd() {
    return pd;
  }

  /**
   * The most receives posted and not yet taken.
   *
   * @return the depth
   */
  public int maxWr() {
    return maxWr;
  }

  /**
   * The most scatter/gather entries of one receive.
   *
   * @return the SGE limit
   */
  public int maxSge() {
    return maxSge;
  }

  /**
   * Receives posted and not yet taken by a queue pair (a snapshot).
   *
   * @return 0 to {@link #maxWr()}
   */
  public int outstanding() {
    return ring.size();
  }

  /**
   * The attributes now, like {@code ibv_query_srq}. Any thread; allocates.
   *
   * @return a snapshot
   */
  public SharedReceiveQueueAttributes query() {
    return new SharedReceiveQueueAttributes(maxWr, maxSge, (int) LIMIT.getVolatile(this),
        ring.size());
  }

  /**
   * Whether {@link #close()} succeeded.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Posts a receive, like {@code ibv_post_srq_recv}: buffers for the next Send any attached queue
   * pair receives. The request is copied; reuse it at once. Any thread; lock-free,
   * allocation-free.
   *
   * @param wr the work request
   * @throws IllegalStateException after {@link #close()}
   * @throws IllegalArgumentException when the request has more than {@link #maxSge()} SGEs or is
   *     longer than the largest RDMAP message
   * @throws WorkQueueFullException when {@link #maxWr()} receives are posted and not taken;
   *     nothing was posted
   */
  public void postRecv(RecvWorkRequest wr) {
    Objects.requireNonNull(wr, "wr");
    if (closed) {
      throw new IllegalStateException("postRecv on shared receive queue " + number
          + ": it is closed");
    }
    if (wr.sgl().count() > maxSge) {
      throw new IllegalArgumentException("receive work request (wrId " + wr.wrId() + "): "
          + wr.sgl().count() + " SGEs exceed shared receive queue " + number + "'s maximum of "
          + maxSge);
    }
    wr.validate(maxSge);
    if (!ring.offer(wr)) {
      throw new WorkQueueFullException("shared receive queue " + number, maxWr);
    }
  }

  /**
   * Arms the limit event, like {@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}: once a queue
   * pair takes a receive and fewer than {@code limit} stay posted, the limit is disarmed and the
   * listener's {@link SharedReceiveQueueListener#onLimitReached} is called, once. Checked when a
   * receive is taken, as Linux siw does: arming a limit above the current count fires at the
   * next take. 0 disarms. Any thread.
   *
   * @param limit 0 to {@link #maxWr()}
   * @throws IllegalArgumentException when out of range
   * @throws IllegalStateException after {@link #close()}
   */
  public void armLimit(int limit) {
    if (closed) {
      throw new IllegalStateException("armLimit on shared receive queue " + number
          + ": it is closed");
    }
    checkLimit(limit);
    LIMIT.setVolatile(this, limit);
  }

  private void checkLimit(int n) {
    if (n < 0 || n > maxWr) {
      throw new IllegalArgumentException("limit " + n + " of shared receive queue " + number
          + " is outside 0.." + maxWr + " (maxWr)");
    }
  }

  /**
   * Destroys the queue, like {@code ibv_destroy_srq}. Receives still posted are dropped without
   * a completion (see the class documentation). Idempotent.
   *
   * @throws IllegalStateException while queue pairs are attached, naming them (libibverbs:
   *     {@code EBUSY}); nothing changed
   */
  @Override
  public void close() {
    synchronized (attached) {
      if (closed) {
        return;
      }
      if (!attached.isEmpty()) {
        throw new IllegalStateException("shared receive queue " + number + " is used by "
            + describe(attached) + "; close them first (ibv_destroy_srq: EBUSY)");
      }
      closed = true;
    }
    int dropped = drop();
    pd.sharedReceiveQueueClosed(this);
    log.debug("closed shared receive queue {}: {} posted receives dropped", number, dropped);
  }

  /** Device shutdown: its queue pairs are closed; drop what is left. */
  void closeForced() {
    synchronized (attached) {
      attached.clear();
    }
    close();
  }

  private int drop() {
    RecvWorkRequest scratch = new RecvWorkRequest(maxSge);
    int n = 0;
    while (ring.poll(scratch)) {
      n++;
    }
    // The ring's slots keep the last request copied into them: let go of their regions.
    for (int i = 0; i < maxWr; i++) {
      scratch.reset();
      if (!ring.offer(scratch)) {
        break;
      }
    }
    while (ring.poll(scratch)) {
      // empty again
    }
    return n;
  }

  private static String describe(Set<QueuePair> qps) {
    List<Integer> numbers = new ArrayList<>();
    for (QueuePair qp : qps) {
      numbers.add(qp.number());
    }
    return (numbers.size() == 1 ? "queue pair " : "queue pairs ")
        + numbers.toString().replace("[", "").replace("]", "");
  }

  // ---- queue pairs ----

  /**
   * Attaches a new queue pair (at its creation).
   *
   * @throws IllegalStateException when closed
   */
  void attach(QueuePair qp) {
    synchronized (attached) {
      if (closed) {
        throw new IllegalStateException("shared receive queue " + number + " is closed");
      }
      attached.add(qp);
    }
  }

  /** The queue pair is closed: it takes nothing more. */
  void detach(QueuePair qp) {
    synchronized (attached) {
      attached.remove(qp);
    }
  }

  /**
   * Takes the oldest posted receive into {@code into}, for a queue pair whose new message found
   * no receive; fires the limit event when the count fell below the armed limit. On the taking
   * queue pair's event loop; one CAS, no allocation.
   *
   * @return false when none is posted (the message ends its connection)
   */
  boolean take(RecvWorkRequest into) {
    return take(COPY, into);
  }

  /**
   * As {@link #take(RecvWorkRequest)}, handing the oldest receive to {@code into} where it lies
   * (it copies it on, and must not throw or keep it), which saves a copy.
   *
   * @return false when none is posted
   */
  <A> boolean take(BiConsumer<? super RecvWorkRequest, ? super A> into, A arg) {
    if (!ring.poll(into, arg)) {
      return false;
    }
    int armed = (int) LIMIT.getVolatile(this);
    if (armed > 0 && ring.size() < armed && LIMIT.compareAndSet(this, armed, 0)) {
      limitReached(armed);
    }
    return true;
  }

  private void limitReached(int armed) {
    log.debug("shared receive queue {}: fewer than {} receives posted (limit event)", number,
        armed);
    if (listener == null) {
      return;
    }
    try {
      listener.onLimitReached(this, armed);
    } catch (RuntimeException e) {
      log.warn("shared receive queue {}: the limit listener threw", number, e);
    }
  }

  /**
   * Appends the posted receives that use {@code region} (for {@link MemoryRegion#closeChecked}):
   * a snapshot; receives posted or taken meanwhile may or may not be named.
   *
   * @return how many were found
   */
  int collectUses(MemoryRegion region, StringBuilder into) {
    RecvWorkRequest scratch = new RecvWorkRequest(maxSge);
    int[] found = new int[1];
    ring.forEachStored(scratch, wr -> {
      ScatterGatherList sgl = wr.sgl();
      for (int i = 0; i < sgl.count(); i++) {
        if (sgl.buffer(i) == region) {
          into.append(into.length() > 0 ? ", " : "").append("shared receive queue ")
              .append(number).append(" receive wrId ").append(wr.wrId());
          found[0]++;
          return;
        }
      }
    });
    return found[0];
  }

  @Override
  public String toString() {
    return "SharedReceiveQueue{" + number + ", " + ring.size() + "/" + maxWr + ", maxSge="
        + maxSge + ", limit=" + (int) LIMIT.getVolatile(this) + (closed ? ", closed" : "") + '}';
  }
}
