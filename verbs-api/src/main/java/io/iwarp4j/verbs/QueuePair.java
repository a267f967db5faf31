package io.iwarp4j.verbs;

import io.iwarp4j.rdmap.RdmapCounters;
import io.iwarp4j.rdmap.RdmapEndpointListener;
import io.iwarp4j.rdmap.ReadResponseCopyBudget;
import io.iwarp4j.verbs.engine.EndpointPort;
import io.iwarp4j.verbs.engine.QpEventSink;
import io.iwarp4j.verbs.engine.QpLoop;
import io.iwarp4j.verbs.engine.ReceiveQueue;
import io.iwarp4j.verbs.engine.SendQueue;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
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
 * receives may be posted from INIT on. {@link #reset()} takes a queue pair in ERROR back to INIT
 * for a new connection; {@link #query()} returns its attributes.
 */
public final class QueuePair implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(QueuePair.class);

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(QueuePair.class, "state", QpState.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final int number;
  private final ProtectionDomain pd;
  private final CompletionQueue sendCq;
  private final CompletionQueue recvCq;
  private final QueuePairCapabilities caps;
  private final SendQueue sq;
  private final ReceiveQueue rq;
  // The event loop side, by concern (as siw's qp_tx, qp_rx, cq and qp): see each class.
  private final QpCompletions completions;
  private final QpTeardown teardown;
  private final SendIssuer sender;
  private final QpReceiver receiver;
  private final QpEndpointEvents endpointEvents;
  /** The event loop and connection, and the connection manager's hooks (siw's cm). */
  private final QpBinding binding;
  /** reset() and close(), which run on the loop and wait for it. */
  private final QpLifecycle lifecycle;
  /** The shared receive queue this queue pair takes receives from, or null. */
  private final SharedReceiveQueue srq;
  /** Takes them, on the event loop; null without a shared receive queue. */
  private final SharedReceives sharedReceives;
  /** Traffic and error counters, written by the event loop (see RdmapCounters). */
  private final RdmapCounters counters = new RdmapCounters();
  private final ReadResponseCopyBudget readResponseCopies;
  /** The name of this queue pair's counters MBean, or null (set by the device). */
  volatile javax.management.ObjectName countersMBean;

  private volatile QpState state = QpState.RESET;

  /**
   * Builds a queue pair in RESET and moves it to INIT.
   *
   * @param device the owning device; null in tests
   */
  QueuePair(RdmaDevice device, int number, ProtectionDomain pd, CompletionQueue sendCq,
      CompletionQueue recvCq, QueuePairCapabilities caps, boolean signalAll) {
    this(device, number, pd, sendCq, recvCq, caps, signalAll, null);
  }

  /**
   * As above, attached to {@code srq} when not null: its receive queue then only holds the
   * receives taken from {@code srq} (capacity {@code caps.maxRecvWr()}).
   */
  QueuePair(RdmaDevice device, int number, ProtectionDomain pd, CompletionQueue sendCq,
      CompletionQueue recvCq, QueuePairCapabilities caps, boolean signalAll,
      SharedReceiveQueue srq) {
    this.readResponseCopies = device != null ? device.readResponseCopies()
        : new ReadResponseCopyBudget(ReadResponseCopyBudget.DEFAULT_CAPACITY);
    this.number = number;
    this.pd = Objects.requireNonNull(pd, "pd");
    this.sendCq = Objects.requireNonNull(sendCq, "sendCq");
    this.recvCq = Objects.requireNonNull(recvCq, "recvCq");
    this.caps = Objects.requireNonNull(caps, "caps");
    this.sq = new SendQueue(caps.maxSendWr(), caps.maxSendSge(), caps.maxInlineData(),
        InlineData::gather, this::wakeUp);
    // Receives taken from a shared queue are posted on the loop itself: no wake-up.
    this.rq = new ReceiveQueue(caps.maxRecvWr(), caps.maxRecvSge(),
        srq == null ? this::receivePosted : SharedReceives.NO_WAKE_UP);
    this.completions = new QpCompletions(this);
    this.teardown = new QpTeardown(this, sq, rq, counters, completions);
    this.sender = new SendIssuer(this, sq, signalAll, completions, teardown);
    this.receiver = new QpReceiver(this, rq, completions, teardown, sender);
    this.endpointEvents = new QpEndpointEvents(this, sq, rq, sender, receiver, teardown);
    this.binding = new QpBinding(this, device, sq, rq, teardown, sender, receiver);
    this.lifecycle = new QpLifecycle(this, device, rq, binding, teardown);
    this.srq = srq;
    this.sharedReceives = srq == null ? null : new SharedReceives(this, srq, rq, receiver);
    pd.queuePairOpened(this);
    sendCq.attach(this);
    recvCq.attach(this);
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
   * The shared receive queue this queue pair takes its receives from
   * ({@link QueuePairConfig.Builder#sharedReceiveQueue}).
   *
   * @return the shared receive queue, or null when the queue pair has a receive queue of its own
   */
  public SharedReceiveQueue sharedReceiveQueue() {
    return srq;
  }

  /**
   * The connection this queue pair runs over, once its MPA handshake is done.
   *
   * @return the connection, or null before
   */
  public RdmaConnection connection() {
    return binding.connection();
  }

  /**
   * The queue pair's attributes now, like {@code ibv_query_qp}: state, capabilities and, once a
   * connection exists, what its MPA startup negotiated (IRD/ORD, CRC, Markers, revision,
   * peer-to-peer and RTR type) and its addresses. An immutable snapshot, callable from any thread
   * at any time; the queue pair may move on at once. Not for the data path: it allocates.
   *
   * @return the attributes
   */
  public QueuePairAttributes query() {
    QpState s = state;
    RdmaConnection c = binding.connection();
    return c == null
        ? new QueuePairAttributes(number, s, caps, -1, -1, null, null, null)
        : new QueuePairAttributes(number, s, caps, c.ird(), c.ord(), c.mpaInfo(),
            c.localAddress(), c.remoteAddress());
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
    into.wakeUps(0, 0);
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
   * Binds a type 1 memory window ({@code ibv_bind_mw}): octets {@code [offset, offset + length)}
   * of {@code region} (registered with {@link AccessFlags#MW_BIND}) with {@code access}, under
   * a new key, usable on every connection of the protection domain. Runs on this queue pair's
   * send queue in order with the other work requests and completes like one (opcode
   * {@link WcOpcode#BIND_MW}; {@link WcStatus#MW_BIND_ERR} when it fails as it runs, see
   * {@link WorkRequestOpcode#BIND_MW}); it replaces the window's current binding, and
   * {@code length} 0 unbinds it. Allocates one work request per call (not a data-path verb).
   *
   * @param window a {@link MemoryWindowType#TYPE_1} window of this queue pair's domain
   * @param wrId the completion's work request id
   * @param flags {@link SendFlags} ({@code SIGNALED}, {@code FENCE})
   * @param region the region to bind into
   * @param offset the first octet of the region bound
   * @param length the octets bound; 0 unbinds
   * @param access {@code REMOTE_READ}, {@code REMOTE_WRITE}, {@code REMOTE_ATOMIC}, each granted
   *     by the region too (ignored when unbinding)
   * @return the window's STag once the bind ran (its new {@code rkey}), as {@code mw->rkey}
   * @throws IllegalArgumentException for a type 2 window (bind it with a
   *     {@link WorkRequestOpcode#BIND_MW} work request) or a malformed bind
   * @throws IllegalStateException when the queue pair is not in RTS
   */
  public int bindMemoryWindow(MemoryWindow window, long wrId, int flags, MemoryRegion region,
      long offset, int length, int access) {
    Objects.requireNonNull(window, "window");
    if (window.type() != MemoryWindowType.TYPE_1) {
      throw new IllegalArgumentException("memory window " + window + " is of type "
          + window.type() + ": bind it with a BIND_MW work request (IBV_WR_BIND_MW)");
    }
    int stag = length == 0 ? window.stag() : window.nextStag();
    postSend(new SendWorkRequest(0).wrId(wrId).opcode(WorkRequestOpcode.BIND_MW).flags(flags)
        .bindType1(window, stag, region, offset, length, access));
    return stag;
  }

  /**
   * Posts a send work request, like {@code ibv_post_send}. The request is copied; reuse it at
   * once. With {@link SendFlags#INLINE} its payload is copied too, so its buffers may be reused
   * at once as well. Lock-free, allocation-free.
   *
   * @param wr the work request: any {@link WorkRequestOpcode}; the RFC 7306 ones (Atomics,
   *     Immediate Data, RDMA Write with Immediate) when {@link QueuePairCapabilities#rfc7306()}
   * @throws IllegalStateException before {@link QpState#RTS} or after {@link #close()}, naming
   *     the state (in {@link QpState#ERROR} the request is accepted and flushed)
   * @throws UnsupportedOperationException for an RFC 7306 opcode on a queue pair without RFC 7306
   * @throws IllegalArgumentException when the request is incomplete, exceeds the queue pair's
   *     SGE limit or {@link QueuePairCapabilities#maxInlineData()}, or is {@link SendFlags#INLINE}
   *     with an opcode that sends no local data or with a closed {@link MemoryRegion} (see
   *     {@link SendWorkRequest#validate(int, int)}); nothing was posted
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
      RdmaConnection c = binding.connection();
      if (c != null && c.ord() == 0) {
        // Nothing could ever issue it (siw refuses such a post with EINVAL).
        throw new IllegalStateException(op + " (wrId " + wr.wrId() + ") on queue pair " + number
            + ": the negotiated ORD is 0 (ORD 0), so no RDMA Read or Atomic may be outstanding;"
            + " ask for ORD > 0 (QueuePairConfig.ord) from a peer with IRD > 0");
      }
    }
    wr.validate(caps.maxSendSge(), caps.maxInlineData());
    sq.post(wr);
  }

  /**
   * Posts a receive work request, like {@code ibv_post_recv}: buffers for the next incoming
   * Send. Allowed from {@link QpState#INIT} on; receives posted before the connection exists
   * are handed to it when it does. The request is copied; reuse it at once. Lock-free,
   * allocation-free. Posted from another thread while the queue pair is connected, it wakes no
   * event loop: the loop takes it when a message finds no receive handed over, or with the next
   * send drain.
   *
   * @param wr the work request
   * @throws IllegalStateException after {@link #close()} (in {@link QpState#ERROR} the request is
   *     accepted and flushed), or when the queue pair is attached to a shared receive queue
   *     (post to that instead)
   * @throws IllegalArgumentException when the request exceeds the queue pair's SGE limit
   * @throws WorkQueueFullException when {@link QueuePairCapabilities#maxRecvWr()} receive work
   *     requests are outstanding; nothing was posted
   */
  public void postRecv(RecvWorkRequest wr) {
    Objects.requireNonNull(wr, "wr");
    if (srq != null) {
      throw new IllegalStateException("postRecv on queue pair " + number + " (wrId " + wr.wrId()
          + "): it takes its receives from shared receive queue " + srq.number()
          + "; post to SharedReceiveQueue.postRecv instead");
    }
    QpState s = state;
    if (!s.acceptsReceives()) {
      throw new IllegalStateException(refusal("postRecv", s, "the queue pair is gone"));
    }
    wr.validate(caps.maxRecvSge());
    QpLoop l = binding.loop();
    if (l != null && (s == QpState.RTR || s == QpState.RTS) && l.inEventLoop()) {
      // Reposting from this queue pair's own loop (a completion listener): straight into the
      // table and handed over now, no ring slot and no wake-up task.
      rq.postOnLoop(wr);
      receiver.handReceives();
    } else {
      rq.post(wr);
    }
  }

  String refusal(String what, QpState s, String why) {
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
    binding.requestError();
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
    lifecycle.close(previous);
  }

  /**
   * {@link #close()} without waiting for the event loop (the device closes every queue pair at
   * once, under one bound): the future completes once the flush has run there.
   */
  CompletableFuture<Void> closeAsync() {
    QpState previous = (QpState) STATE.getAndSet(this, QpState.CLOSED);
    if (previous == QpState.CLOSED) {
      return CompletableFuture.completedFuture(null);
    }
    return lifecycle.closeAsync(previous);
  }

  /** Releases a queue pair whose {@link #closeAsync} did not finish within the device's bound. */
  void releaseAfterClose() {
    lifecycle.releaseAfterClose();
  }

  /**
   * Resets a queue pair in {@link QpState#ERROR} for reuse with a new connection, like
   * {@code ibv_modify_qp} to {@code IBV_QPS_RESET} followed by the move to {@code IBV_QPS_INIT}
   * that {@code rdma_create_qp} makes: afterwards the queue pair is in {@link QpState#INIT} and
   * may be connected again ({@link RdmaDevice#connect} or {@link ConnectRequest#accept}).
   *
   * <p>Before it returns: the old connection's TCP connection has closed (reset waits, a bounded
   * time, and closes it itself if it is still closing); every work request posted before reset
   * was called has completed exactly once (those not yet flushed complete with {@link
   * WcStatus#WR_FLUSH_ERR} now); both queues are empty; and the queue pair holds no reference to
   * the old connection or to registered memory (posted receives' views, send SGEs). Work
   * requests posted while reset runs may be flushed or refused. The counters and the queue pair
   * number stay; {@link #query()} shows no connection until the next one is established.
   *
   * <p>Only from ERROR (a disconnect, a Terminate, a lost connection or {@link
   * #modifyToError()} lead there): in INIT, RTR and RTS it throws. This differs from libibverbs,
   * which also takes a connected queue pair to RESET; here, disconnect first ({@link
   * RdmaConnection#disconnect()}) or call {@link #modifyToError()}.
   *
   * @throws IllegalStateException in any state but ERROR, naming it; or when called on the event
   *     loop while the old connection is still closing; or when that connection did not close
   *     in time
   */
  public void reset() {
    lifecycle.reset();
  }

  /** Run by a poster when the loop should drain (once per batch, see MpscSlotRing). */
  private void wakeUp() {
    binding.wakeUp();
  }

  /**
   * Run by a receive poster instead of {@link #wakeUp}: while the queue pair is RTR or RTS on a
   * bound loop, a receive posted from another thread waits in its ring, and the loop takes it
   * when a message finds no receive handed over ({@link QpEndpointEvents#onReceiveBufferNeeded})
   * or with the next drain of the send ring, whichever comes first: no wake-up of a sleeping
   * loop per reposted receive (in a parked ping-pong that reposts after each answer, one eventfd
   * write and one epoll wake-up per round trip). In any other state a drain is queued as
   * before: INIT binds and drains later, ERROR and CLOSED must flush it.
   *
   * <p>No receive is stranded: the poster published its slot (a volatile write) before it reads
   * the state here (a volatile read), and the loop writes ERROR or CLOSED before the drain that
   * flushes; so either this read sees the new state and queues a drain, or that drain sees the
   * slot.
   */
  private void receivePosted() {
    if (isLive() && binding.loop() != null) {
      return;
    }
    binding.wakeUp();
  }

  // ---- event loop side ----

  /** The event loop and connection binding: the connection manager's hooks. */
  QpBinding binding() {
    return binding;
  }

  /** Takes receives from the shared receive queue (event loop), or null without one. */
  SharedReceives sharedReceives() {
    return sharedReceives;
  }

  /** The callbacks the RDMAP endpoint reports to. */
  RdmapEndpointListener endpointListener() {
    return endpointEvents;
  }

  /** The bound event loop, or null before. */
  QpLoop loop() {
    return binding.loop();
  }

  /** The RDMAP endpoint once attached (event loop only), or null before. */
  EndpointPort endpoint() {
    return binding.endpoint();
  }

  /** Where errors are reported once attached (event loop only), or null before. */
  QpEventSink events() {
    return binding.events();
  }

  /**
   * One of this queue pair's completion queues overran (any thread): a connected queue pair
   * moves to ERROR on its event loop, with the events of a refused completion
   * ({@link QpTeardown#completionRefused}); one already in ERROR or CLOSED does nothing.
   */
  void completionQueueOverran(CompletionQueue cq) {
    QpLoop l = binding.loop();
    if (l != null && isLive()) {
      binding.execute(l, () -> teardown.completionRefused(cq));
    }
  }

  /** Whether the queue pair is RTR or RTS. */
  boolean isLive() {
    QpState s = state;
    return s == QpState.RTR || s == QpState.RTS;
  }

  /** Moves the state from {@code from} to {@code to}; false when it was not {@code from}. */
  boolean moveState(QpState from, QpState to) {
    return STATE.compareAndSet(this, from, to);
  }

  /** INIT, RTR or RTS to ERROR; false when already ERROR or CLOSED. */
  boolean moveToError() {
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

  @Override
  public String toString() {
    return "QueuePair{" + number + ", " + state + ", sq=" + sq.outstanding() + "/"
        + caps.maxSendWr() + ", rq=" + rq.outstanding() + "/" + caps.maxRecvWr() + '}';
  }
}
