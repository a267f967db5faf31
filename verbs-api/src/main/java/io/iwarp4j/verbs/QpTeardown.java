package io.iwarp4j.verbs;

import io.iwarp4j.rdmap.RdmapCounters;
import io.iwarp4j.verbs.engine.EndpointPort;
import io.iwarp4j.verbs.engine.ReceiveQueue;
import io.iwarp4j.verbs.engine.SendQueue;
import io.iwarp4j.verbs.engine.TerminateStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue pair's error and teardown state machine: entering ERROR, flushing every outstanding
 * work request (the one charged with the error gets its status), mapping Terminates and
 * disconnects to completions, and ending the connection. Event loop only.
 */
final class QpTeardown {
  private static final Logger log = LoggerFactory.getLogger(QueuePair.class);

  /** Teardown of the connection when entering ERROR. */
  static final int TEARDOWN_NONE = 0;
  static final int TEARDOWN_GRACEFUL = 1;
  static final int TEARDOWN_ABORT = 2;

  /** RDMAP Terminate Error Type "Local Catastrophic Error" (RFC 5040 §4.8). */
  static final int LOCAL_CATASTROPHIC = 0;

  private final QueuePair qp;
  private final int number;
  private final SendQueue sq;
  private final ReceiveQueue rq;
  private final CompletionQueue sendCq;
  private final CompletionQueue recvCq;
  private final RdmapCounters counters;
  private final QpCompletions completions;
  private boolean cleanedUp;
  private boolean terminateSentReported;

  QpTeardown(QueuePair qp, SendQueue sq, ReceiveQueue rq, RdmapCounters counters,
      QpCompletions completions) {
    this.qp = qp;
    this.number = qp.number();
    this.sq = sq;
    this.rq = rq;
    this.sendCq = qp.sendCq();
    this.recvCq = qp.recvCq();
    this.counters = counters;
    this.completions = completions;
  }

  /** A completion queue refused a completion: overrun (or closed). ERROR, as verbs does. */
  void completionRefused(CompletionQueue cq) {
    QpState s = qp.state();
    if (s == QpState.ERROR || s == QpState.CLOSED) {
      return; // flushing into a dead queue; its overrun was reported once
    }
    String which = cq == sendCq ? "send" : "receive";
    enterError(-1, -1, null, 0, TEARDOWN_ABORT, null, "the " + which + " completion queue "
        + (cq.isOverrun() ? "overran" : "is closed") + " (capacity " + cq.capacity() + ")",
        true);
  }

  /**
   * Moves to ERROR (unless already ERROR or CLOSED), flushes every outstanding work request,
   * tears the connection down and reports the error.
   *
   * @param sendCharge the send work request that gets {@code status}, or -1
   * @param recvCharge the receive work request that gets {@code status}, or -1
   */
  void enterError(long sendCharge, long recvCharge, WcStatus status, int vendorError,
      int teardown, TerminateInfo terminate, String reason, boolean report) {
    if (!qp.moveToError()) {
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
    if (report && qp.events() != null) {
      counters.errorEvent();
      qp.events().onQpError(qp, terminate, reason);
    }
  }

  /** Completes every work request not yet retired: the charged ones with {@code status}. */
  void flushAll(long sendCharge, long recvCharge, WcStatus status, int vendorError) {
    sq.drain();
    rq.drain();
    SendQueue.Entry s;
    while ((s = sq.oldest()) != null) {
      boolean charged = sq.oldestSequence() == sendCharge && status != null;
      WorkCompletion wc = completions.stageSend(s.wr, charged ? status : WcStatus.WR_FLUSH_ERR, 0,
          charged ? vendorError : 0);
      countError(charged);
      sq.retireOldest();
      sendCq.offer(wc);
    }
    sq.abandonReads();
    ReceiveQueue.Entry r;
    while ((r = rq.oldest()) != null) {
      boolean charged = rq.oldestSequence() == recvCharge && status != null;
      WorkCompletion wc = completions.stageRecv(r.wr, charged ? status : WcStatus.WR_FLUSH_ERR,
          null, 0, 0, charged ? vendorError : 0);
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
    EndpointPort ep = qp.endpoint();
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

  /** The queue pair was reset (ERROR to INIT): a new connection starts with no Terminate. */
  void reset() {
    terminateSentReported = false;
  }

  void errorRequestedOnLoop() {
    enterError(-1, -1, null, 0, TEARDOWN_ABORT, null, "modifyToError()", true);
  }

  void closeOnLoop() {
    if (cleanedUp) {
      return;
    }
    cleanedUp = true;
    flushAll(-1, -1, null, 0);
    teardown(TEARDOWN_GRACEFUL);
  }

  void terminate(TerminateInfo t) {
    QpState s = qp.state();
    if (s == QpState.ERROR || s == QpState.CLOSED) {
      flushAll(-1, -1, null, 0);
      boolean duplicate = !t.receivedFromPeer() && terminateSentReported;
      terminateSentReported |= !t.receivedFromPeer();
      if (!duplicate && qp.events() != null) {
        counters.errorEvent();
        qp.events().onQpError(qp, t, t.toString());
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

  void disconnected(boolean graceful) {
    // The connection is closed already.
    enterError(graceful ? -1 : sq.inFlight(), -1, WcStatus.FATAL_ERR, 0, TEARDOWN_NONE, null,
        graceful ? "disconnected" : "the connection was lost", !graceful);
  }
}
