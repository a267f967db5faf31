package io.iwarp4j.verbs;

import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.rdmap.RdmapCounters;
import io.iwarp4j.rdmap.RdmapEndpointListener;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.rdmap.ReadResponseCopyBudget;
import io.iwarp4j.verbs.engine.EndpointPort;
import io.iwarp4j.verbs.engine.QpEventSink;
import io.iwarp4j.verbs.engine.QpLoop;
import io.iwarp4j.verbs.engine.ReceiveQueue;
import io.iwarp4j.verbs.engine.SendQueue;
import io.iwarp4j.verbs.engine.TerminateStatus;
import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue pair, the counterpart of {@code ibv_qp}: a send queue and a receive queue over one
 * RDMAP stream (one TCP connection), created on a {@link ProtectionDomain} with a send and a
 * receive {@link CompletionQueue}.
 *
 * <h2>Posting</h2>
 * {@link #postSend} and {@link #postRecv} may be called from any thread, concurrently. Each
 * checks the work request, takes one of the queue's {@link QueuePairCapabilities slots} (or
 * fails at once with {@link WorkQueueFullException}), copies the request into a reusable ring
 * slot and, once per batch, wakes the connection's event loop. No lock is taken and nothing is
 * allocated (once each slot has been used: slots are made on first use, so an idle queue pair
 * stays small); the caller may reuse its work request as soon as the call returns. Work requests
 * posted by one thread execute in the order that thread posted them.
 *
 * <h2>Execution and completion (RFC 5040 §5.5)</h2>
 * On the event loop the queue pair issues send work requests to the RDMAP stream in posting
 * order, flushing once per batch. An RDMA Read is issued only while fewer than ORD Reads are
 * outstanding; a work request with {@link SendFlags#FENCE} only once every earlier Read has
 * completed. Either way it, and everything posted after it, waits its turn: that is not an
 * error. While the channel is not writable nothing more is issued (the queue waits for
 * Netty's writability to come back instead of buffering without bound).
 * <ul>
 *   <li>A Send or RDMA Write completes once handed to TCP in full, an RDMA Read once its data is
 *       placed, a receive once the whole message is placed.</li>
 *   <li>Send completions are generated strictly in send queue order: a Write that finished early
 *       waits for an older Read. Receive completions come in posting order.</li>
 *   <li>An unsignaled send work request produces no completion on success, but its slot is freed
 *       when it is retired. Errors always produce a completion.</li>
 * </ul>
 *
 * <h2>Errors</h2>
 * A Terminate sent or received, a disconnect, a completion queue overrun, a local protection
 * error or {@link #modifyToError()} moves the queue pair to {@link QpState#ERROR}. Then every
 * outstanding work request, and every one posted later, completes with
 * {@link WcStatus#WR_FLUSH_ERR}, except the one charged with the error, which gets the mapped
 * status (see {@link TerminateInfo} and the table in the package documentation) and, for a
 * Terminate, its layer/type/code in {@link WorkCompletion#vendorError()}. The connection is
 * closed. No work request is lost without a completion, unless the completion queue itself has
 * overrun (which it reports through {@link CompletionListener#onOverrun}).
 *
 * <h2>States</h2>
 * See {@link QpState}: the connection manager moves the queue pair from INIT to RTR to RTS;
 * {@link #postSend} before RTS fails with an {@link IllegalStateException} naming the state;
 * receives may be posted from INIT on.
 */
public final class QueuePair implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(QueuePair.class);
  /**
   * A posted receive's view of each SGE's memory: a region's receive view names the region, so
   * placement pins it around each copy (never a bare duplicate of registered memory).
   */
  private static final Function<LocalBuffer, ByteBuf> RECEIVE_VIEWS =
      b -> b instanceof MemoryRegion mr ? mr.region().receiveView() : b.buffer().duplicate();

  /** Teardown of the connection when entering ERROR. */
  private static final int TEARDOWN_NONE = 0;
  private static final int TEARDOWN_GRACEFUL = 1;
  private static final int TEARDOWN_ABORT = 2;

  /** RDMAP Terminate Error Type "Local Catastrophic Error" (RFC 5040 §4.8). */
  private static final int LOCAL_CATASTROPHIC = 0;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(QueuePair.class, "state", QpState.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final RdmaDevice device;
  private final int number;
  private final ProtectionDomain pd;
  private final StagTable stags;
  private final CompletionQueue sendCq;
  private final CompletionQueue recvCq;
  private final QueuePairCapabilities caps;
  private final boolean signalAll;
  private final SendQueue sq;
  private final ReceiveQueue rq;
  private final Runnable drainTask = this::drainOnLoop;
  /** Wakes pollers and fires notifications for the completions of one loop turn. */
  private final Runnable signalTask = this::signalCompletions;
  // Event loop only: completions added quietly and not signaled yet (see deliverSend).
  private boolean signalScheduled;
  private boolean sendCqUnsignaled;
  private boolean recvCqUnsignaled;
  private boolean recvSolicitedUnsignaled;
  private final EndpointEvents endpointEvents = new EndpointEvents();
  /** Traffic and error counters, written by the event loop (see RdmapCounters). */
  private final RdmapCounters counters = new RdmapCounters();
  private final ReadResponseCopyBudget readResponseCopies;
  /** The name of this queue pair's counters MBean, or null (set by the device). */
  volatile javax.management.ObjectName countersMBean;
  /** Set by the first connection attempt (or by a close/error before any). */
  private final AtomicBoolean claimed = new AtomicBoolean();
  private final AtomicBoolean released = new AtomicBoolean();
  /** Taken once by {@link #bindLoop} and by {@link #collectUses} before a loop is bound. */
  private final Object bindLock = new Object();

  private volatile QpState state = QpState.RESET;
  /** The event loop everything but posting runs on; set once. */
  private volatile QpLoop loop;
  private volatile boolean closeRequested;
  private volatile boolean errorRequested;
  private volatile RdmaConnection connection;

  // ---- event loop only ----
  private EndpointPort endpoint;
  private QpEventSink events;
  private final WorkCompletion completion = new WorkCompletion();
  private final GatherList gather;
  private final SgePins sendPins;
  private boolean issuing;
  private boolean reissue;
  private boolean cleanedUp;
  private boolean terminateSentReported;

  /**
   * Builds a queue pair in RESET and moves it to INIT.
   *
   * @param device the owning device; null in tests
   */
  QueuePair(RdmaDevice device, int number, ProtectionDomain pd, CompletionQueue sendCq,
      CompletionQueue recvCq, QueuePairCapabilities caps, boolean signalAll) {
    this.device = device;
    this.readResponseCopies = device != null ? device.readResponseCopies()
        : new ReadResponseCopyBudget(ReadResponseCopyBudget.DEFAULT_CAPACITY);
    this.number = number;
    this.pd = Objects.requireNonNull(pd, "pd");
    this.stags = pd.ddp().table();
    this.sendCq = Objects.requireNonNull(sendCq, "sendCq");
    this.recvCq = Objects.requireNonNull(recvCq, "recvCq");
    this.caps = Objects.requireNonNull(caps, "caps");
    this.signalAll = signalAll;
    this.sq = new SendQueue(caps.maxSendWr(), caps.maxSendSge(), this::wakeUp);
    this.rq = new ReceiveQueue(caps.maxRecvWr(), caps.maxRecvSge(), this::wakeUp);
    this.gather = new GatherList(caps.maxSendSge());
    this.sendPins = new SgePins(caps.maxSendSge());
    pd.queuePairOpened(this);
    STATE.setVolatile(this, QpState.INIT);
    if (log.isDebugEnabled()) {
      log.debug("created {}", this);
    }
  }

  // ---- attributes ----

  /**
   * The queue pair number, unique within its device; reported in every completion.
   *
   * @return the number
   */
  public int number() {
    return number;
  }

  /**
   * The current state (a snapshot: the event loop moves it on).
   *
   * @return the state
   */
  public QpState state() {
    return state;
  }

  /**
   * What the queue pair was created with.
   *
   * @return the capabilities
   */
  public QueuePairCapabilities capabilities() {
    return caps;
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
   * Where send work requests complete.
   *
   * @return the send completion queue
   */
  public CompletionQueue sendCq() {
    return sendCq;
  }

  /**
   * Where receive work requests complete.
   *
   * @return the receive completion queue
   */
  public CompletionQueue recvCq() {
    return recvCq;
  }

  /**
   * The connection this queue pair runs over, once its MPA handshake is done.
   *
   * @return the connection, or null before
   */
  public RdmaConnection connection() {
    return connection;
  }

  /**
   * Send work requests posted and not yet completed (a snapshot).
   *
   * @return 0 to {@link QueuePairCapabilities#maxSendWr()}
   */
  public int outstandingSends() {
    return sq.outstanding();
  }

  /**
   * Receive work requests posted and not yet completed (a snapshot).
   *
   * @return 0 to {@link QueuePairCapabilities#maxRecvWr()}
   */
  public int outstandingReceives() {
    return rq.outstanding();
  }

  /**
   * Copies this queue pair's counters into {@code into}, replacing what it held: messages and
   * octets per RDMAP message type, Terminates by code, flushes, errors (see
   * {@link CountersSnapshot}). Callable from any thread at any time, also after {@link #close()};
   * allocates nothing and takes no lock.
   *
   * @param into the caller's snapshot, reused across calls
   * @return {@code into}
   */
  public CountersSnapshot counters(CountersSnapshot into) {
    long[] values = into.values();
    java.util.Arrays.fill(values, 0);
    counters.addTo(values);
    return into;
  }

  /** The live counters, for the RDMAP endpoint and the device's totals. */
  RdmapCounters rdmapCounters() {
    return counters;
  }

  /**
   * The budget this queue pair's Read Response snapshots are charged to: the device's, or, for a
   * queue pair built without a device (tests), one of its own with the default capacity.
   */
  ReadResponseCopyBudget readResponseCopies() {
    return readResponseCopies;
  }

  // ---- posting (any thread) ----

  /**
   * Posts a send work request, like {@code ibv_post_send}. The request is copied; reuse it at
   * once. Lock-free, allocation-free.
   *
   * @param wr the work request: any {@link WorkRequestOpcode}; the RFC 7306 ones (Atomics,
   *     Immediate Data, RDMA Write with Immediate) when {@link QueuePairCapabilities#rfc7306()}
   * @throws IllegalStateException before {@link QpState#RTS} or after {@link #close()}, naming
   *     the state (in {@link QpState#ERROR} the request is accepted and flushed)
   * @throws UnsupportedOperationException for an RFC 7306 opcode on a queue pair without RFC 7306
   * @throws IllegalArgumentException when the request is incomplete or exceeds the queue pair's
   *     SGE limit (see {@link SendWorkRequest#validate})
   * @throws WorkQueueFullException when {@link QueuePairCapabilities#maxSendWr()} send work
   *     requests are outstanding; nothing was posted
   */
  public void postSend(SendWorkRequest wr) {
    Objects.requireNonNull(wr, "wr");
    QpState s = state;
    if (!s.acceptsSends()) {
      throw new IllegalStateException(refusal("postSend", s,
          "sends need RTS: connect or accept first"));
    }
    WorkRequestOpcode op = wr.opcode();
    if (op != null && op.isRfc7306() && !caps.rfc7306()) {
      throw new UnsupportedOperationException(op + " (wrId " + wr.wrId() + ") is an RFC 7306"
          + " operation, and RFC 7306 is disabled on queue pair " + number
          + " (QueuePairConfig.rfc7306 / DeviceConfig.rfc7306)");
    }
    if (op != null && (op == WorkRequestOpcode.RDMA_READ || op.isAtomic())) {
      RdmaConnection c = connection;
      if (c != null && c.ord() == 0) {
        // Nothing could ever issue it (siw refuses such a post with EINVAL).
        throw new IllegalStateException(op + " (wrId " + wr.wrId() + ") on queue pair " + number
            + ": the negotiated ORD is 0 (ORD 0), so no RDMA Read or Atomic may be outstanding;"
            + " ask for ORD > 0 (QueuePairConfig.ord) from a peer with IRD > 0");
      }
    }
    wr.validate(caps.maxSendSge());
    sq.post(wr);
  }

  /**
   * Posts a receive work request, like {@code ibv_post_recv}: buffers for the next incoming
   * Send. Allowed from {@link QpState#INIT} on; receives posted before the connection exists
   * are handed to it when it does. The request is copied; reuse it at once. Lock-free,
   * allocation-free.
   *
   * @param wr the work request
   * @throws IllegalStateException after {@link #close()} (in {@link QpState#ERROR} the request is
   *     accepted and flushed)
   * @throws IllegalArgumentException when the request exceeds the queue pair's SGE limit
   * @throws WorkQueueFullException when {@link QueuePairCapabilities#maxRecvWr()} receive work
   *     requests are outstanding; nothing was posted
   */
  public void postRecv(RecvWorkRequest wr) {
    Objects.requireNonNull(wr, "wr");
    QpState s = state;
    if (!s.acceptsReceives()) {
      throw new IllegalStateException(refusal("postRecv", s, "the queue pair is gone"));
    }
    wr.validate(caps.maxRecvSge());
    rq.post(wr);
  }

  private String refusal(String what, QpState s, String why) {
    return what + " on queue pair " + number + " in state " + s + ": " + why;
  }

  // ---- control (any thread) ----

  /**
   * Moves the queue pair to {@link QpState#ERROR}, like {@code ibv_modify_qp} to
   * {@code IBV_QPS_ERR}: every outstanding work request is flushed, and a connection is ended
   * with a Terminate (RDMAP Local Catastrophic Error). Returns at once; the flush happens on the
   * event loop. Does nothing in ERROR or CLOSED.
   */
  public void modifyToError() {
    errorRequested = true;
    QpLoop l = loopOrStandalone();
    if (l != null) {
      execute(l, this::errorRequestedOnLoop);
    }
  }

  /**
   * Destroys the queue pair, like {@code ibv_destroy_qp}: it moves to {@link QpState#CLOSED} at
   * once (posting throws from then on), every outstanding work request is flushed, and a
   * connection is closed gracefully. Waits (a bounded time) for the flush unless called on the
   * event loop. Idempotent.
   */
  @Override
  public void close() {
    QpState previous = (QpState) STATE.getAndSet(this, QpState.CLOSED);
    if (previous == QpState.CLOSED) {
      return;
    }
    log.debug("closing queue pair {} (was {})", number, previous);
    closeRequested = true;
    QpLoop l = loopOrStandalone();
    try {
      if (l == null) {
        if (!claimed.get() || device == null) {
          // Never bound and never will be: this thread is the only consumer left.
          closeOnLoop();
        }
        // Otherwise a connection attempt binds a loop soon and sees closeRequested.
      } else if (l.inEventLoop()) {
        closeOnLoop();
      } else {
        CompletableFuture<Void> done = new CompletableFuture<>();
        execute(l, () -> {
          try {
            closeOnLoop();
          } finally {
            done.complete(null);
          }
        });
        awaitQuietly(done);
      }
    } finally {
      release();
    }
  }

  private void release() {
    if (released.compareAndSet(false, true)) {
      pd.queuePairClosed(this);
      if (device != null) {
        device.forget(this);
      }
    }
  }

  private static void awaitQuietly(CompletableFuture<Void> done) {
    try {
      done.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      log.warn("queue pair close did not finish on its event loop: {}", e.toString());
    }
  }

  /**
   * The bound loop; if there is none and no connection attempt will bind one, binds a device
   * loop now (for flushing). Null when a connection attempt is about to bind one, or (tests)
   * when there is no device.
   */
  private QpLoop loopOrStandalone() {
    QpLoop l = loop;
    if (l != null) {
      return l;
    }
    if (device != null && claimed.compareAndSet(false, true)) {
      QpLoop standalone = QpLoop.of(device.nextLoop());
      execute(standalone, () -> bindLoop(standalone));
      return standalone;
    }
    // Claimed by a connection attempt: it binds soon and then sees the request flags. Look
    // again in case it bound meanwhile (handling a request twice is harmless).
    return loop;
  }

  private void execute(QpLoop l, Runnable task) {
    try {
      l.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("queue pair {}: event loop rejected a task (device closing): {}", number,
          e.toString());
    }
  }

  /** Run by a poster when the loop should drain (once per batch, see MpscSlotRing). */
  private void wakeUp() {
    QpLoop l = loop;
    if (l != null) {
      execute(l, drainTask);
    }
    // No loop yet: the ring keeps the posts; bindLoop drains them.
  }

  // ---- connection manager hooks ----

  /**
   * Reserves this queue pair for a connection attempt.
   *
   * @throws IllegalStateException when it is not in INIT or already used
   */
  void claimForConnection() {
    QpState s = state;
    if (s != QpState.INIT) {
      throw new IllegalStateException("queue pair " + number + " is in state " + s
          + "; a connection needs a new queue pair in INIT");
    }
    if (!claimed.compareAndSet(false, true)) {
      throw new IllegalStateException("queue pair " + number
          + " is already used by a connection; create a new one for each connection");
    }
  }

  /** Binds the event loop; called once, on that loop. Drains what was posted so far. */
  void bindLoop(QpLoop l) {
    synchronized (bindLock) { // once per queue pair: a scan before the loop is bound may drain
      if (loop != null) {
        throw new IllegalStateException("queue pair " + number + " is already bound to " + loop);
      }
      loop = l;
    }
    drainOnLoop();
    if (closeRequested) {
      closeOnLoop();
    } else if (errorRequested) {
      errorRequestedOnLoop();
    }
  }

  /**
   * The RDMAP stream exists (MPA handshake done): INIT to RTR, posted receives are handed over.
   *
   * @return false when the queue pair left INIT meanwhile (closed or errored); the caller
   *     abandons the connection
   */
  boolean attach(EndpointPort port, QpEventSink sink, RdmaConnection conn) {
    checkLoop("attach");
    if (!STATE.compareAndSet(this, QpState.INIT, QpState.RTR)) {
      return false;
    }
    endpoint = port;
    events = sink;
    connection = conn;
    log.debug("queue pair {} is RTR", number);
    drainOnLoop();
    return true;
  }

  /**
   * This end may send now: RTR to RTS, and send work requests start flowing.
   *
   * @return false when the queue pair is not in RTR any more
   */
  boolean enableSend() {
    checkLoop("enableSend");
    if (!STATE.compareAndSet(this, QpState.RTR, QpState.RTS)) {
      return false;
    }
    log.debug("queue pair {} is RTS", number);
    drainOnLoop();
    return true;
  }

  /** The connection attempt failed before RTR: flush what was posted (ERROR, no event). */
  void connectionFailed(String reason) {
    checkLoop("connectionFailed");
    enterError(-1, -1, null, 0, TEARDOWN_NONE, null, reason, false);
  }

  /** Disconnect requested locally (rdma_disconnect): flush, close gracefully, no ERROR event. */
  void disconnect() {
    checkLoop("disconnect");
    enterError(-1, -1, null, 0, TEARDOWN_GRACEFUL, null, "disconnected locally", false);
  }

  /** The channel closed without the endpoint saying why. */
  void channelClosed() {
    checkLoop("channelClosed");
    enterError(sq.inFlight(), -1, WcStatus.FATAL_ERR, 0, TEARDOWN_NONE, null,
        "the connection closed", true);
  }

  /** The channel became writable again: issue what waited. */
  void writabilityChanged() {
    if (state == QpState.RTS && endpoint != null && endpoint.isWritable()) {
      progress();
    }
  }

  /**
   * Appends this queue pair's outstanding work requests that use {@code region} (see {@link
   * RegionUses}): on the event loop, waiting a bounded time for it, or here under the binding
   * lock while no loop is bound. Not on the data path.
   *
   * @return how many were found
   */
  int collectUses(MemoryRegion region, StringBuilder into) {
    synchronized (bindLock) {
      if (loop == null) {
        return RegionUses.collect(number, sq, rq, region, into);
      }
    }
    QpLoop l = loop;
    if (l.inEventLoop()) {
      return RegionUses.collect(number, sq, rq, region, into);
    }
    StringBuilder found = new StringBuilder();
    CompletableFuture<Integer> done = new CompletableFuture<>();
    try {
      l.execute(() -> {
        try {
          done.complete(RegionUses.collect(number, sq, rq, region, found));
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
        }
      });
      int n = done.get(10, TimeUnit.SECONDS);
      if (n > 0) {
        into.append(into.length() > 0 ? ", " : "").append(found);
      }
      return n;
    } catch (RejectedExecutionException e) {
      return 0; // the device is closing: the queue pair is flushed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while looking for work requests using "
          + region, e);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("queue pair " + number + " did not answer which work"
          + " requests use " + region + ": " + e, e);
    }
  }

  /** The callbacks the RDMAP endpoint reports to. */
  RdmapEndpointListener endpointListener() {
    return endpointEvents;
  }

  private void checkLoop(String what) {
    QpLoop l = loop;
    if (l == null || !l.inEventLoop()) {
      throw new IllegalStateException(what + " must run on queue pair " + number
          + "'s event loop (" + l + "), not on " + Thread.currentThread().getName());
    }
  }

  // ---- event loop: the queues ----

  private void drainOnLoop() {
    sq.drain();
    rq.drain();
    QpState s = state;
    if (s == QpState.ERROR || s == QpState.CLOSED) {
      flushAll(-1, -1, null, 0);
      return;
    }
    if (s == QpState.RTR || s == QpState.RTS) {
      handReceives();
      if (state == QpState.RTS) {
        progress();
      }
    }
  }

  /** Hands receives taken from the ring to the endpoint. */
  private void handReceives() {
    EndpointPort ep = endpoint;
    while (rq.hasUnhanded() && isLive()) {
      ReceiveQueue.Entry e = rq.nextUnhanded();
      long id = rq.nextUnhandedSequence();
      ScatterGatherList sgl = e.wr.sgl();
      if (!checkSges(sgl, AccessFlags.LOCAL_WRITE)) {
        enterError(-1, id, WcStatus.LOC_PROT_ERR, 0, TEARDOWN_ABORT, null,
            "receive wrId " + e.wr.wrId() + " names memory this queue pair may not write", true);
        return;
      }
      e.preparePieces(RECEIVE_VIEWS);
      rq.markHanded();
      try {
        ep.postReceive(id, e.pieces, e.pieceCount);
      } catch (RuntimeException ex) {
        log.warn("queue pair {}: the RDMAP endpoint refused receive {}", number, id, ex);
        enterError(-1, id, WcStatus.LOC_QP_OP_ERR, 0, TEARDOWN_ABORT, null,
            "the RDMAP endpoint refused a receive: " + ex, true);
        return;
      }
    }
  }

  private boolean isLive() {
    QpState s = state;
    return s == QpState.RTR || s == QpState.RTS;
  }

  /** Issues what may be issued; re-entrant calls (from completions) just ask for another pass. */
  private void progress() {
    if (issuing) {
      reissue = true;
      return;
    }
    issuing = true;
    try {
      do {
        reissue = false;
        issueBatch();
      } while (reissue && state == QpState.RTS);
    } finally {
      issuing = false;
    }
  }

  private void issueBatch() {
    EndpointPort ep = endpoint;
    int issued = 0;
    while (state == QpState.RTS && sq.hasUnissued()) {
      if (!ep.canSend() || !ep.isWritable()) {
        break; // writabilityChanged() resumes
      }
      SendQueue.Entry e = sq.nextUnissued();
      SendWorkRequest wr = e.wr;
      // Atomics share ORD with Reads (RFC 7306 §5.2) and, like them, complete on a response.
      boolean read = wr.opcode() == WorkRequestOpcode.RDMA_READ || wr.opcode().isAtomic();
      if (SendFlags.has(wr.flags(), SendFlags.FENCE) && sq.readsOutstanding() > 0) {
        break; // an earlier Read completing resumes
      }
      if (read && !ep.canIssueRead()) {
        break; // ORD reached; a Read completing resumes
      }
      if (!issue(ep, wr, sq.nextSequence(), read)) {
        return;
      }
      issued++;
    }
    if (issued > 0 && state == QpState.RTS) {
      try {
        ep.flush();
      } catch (RuntimeException ex) {
        log.warn("queue pair {}: flushing the RDMAP endpoint failed", number, ex);
        enterError(sq.inFlight(), -1, WcStatus.LOC_QP_OP_ERR, 0, TEARDOWN_ABORT, null,
            "flushing failed: " + ex, true);
      }
    }
  }

  /** Checks and issues one work request; false when that moved the queue pair to ERROR. */
  private boolean issue(EndpointPort ep, SendWorkRequest wr, long seq, boolean read) {
    ScatterGatherList sgl = wr.sgl();
    WorkRequestOpcode opcode = wr.opcode();
    int required = read ? AccessFlags.LOCAL_WRITE : AccessFlags.NONE;
    io.iwarp4j.ddp.mem.MemoryRegion result = null;
    if (opcode.isAtomic()) {
      result = resultRegion(wr);
      if (result == null) {
        enterError(seq, -1, WcStatus.LOC_PROT_ERR, 0, TEARDOWN_ABORT, null, opcode + " wrId "
            + wr.wrId() + " names a local result buffer it may not write", true);
        return false;
      }
    }
    if (!checkSges(sgl, required)) {
      enterError(seq, -1, WcStatus.LOC_PROT_ERR, 0, TEARDOWN_ABORT, null, wr.opcode()
          + " wrId " + wr.wrId() + " names local memory it may not use", true);
      return false;
    }
    sq.markIssued(read);
    try {
      if (result != null) {
        boolean fetchAdd = opcode == WorkRequestOpcode.ATOMIC_FETCH_ADD;
        ep.atomic(seq, fetchAdd ? AtomicOpcode.FETCH_ADD : AtomicOpcode.CMP_SWAP,
            wr.remoteStag(), wr.remoteAddress(), fetchAdd ? wr.addData() : wr.swapData(),
            fetchAdd ? wr.addMask() : wr.swapMask(), wr.compareData(), wr.compareMask(),
            result.stag(), result.baseTo() + wr.localResultOffset());
      } else if (opcode == WorkRequestOpcode.IMMEDIATE_DATA
          || opcode == WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED) {
        ep.immediate(seq, wr.solicitsEvent(), wr.immData());
      } else if (read) {
        LocalBuffer sink = sgl.buffer(0);
        long sinkTo = stags.lookup(sink.stag()).baseTo() + sgl.offset(0);
        ep.read(seq, sink.stag(), sinkTo, (int) sgl.totalLength(), wr.remoteStag(),
            wr.remoteAddress());
      } else {
        if (!sendPins.pinAll(sgl)) {
          enterError(seq, -1, WcStatus.LOC_PROT_ERR, 0, TEARDOWN_ABORT, null, opcode + " wrId "
              + wr.wrId() + ": a region of it was deregistered while it was issued", true);
          return false;
        }
        try {
          int n = sgl.count();
          for (int i = 0; i < n; i++) {
            gather.add(sendView(sgl.buffer(i)), (int) sgl.offset(i), (int) sgl.length(i));
          }
          if (opcode == WorkRequestOpcode.RDMA_WRITE) {
            ep.write(seq, wr.remoteStag(), wr.remoteAddress(), gather);
          } else if (opcode == WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE) {
            ep.writeWithImmediate(seq, wr.remoteStag(), wr.remoteAddress(), gather,
                wr.solicitsEvent(), wr.immData());
          } else {
            RdmapOpcode op = sendOpcode(wr);
            ep.send(seq, op, op.carriesInvalidateStag() ? wr.invalidateStag() : 0, gather);
          }
        } finally {
          sendPins.unpinAll(); // the slices are cut and retained: they keep the memory now
        }
      }
    } catch (RuntimeException ex) {
      log.warn("queue pair {}: the RDMAP endpoint refused {} wrId {}", number, wr.opcode(),
          wr.wrId(), ex);
      enterError(seq, -1, WcStatus.LOC_QP_OP_ERR, 0, TEARDOWN_ABORT, null,
          "the RDMAP endpoint refused a work request: " + ex, true);
      return false;
    } finally {
      gather.clear();
    }
    return true;
  }

  private static RdmapOpcode sendOpcode(SendWorkRequest wr) {
    boolean se = wr.solicitsEvent();
    if (wr.opcode().carriesInvalidateStag()) {
      return se ? RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE : RdmapOpcode.SEND_WITH_INVALIDATE;
    }
    return se ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND;
  }

  /**
   * The region an Atomic's original value goes to, or null when the work request's result
   * buffer is not 8 octets of a valid LOCAL_WRITE region of this queue pair's domain.
   */
  private io.iwarp4j.ddp.mem.MemoryRegion resultRegion(SendWorkRequest wr) {
    LocalBuffer b = wr.localResultBuffer();
    io.iwarp4j.ddp.mem.MemoryRegion r = b == null ? null : stags.lookup(b.stag());
    if (r == null || r.pd() != pd.ddp() || !AccessFlags.allows(r.access(), AccessFlags.LOCAL_WRITE)
        || wr.localResultOffset() + SendWorkRequest.ATOMIC_OPERAND_LENGTH > r.length()) {
      return null;
    }
    return r;
  }

  /**
   * Whether every SGE names a valid region of this queue pair's domain with {@code required}
   * access that covers the range (offsets count from the region's first octet). No allocation.
   */
  private boolean checkSges(ScatterGatherList sgl, int required) {
    int n = sgl.count();
    for (int i = 0; i < n; i++) {
      io.iwarp4j.ddp.mem.MemoryRegion r = stags.lookup(sgl.buffer(i).stag());
      if (r == null || r.pd() != pd.ddp() || !AccessFlags.allows(r.access(), required)
          || sgl.offset(i) + sgl.length(i) > r.length()) {
        return false;
      }
    }
    return true;
  }

  /** Retires finished send work requests in order, completing the signaled ones. */
  private void retireSends() {
    SendQueue.Entry e;
    while ((e = sq.retirable()) != null) {
      boolean signaled = signalAll || e.wr.isSignaled();
      WorkCompletion wc = signaled ? stageSend(e.wr, WcStatus.SUCCESS, e.byteLen, 0) : null;
      // Free the slot before the completion is visible: a poller may repost at once.
      sq.retireOldest();
      boolean accepted = wc == null || deliverSend(wc);
      if (!accepted) {
        completionRefused(sendCq);
        return;
      }
    }
  }

  /**
   * Adds a successful send completion without waking anyone yet; {@link #signalCompletions},
   * run once at the end of this loop turn, wakes the poller and fires the notification. One
   * wake-up per batch instead of one per completion: a poller woken by the first completion of a
   * flush would otherwise take one, post one, park again and be woken again, a futex round trip
   * per message on both threads.
   */
  private boolean deliverSend(WorkCompletion wc) {
    if (!sendCq.offerQuietly(wc)) {
      return false;
    }
    sendCqUnsignaled = true;
    scheduleSignal();
    return true;
  }

  /** As {@link #deliverSend}, for a successful receive completion. */
  private boolean deliverRecv(WorkCompletion wc) {
    if (!recvCq.offerQuietly(wc)) {
      return false;
    }
    recvCqUnsignaled = true;
    recvSolicitedUnsignaled |= wc.solicited();
    scheduleSignal();
    return true;
  }

  private void scheduleSignal() {
    if (signalScheduled) {
      return;
    }
    signalScheduled = true;
    try {
      loop.execute(signalTask); // from the loop itself: queued behind this turn's work
    } catch (RejectedExecutionException e) {
      signalCompletions(); // the loop is shutting down: signal now
    }
  }

  private void signalCompletions() {
    signalScheduled = false;
    if (sendCqUnsignaled) {
      sendCqUnsignaled = false;
      sendCq.signal(false);
    }
    if (recvCqUnsignaled) {
      boolean solicited = recvSolicitedUnsignaled;
      recvCqUnsignaled = false;
      recvSolicitedUnsignaled = false;
      recvCq.signal(solicited);
    }
  }

  /** Fills the reused completion for {@code wr} (offered by the caller, after retiring it). */
  private WorkCompletion stageSend(SendWorkRequest wr, WcStatus status, long byteLen,
      int vendorError) {
    WorkCompletion wc = completion.reset()
        .wrId(wr.wrId())
        .status(status)
        .opcode(wr.opcode().completionOpcode())
        .qpNumber(number)
        .vendorError(vendorError);
    if (status == WcStatus.SUCCESS && byteLen > 0) {
      wc.byteLen(byteLen);
    }
    return wc;
  }

  private WorkCompletion stageImmediate(RecvWorkRequest wr, RdmapOpcode opcode, long data) {
    return completion.reset()
        .wrId(wr.wrId())
        .status(WcStatus.SUCCESS)
        .opcode(WcOpcode.RECV_IMMEDIATE_DATA)
        .qpNumber(number)
        .immData(data)
        .solicited(opcode == RdmapOpcode.IMMEDIATE_DATA_WITH_SE);
  }

  /** Fills the reused completion for {@code wr} (offered by the caller, after retiring it). */
  private WorkCompletion stageRecv(RecvWorkRequest wr, WcStatus status, RdmapOpcode opcode,
      long length, int invalidatedStag, int vendorError) {
    WorkCompletion wc = completion.reset()
        .wrId(wr.wrId())
        .status(status)
        .opcode(WcOpcode.RECV)
        .qpNumber(number)
        .vendorError(vendorError);
    if (status == WcStatus.SUCCESS) {
      wc.byteLen(length)
          .solicited(opcode == RdmapOpcode.SEND_WITH_SE
              || opcode == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE);
      if (invalidatedStag != 0) {
        wc.invalidatedStag(invalidatedStag);
      }
    }
    return wc;
  }

  /** A completion queue refused a completion: overrun (or closed). ERROR, as verbs does. */
  private void completionRefused(CompletionQueue cq) {
    QpState s = state;
    if (s == QpState.ERROR || s == QpState.CLOSED) {
      return; // flushing into a dead queue; its overrun was reported once
    }
    String which = cq == sendCq ? "send" : "receive";
    enterError(-1, -1, null, 0, TEARDOWN_ABORT, null, "the " + which + " completion queue "
        + (cq.isOverrun() ? "overran" : "is closed") + " (capacity " + cq.capacity() + ")",
        true);
  }

  // ---- event loop: errors ----

  /**
   * Moves to ERROR (unless already ERROR or CLOSED), flushes every outstanding work request,
   * tears the connection down and reports the error.
   *
   * @param sendCharge the send work request that gets {@code status}, or -1
   * @param recvCharge the receive work request that gets {@code status}, or -1
   */
  private void enterError(long sendCharge, long recvCharge, WcStatus status, int vendorError,
      int teardown, TerminateInfo terminate, String reason, boolean report) {
    if (!moveToError()) {
      flushAll(-1, -1, null, 0);
      return;
    }
    if (log.isDebugEnabled()) {
      // A Terminate's reason is the Terminate itself: name it once.
      log.debug("queue pair {} -> ERROR: {}{}", number, reason,
          terminate != null && !reason.equals(terminate.toString()) ? " (" + terminate + ")" : "");
    }
    flushAll(sendCharge, recvCharge, status, vendorError);
    teardown(teardown);
    if (terminate != null && !terminate.receivedFromPeer()) {
      terminateSentReported = true;
    }
    if (report && events != null) {
      counters.errorEvent();
      events.onQpError(this, terminate, reason);
    }
  }

  private boolean moveToError() {
    for (;;) {
      QpState s = state;
      if (s == QpState.ERROR || s == QpState.CLOSED) {
        return false;
      }
      if (STATE.compareAndSet(this, s, QpState.ERROR)) {
        return true;
      }
    }
  }

  /** Completes every work request not yet retired: the charged ones with {@code status}. */
  private void flushAll(long sendCharge, long recvCharge, WcStatus status, int vendorError) {
    sq.drain();
    rq.drain();
    SendQueue.Entry s;
    while ((s = sq.oldest()) != null) {
      boolean charged = sq.oldestSequence() == sendCharge && status != null;
      WorkCompletion wc = stageSend(s.wr, charged ? status : WcStatus.WR_FLUSH_ERR, 0,
          charged ? vendorError : 0);
      countError(charged);
      sq.retireOldest();
      sendCq.offer(wc);
    }
    sq.abandonReads();
    ReceiveQueue.Entry r;
    while ((r = rq.oldest()) != null) {
      boolean charged = rq.oldestSequence() == recvCharge && status != null;
      WorkCompletion wc = stageRecv(r.wr, charged ? status : WcStatus.WR_FLUSH_ERR, null, 0, 0,
          charged ? vendorError : 0);
      countError(charged);
      rq.retireOldest();
      recvCq.offer(wc);
    }
  }

  private void countError(boolean charged) {
    if (charged) {
      counters.errorCompletion();
    } else {
      counters.flushed(1);
    }
  }

  private void teardown(int mode) {
    EndpointPort ep = endpoint;
    if (ep == null || mode == TEARDOWN_NONE) {
      return;
    }
    try {
      if (mode == TEARDOWN_ABORT) {
        ep.abort(LOCAL_CATASTROPHIC, 0);
      } else {
        ep.close();
      }
    } catch (RuntimeException ex) {
      log.debug("queue pair {}: teardown failed, closing at once: {}", number, ex.toString());
      try {
        ep.closeNow();
      } catch (RuntimeException ignored) {
        // already closed
      }
    }
  }

  private void errorRequestedOnLoop() {
    enterError(-1, -1, null, 0, TEARDOWN_ABORT, null, "modifyToError()", true);
  }

  private void closeOnLoop() {
    if (cleanedUp) {
      return;
    }
    cleanedUp = true;
    flushAll(-1, -1, null, 0);
    teardown(TEARDOWN_GRACEFUL);
  }

  private void terminate(TerminateInfo t) {
    QpState s = state;
    if (s == QpState.ERROR || s == QpState.CLOSED) {
      flushAll(-1, -1, null, 0);
      boolean duplicate = !t.receivedFromPeer() && terminateSentReported;
      terminateSentReported |= !t.receivedFromPeer();
      if (!duplicate && events != null) {
        counters.errorEvent();
        events.onQpError(this, t, t.toString());
      }
      return;
    }
    long sendCharge = -1;
    long recvCharge = -1;
    WcStatus status;
    if (t.receivedFromPeer()) {
      status = TerminateStatus.forReceived(t.layer(), t.errorType(), t.errorCode());
      sendCharge = sq.inFlight();
    } else {
      status = TerminateStatus.forSent(t.layer(), t.errorType(), t.errorCode());
      int target = TerminateStatus.targetForSent(t.layer(), t.errorType(), t.errorCode());
      if (target == TerminateStatus.TARGET_SEND_IN_FLIGHT) {
        sendCharge = sq.inFlight();
      } else if (target == TerminateStatus.TARGET_RECV_HEAD && rq.oldest() != null) {
        recvCharge = rq.oldestSequence();
      }
    }
    // The endpoint reported the end of its stream: it closes the connection itself.
    enterError(sendCharge, recvCharge, status, t.vendorError(), TEARDOWN_NONE, t, t.toString(),
        true);
  }

  private void disconnected(boolean graceful) {
    // The connection is closed already.
    enterError(graceful ? -1 : sq.inFlight(), -1, WcStatus.FATAL_ERR, 0, TEARDOWN_NONE, null,
        graceful ? "disconnected" : "the connection was lost", !graceful);
  }

  /** The RDMAP endpoint's callbacks; all on the event loop. */
  /**
   * The view to slice send payloads from: a region's per-thread send view, so that slices this
   * event loop sends never share a root buffer with another thread's (Netty's scratch NIO view).
   */
  private static ByteBuf sendView(LocalBuffer b) {
    return b instanceof MemoryRegion mr ? mr.sendView() : b.buffer();
  }

  private final class EndpointEvents implements RdmapEndpointListener {
    @Override
    public void onReceiveBuffersNeeded() {
      // A postRecv that returned before the peer's Send may still sit in the ring: the wake-up
      // task has not run yet. Hand it over now, on this loop, before DDP says "no buffer".
      rq.drain();
      QpState s = state;
      if (s == QpState.RTR || s == QpState.RTS) {
        handReceives();
      }
    }

    @Override
    public void onSendComplete(long token) {
      if (!sq.markDone(token, 0, false)) {
        ignored("send completion", token);
        return;
      }
      retireSends();
      if (state == QpState.RTS) {
        progress();
      }
    }

    @Override
    public void onReadComplete(long token, long length) {
      if (!sq.markDone(token, length, true)) {
        ignored("read completion", token);
        return;
      }
      retireSends();
      if (state == QpState.RTS) {
        progress();
      }
    }

    @Override
    public void onReceive(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
      ReceiveQueue.Entry e = rq.deliveredTo(bufferId);
      if (e == null) {
        ignored("receive", bufferId);
        return;
      }
      WorkCompletion wc = stageRecv(e.wr, WcStatus.SUCCESS, opcode,
          Integer.toUnsignedLong(length), invalidatedStag, 0);
      rq.retireOldest(); // before the completion is visible: a poller may repost at once
      if (!deliverRecv(wc)) {
        completionRefused(recvCq);
      }
    }

    @Override
    public void onImmediateData(long bufferId, RdmapOpcode opcode, long data) {
      ReceiveQueue.Entry e = rq.deliveredTo(bufferId);
      if (e == null) {
        ignored("immediate data", bufferId);
        return;
      }
      WorkCompletion wc = stageImmediate(e.wr, opcode, data);
      rq.retireOldest();
      if (!deliverRecv(wc)) {
        completionRefused(recvCq);
      }
    }

    @Override
    public void onLocalProtectionError(long id, boolean receive) {
      // The endpoint's Local Catastrophic Terminate follows: report it here, with the charge.
      TerminateInfo t = new TerminateInfo(TerminateInfo.LAYER_RDMAP, LOCAL_CATASTROPHIC, 0, false);
      enterError(receive ? -1 : id, receive ? id : -1, WcStatus.LOC_PROT_ERR, t.vendorError(),
          TEARDOWN_NONE, t, (receive ? "receive " : "work request ") + "memory was deregistered"
          + " while in use (" + t + ")", true);
    }

    @Override
    public void onTerminateSent(int layer, int errorType, int errorCode) {
      terminate(new TerminateInfo(layer, errorType, errorCode, false));
    }

    @Override
    public void onTerminateWithheld(int layer, int errorType, int errorCode) {
      TerminateInfo t = new TerminateInfo(layer, errorType, errorCode, false);
      // Reported as an error without a Terminate: none was sent (RFC 5044 §7.1.2 rule 4).
      enterError(-1, -1, TerminateStatus.forSent(layer, errorType, errorCode), t.vendorError(),
          TEARDOWN_NONE, null, "closed without a Terminate: the peer's first FPDU failed ("
              + t.describe() + "), and nothing may be sent before an intact one (RFC 5044"
              + " §7.1.2 rule 4)", true);
    }

    @Override
    public void onTerminateReceived(int layer, int errorType, int errorCode) {
      terminate(new TerminateInfo(layer, errorType, errorCode, true));
    }

    @Override
    public void onDisconnected(boolean graceful) {
      disconnected(graceful);
    }

    private void ignored(String what, long token) {
      // After a flush, late reports of flushed work requests are expected.
      if (isLive()) {
        log.warn("queue pair {}: {} for unknown token {} ignored", number, what, token);
      }
    }
  }

  @Override
  public String toString() {
    return "QueuePair{" + number + ", " + state + ", sq=" + sq.outstanding() + "/"
        + caps.maxSendWr() + ", rq=" + rq.outstanding() + "/" + caps.maxRecvWr() + '}';
  }
}
