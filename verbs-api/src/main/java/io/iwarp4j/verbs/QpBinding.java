package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.QpTeardown.TEARDOWN_GRACEFUL;
import static io.iwarp4j.verbs.QpTeardown.TEARDOWN_NONE;

import io.iwarp4j.verbs.engine.EndpointPort;
import io.iwarp4j.verbs.engine.LoopTask;
import io.iwarp4j.verbs.engine.QpEventSink;
import io.iwarp4j.verbs.engine.QpLoop;
import io.iwarp4j.verbs.engine.ReceiveQueue;
import io.iwarp4j.verbs.engine.SendQueue;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue pair's binding to its connection (siw's cm side of a QP): the connection manager's
 * hooks (claim, bind the event loop, attach the RDMAP endpoint, enable sending, failure,
 * disconnect, channel closed, writability), the event loop everything but posting runs on, and
 * the wake-up and drain of the posting rings on it. A loop is bound once per connection attempt;
 * {@link #unbind()} (reset) forgets it and the connection.
 */
final class QpBinding {
  private static final Logger log = LoggerFactory.getLogger(QueuePair.class);

  private final QueuePair qp;
  private final RdmaDevice device;
  private final int number;
  private final SendQueue sq;
  private final ReceiveQueue rq;
  private final QpTeardown teardown;
  private final SendIssuer sender;
  private final QpReceiver receiver;
  /** The drain a poster asks for, batched on the loop with other queue pairs' (QpLoop.schedule). */
  private final LoopTask drainTask = new LoopTask() {
    @Override
    public void run() {
      drainOnLoop();
    }
  };
  /** Set by a connection attempt (or by a close/error before any); cleared by unbind(). */
  private final AtomicBoolean claimed = new AtomicBoolean();
  /** Taken once by {@link #bindLoop} and by {@link #collectUses} before a loop is bound. */
  private final Object bindLock = new Object();

  /** The event loop everything but posting runs on; set once per connection attempt. */
  private volatile QpLoop loop;
  private volatile boolean closeRequested;
  private volatile boolean errorRequested;
  private volatile RdmaConnection connection;

  // ---- event loop only ----
  private EndpointPort endpoint;
  private QpEventSink events;

  QpBinding(QueuePair qp, RdmaDevice device, SendQueue sq, ReceiveQueue rq, QpTeardown teardown,
      SendIssuer sender, QpReceiver receiver) {
    this.qp = qp;
    this.device = device;
    this.number = qp.number();
    this.sq = sq;
    this.rq = rq;
    this.teardown = teardown;
    this.sender = sender;
    this.receiver = receiver;
  }

  /** The bound event loop, or null before. */
  QpLoop loop() {
    return loop;
  }

  /** The RDMAP endpoint once attached (event loop only), or null before. */
  EndpointPort endpoint() {
    return endpoint;
  }

  /** Where errors are reported once attached (event loop only), or null before. */
  QpEventSink events() {
    return events;
  }

  /** The connection once its MPA handshake is done, or null before (and after reset). */
  RdmaConnection connection() {
    return connection;
  }

  /** Whether a connection attempt (or a close/error before any) has claimed the queue pair. */
  boolean claimed() {
    return claimed.get();
  }

  // ---- connection manager hooks ----

  /**
   * Reserves the queue pair for a connection attempt (again after {@link QueuePair#reset()}).
   *
   * @throws IllegalStateException when it is not in INIT or already used
   */
  void claimForConnection() {
    QpState s = qp.state();
    if (s != QpState.INIT) {
      throw new IllegalStateException("queue pair " + number + " is in state " + s
          + "; a connection needs a queue pair in INIT (a new one, or one reset() after its"
          + " connection ended)");
    }
    if (!claimed.compareAndSet(false, true)) {
      throw new IllegalStateException("queue pair " + number
          + " is already used by a connection; create another, or reset() this one once that"
          + " connection has ended");
    }
  }

  /**
   * Binds the event loop; called once per connection attempt (reset unbinds it), on that loop.
   * Drains what was posted so far.
   */
  void bindLoop(QpLoop l) {
    synchronized (bindLock) { // once per queue pair: a scan before the loop is bound may drain
      if (loop != null) {
        throw new IllegalStateException("queue pair " + number + " is already bound to " + loop);
      }
      loop = l;
    }
    drainOnLoop();
    if (closeRequested) {
      teardown.closeOnLoop();
    } else if (errorRequested) {
      teardown.errorRequestedOnLoop();
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
    if (!qp.moveState(QpState.INIT, QpState.RTR)) {
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
    if (!qp.moveState(QpState.RTR, QpState.RTS)) {
      return false;
    }
    log.debug("queue pair {} is RTS", number);
    drainOnLoop();
    return true;
  }

  /** The connection attempt failed before RTR: flush what was posted (ERROR, no event). */
  void connectionFailed(String reason) {
    checkLoop("connectionFailed");
    teardown.enterError(-1, -1, null, 0, TEARDOWN_NONE, null, reason, false);
  }

  /** Disconnect requested locally (rdma_disconnect): flush, close gracefully, no ERROR event. */
  void disconnect() {
    checkLoop("disconnect");
    teardown.enterError(-1, -1, null, 0, TEARDOWN_GRACEFUL, null, "disconnected locally", false);
  }

  /** The channel closed without the endpoint saying why. */
  void channelClosed() {
    checkLoop("channelClosed");
    teardown.enterError(sq.inFlight(), -1, WcStatus.FATAL_ERR, 0, TEARDOWN_NONE, null,
        "the connection closed", true);
  }

  /** The channel became writable again: issue what waited. */
  void writabilityChanged() {
    if (qp.state() == QpState.RTS && endpoint != null && endpoint.isWritable()) {
      sender.progress();
    }
  }

  /**
   * Appends the queue pair's outstanding work requests that use {@code region} (see {@link
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
    return RegionUses.collectOnLoop(loop, number, sq, rq, region, into);
  }

  // ---- requests from any thread ----

  /** {@link QueuePair#modifyToError()}: ERROR on the loop, now or once one is bound. */
  void requestError() {
    errorRequested = true;
    QpLoop l = loopOrStandalone();
    if (l != null) {
      execute(l, teardown::errorRequestedOnLoop);
    }
  }

  /**
   * Marks the queue pair closed for a loop bound later; returns the loop to close it on, or null
   * (see {@link #loopOrStandalone()}).
   */
  QpLoop requestClose() {
    closeRequested = true;
    return loopOrStandalone();
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
      QpLoop standalone = device.qpLoop(device.nextLoop());
      execute(standalone, () -> bindLoop(standalone));
      return standalone;
    }
    // Claimed by a connection attempt: it binds soon and then sees the request flags. Look
    // again in case it bound meanwhile (handling a request twice is harmless).
    return loop;
  }

  void execute(QpLoop l, Runnable task) {
    try {
      l.execute(task);
    } catch (RejectedExecutionException e) {
      rejected(e);
    }
  }

  private void rejected(RejectedExecutionException e) {
    log.debug("queue pair {}: event loop rejected a task (device closing): {}", number,
        e.toString());
  }

  /** The queue-pair loop of event loop {@code e}: the device's shared one (tests: a plain one). */
  QpLoop loopFor(EventExecutor e) {
    return device != null ? device.qpLoop(e) : QpLoop.of(e);
  }

  /** Run by a poster when the loop should drain (once per batch, see MpscSlotRing). */
  void wakeUp() {
    QpLoop l = loop;
    if (l == null) {
      return; // no loop yet: the ring keeps the posts; bindLoop drains them
    }
    try {
      // A drain already waiting is not queued again (LoopTask): the send and the receive ring
      // each ask for one, and a receive reposted right before a Send would ask twice.
      if (l.schedule(drainTask) && device != null && !l.inEventLoop()) {
        device.wakeUps().loopWokenUp();
      }
    } catch (RejectedExecutionException e) {
      rejected(e);
    }
  }

  private void drainOnLoop() {
    QpLoop l = loop;
    if (l == null || !l.inEventLoop()) {
      // A drain queued on the loop of a connection since reset: the next loop's bindLoop
      // drains what was posted (the ring stays SCHEDULED until then, so nothing is lost).
      return;
    }
    sq.drain();
    rq.drain();
    QpState s = qp.state();
    if (s == QpState.ERROR || s == QpState.CLOSED) {
      teardown.flushAll(-1, -1, null, 0);
      return;
    }
    if (s == QpState.RTR || s == QpState.RTS) {
      receiver.handReceives();
      if (qp.state() == QpState.RTS) {
        sender.progress();
      }
    }
  }

  /** Reset, on the loop: forgets the connection and unbinds the loop for the next one. */
  void unbind() {
    endpoint = null;
    events = null;
    connection = null;
    errorRequested = false;
    synchronized (bindLock) {
      loop = null; // the next connection binds its own channel's loop
    }
    claimed.set(false);
  }

  void checkLoop(String what) {
    QpLoop l = loop;
    if (l == null || !l.inEventLoop()) {
      throw new IllegalStateException(what + " must run on queue pair " + number
          + "'s event loop (" + l + "), not on " + Thread.currentThread().getName());
    }
  }
}
