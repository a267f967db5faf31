package io.iwarp4j.verbs;

import io.iwarp4j.verbs.engine.LoopTask;
import io.iwarp4j.wire.RdmapOpcode;
import java.util.concurrent.RejectedExecutionException;

/**
 * A queue pair's completion staging and per-turn completion queue signalling (siw's cq): fills
 * the one reused {@link WorkCompletion}, adds successful completions quietly and wakes pollers
 * and fires notifications once at the end of the event loop turn. Event loop only.
 */
final class QpCompletions {
  private final QueuePair qp;
  private final int number;
  private final CompletionQueue sendCq;
  private final CompletionQueue recvCq;
  private final WorkCompletion completion = new WorkCompletion();
  /** Wakes pollers and fires notifications for the completions of one loop turn. */
  private final LoopTask signalTask = new LoopTask() {
    @Override
    public void run() {
      signalCompletions();
    }
  };
  // Completions added quietly and not signaled yet (see deliverSendSuccess).
  private boolean signalScheduled;
  private boolean sendCqUnsignaled;
  private boolean recvCqUnsignaled;
  private boolean recvSolicitedUnsignaled;

  QpCompletions(QueuePair qp) {
    this.qp = qp;
    this.number = qp.number();
    this.sendCq = qp.sendCq();
    this.recvCq = qp.recvCq();
  }

  /**
   * Adds a staged receive completion (Immediate Data), signalled as
   * {@link #deliverSendSuccess}.
   */
  boolean deliverRecv(WorkCompletion wc) {
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
      // From the loop itself: queued behind this turn's work, batched with other queue pairs'.
      qp.loop().schedule(signalTask);
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
  WorkCompletion stageSend(SendWorkRequest wr, WcStatus status, long byteLen,
      int vendorError) {
    return fillSend(completion, wr.wrId(), status, wr.opcode().completionOpcode(), byteLen,
        vendorError);
  }

  private WorkCompletion fillSend(WorkCompletion wc, long wrId, WcStatus status,
      WcOpcode opcode, long byteLen, int vendorError) {
    wc.reset()
        .wrId(wrId)
        .status(status)
        .opcode(opcode)
        .qpNumber(number)
        .vendorError(vendorError);
    if (status == WcStatus.SUCCESS && byteLen > 0) {
      wc.byteLen(byteLen);
    }
    return wc;
  }

  /**
   * Adds the successful completion of a send work request already retired, written straight
   * into the completion queue's entry (no staged copy), without waking anyone yet;
   * {@link #signalCompletions}, run once at the end of this loop turn, wakes the poller and fires
   * the notification. One wake-up per batch instead of one per completion: a poller woken by the
   * first completion of a flush would otherwise take one, post one, park again and be woken
   * again, a futex round trip per message on both threads.
   *
   * @return false when the completion queue refused it
   */
  boolean deliverSendSuccess(long wrId, WcOpcode opcode, long byteLen) {
    long pos = sendCq.claimQuietly();
    if (pos < 0) {
      return false;
    }
    try {
      fillSend(sendCq.claimedEntry(pos), wrId, WcStatus.SUCCESS, opcode, byteLen, 0);
    } finally {
      sendCq.publishClaimed(pos); // never a claimed entry left unpublished: pollers stop at it
    }
    sendCqUnsignaled = true;
    scheduleSignal();
    return true;
  }

  /**
   * Adds the successful completion of a receive already retired, written straight into the
   * completion queue's entry (no staged copy), signalled as {@link #deliverSendSuccess}.
   *
   * @return false when the completion queue refused it
   */
  boolean deliverRecvSuccess(long wrId, RdmapOpcode opcode, long length, int invalidatedStag) {
    long pos = recvCq.claimQuietly();
    if (pos < 0) {
      return false;
    }
    boolean solicited;
    try {
      solicited = fillRecv(recvCq.claimedEntry(pos), wrId, WcStatus.SUCCESS, opcode, length,
          invalidatedStag, 0).solicited(); // read before publishing: then it is the pollers'
    } finally {
      recvCq.publishClaimed(pos); // never a claimed entry left unpublished: pollers stop at it
    }
    recvCqUnsignaled = true;
    recvSolicitedUnsignaled |= solicited;
    scheduleSignal();
    return true;
  }

  WorkCompletion stageImmediate(RecvWorkRequest wr, RdmapOpcode opcode, long data) {
    return completion.reset()
        .wrId(wr.wrId())
        .status(WcStatus.SUCCESS)
        .opcode(WcOpcode.RECV_IMMEDIATE_DATA)
        .qpNumber(number)
        .immData(data)
        .solicited(opcode == RdmapOpcode.IMMEDIATE_DATA_WITH_SE);
  }

  /** Fills the reused completion for {@code wr} (offered by the caller, after retiring it). */
  WorkCompletion stageRecv(RecvWorkRequest wr, WcStatus status, RdmapOpcode opcode,
      long length, int invalidatedStag, int vendorError) {
    return fillRecv(completion, wr.wrId(), status, opcode, length, invalidatedStag, vendorError);
  }

  private WorkCompletion fillRecv(WorkCompletion wc, long wrId, WcStatus status,
      RdmapOpcode opcode, long length, int invalidatedStag, int vendorError) {
    wc.reset()
        .wrId(wrId)
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
}
