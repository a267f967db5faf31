package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.QpTeardown.TEARDOWN_ABORT;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.verbs.engine.EndpointPort;
import io.iwarp4j.verbs.engine.SendQueue;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue pair's send side (siw's qp_tx): issues send work requests to the RDMAP stream in
 * posting order, once per batch, within ORD, fences and the channel's writability; checks each
 * one's SGEs against the protection domain before it is issued; retires finished ones in send
 * queue order. Event loop only.
 */
final class SendIssuer {
  private static final Logger log = LoggerFactory.getLogger(QueuePair.class);

  private final QueuePair qp;
  private final int number;
  private final ProtectionDomain pd;
  private final StagTable stags;
  private final SendQueue sq;
  private final CompletionQueue sendCq;
  private final boolean signalAll;
  private final QpCompletions completions;
  private final QpTeardown teardown;
  private final SgePins sendPins;
  private final LocalMemoryOperations memoryOps;
  private boolean issuing;
  private boolean reissue;

  SendIssuer(QueuePair qp, SendQueue sq, boolean signalAll, QpCompletions completions,
      QpTeardown teardown) {
    this.qp = qp;
    this.number = qp.number();
    this.pd = qp.pd();
    this.stags = pd.ddp().table();
    this.sq = sq;
    this.sendCq = qp.sendCq();
    this.signalAll = signalAll;
    this.completions = completions;
    this.teardown = teardown;
    int maxSge = qp.capabilities().maxSendSge();
    this.sendPins = new SgePins(maxSge);
    this.memoryOps = new LocalMemoryOperations(pd);
  }

  /** Issues what may be issued; re-entrant calls (from completions) just ask for another pass. */
  void progress() {
    if (issuing) {
      reissue = true;
      return;
    }
    issuing = true;
    try {
      do {
        reissue = false;
        issueBatch();
      } while (reissue && qp.state() == QpState.RTS);
    } finally {
      issuing = false;
    }
  }

  private void issueBatch() {
    EndpointPort ep = qp.endpoint();
    int issued = 0;
    try {
      issued = issueAll(ep);
    } finally {
      sendPins.releaseHeld(); // before the flush, which may run application code
    }
    if (issued > 0 && qp.state() == QpState.RTS) {
      try {
        ep.flush();
      } catch (RuntimeException ex) {
        log.warn("queue pair {}: flushing the RDMAP endpoint failed", number, ex);
        teardown.enterError(sq.inFlight(), -1, WcStatus.LOC_QP_OP_ERR, 0, TEARDOWN_ABORT, null,
            "flushing failed: " + ex, true);
      }
    }
  }

  /** Issues work requests in order while they may go; returns how many were issued. */
  private int issueAll(EndpointPort ep) {
    int issued = 0;
    while (qp.state() == QpState.RTS && sq.hasUnissued()) {
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
      if (!issue(ep, e, sq.nextSequence(), read)) {
        return 0; // ERROR: nothing to flush
      }
      issued++;
    }
    return issued;
  }

  /** Checks and issues one work request; false when that moved the queue pair to ERROR. */
  private boolean issue(EndpointPort ep, SendQueue.Entry e, long seq, boolean read) {
    SendWorkRequest wr = e.wr;
    // An inline work request's list is empty (nothing to check or pin): its octets are in e.
    ScatterGatherList sgl = wr.sgl();
    WorkRequestOpcode opcode = wr.opcode();
    io.iwarp4j.ddp.mem.MemoryRegion result = null;
    if (opcode.isLocal()) {
      return issueLocal(ep, seq, wr);
    }
    if (opcode.isAtomic()) {
      result = resultRegion(wr);
      if (result == null) {
        return refuse(seq, wr, " names a local result buffer it may not write");
      }
    }
    if (e.inlineFailure() != null) {
      return refuse(seq, wr, ": its inline data could not be read when it was posted: "
          + e.inlineFailure());
    }
    if (!checkSges(sgl, read ? AccessFlags.LOCAL_WRITE : AccessFlags.NONE)) {
      return refuse(seq, wr, " names local memory it may not use");
    }
    sq.markIssued(read);
    try {
      if (result != null) {
        issueAtomic(ep, wr, seq, result);
      } else if (opcode == WorkRequestOpcode.IMMEDIATE_DATA
          || opcode == WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED) {
        ep.immediate(seq, wr.solicitsEvent(), wr.immData());
      } else if (read) {
        int sinkStag = sgl.buffer(0).stag();
        io.iwarp4j.ddp.mem.MemoryRegion sink = stags.lookup(sinkStag);
        if (sink == null) {
          // Closed by another thread since checkSges: a local protection error, as documented.
          return refuse(seq, wr, ": its sink region was deregistered while it was issued");
        }
        ep.read(seq, sinkStag, sink.baseTo() + sgl.offset(0), (int) sgl.totalLength(),
            wr.remoteStag(), wr.remoteAddress());
      } else {
        return issuePayload(ep, e, seq);
      }
    } catch (RuntimeException ex) {
      return refusedByEndpoint(seq, wr, ex);
    }
    return true;
  }

  /**
   * A Write, Write with Immediate or Send: pins, then hands the endpoint the entry itself as the
   * payload (DDP reads its SGEs in place, from the send views taken here, or its inline octets).
   */
  private boolean issuePayload(EndpointPort ep, SendQueue.Entry e, long seq) {
    SendWorkRequest wr = e.wr;
    ScatterGatherList sgl = wr.sgl();
    if (!sendPins.pinAll(sgl)) {
      return refuse(seq, wr, ": a region of it was deregistered while it was issued");
    }
    try {
      int n = sgl.count();
      for (int i = 0; i < n; i++) {
        e.sendView(i, sendView(sgl.buffer(i)));
      }
      WorkRequestOpcode opcode = wr.opcode();
      if (opcode == WorkRequestOpcode.RDMA_WRITE) {
        ep.write(seq, wr.remoteStag(), wr.remoteAddress(), e);
      } else if (opcode == WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE) {
        ep.writeWithImmediate(seq, wr.remoteStag(), wr.remoteAddress(), e,
            wr.solicitsEvent(), wr.immData());
      } else {
        RdmapOpcode op = sendOpcode(wr);
        ep.send(seq, op, op.carriesInvalidateStag() ? wr.invalidateStag() : 0, e);
      }
    } catch (RuntimeException ex) {
      return refusedByEndpoint(seq, wr, ex);
    } finally {
      e.dropSendViews();
      sendPins.unpinAll(); // the slices are cut and retained: they keep the memory now
    }
    return true;
  }

  /**
   * REG_MR or LOCAL_INV: done here, in send queue order, and complete at once (retired behind
   * the older work requests). A refusal fails the work request with LOC_QP_OP_ERR, as siw fails
   * a local operation, and the queue pair goes to ERROR.
   */
  private boolean issueLocal(EndpointPort ep, long seq, SendWorkRequest wr) {
    // LOCAL_INV waits for the region's pins: the batch's held pin (maybe on that very region)
    // must not make it wait for this loop.
    sendPins.releaseHeld();
    String failure = memoryOps.execute(wr, ep.streamScope());
    // The slot keeps no reference to the region or the buffer once it ran (it may wait long to
    // be reused, and a queue pair after reset() references no memory).
    wr.registration().clear();
    wr.windowBind().clear();
    if (failure != null) {
      // A failed bind is IBV_WC_MW_BIND_ERR; other local operations fail as siw's do.
      teardown.enterError(seq, -1, wr.opcode() == WorkRequestOpcode.BIND_MW
          ? WcStatus.MW_BIND_ERR : WcStatus.LOC_QP_OP_ERR, 0, TEARDOWN_ABORT, null,
          wr.opcode() + " wrId " + wr.wrId() + ": " + failure, true);
      return false;
    }
    sq.markIssued(false);
    sq.markDone(seq, 0, false);
    retireSends();
    return qp.state() == QpState.RTS;
  }

  private void issueAtomic(EndpointPort ep, SendWorkRequest wr, long seq,
      io.iwarp4j.ddp.mem.MemoryRegion result) {
    boolean fetchAdd = wr.opcode() == WorkRequestOpcode.ATOMIC_FETCH_ADD;
    ep.atomic(seq, fetchAdd ? AtomicOpcode.FETCH_ADD : AtomicOpcode.CMP_SWAP,
        wr.remoteStag(), wr.remoteAddress(), fetchAdd ? wr.addData() : wr.swapData(),
        fetchAdd ? wr.addMask() : wr.swapMask(), wr.compareData(), wr.compareMask(),
        result.stag(), result.baseTo() + wr.localResultOffset());
  }

  /** A local protection error found before issuing: the QP goes to ERROR (LOC_PROT_ERR). */
  private boolean refuse(long seq, SendWorkRequest wr, String why) {
    sendPins.releaseHeld(); // entering ERROR runs listeners, which may deregister the region
    teardown.enterError(seq, -1, WcStatus.LOC_PROT_ERR, 0, TEARDOWN_ABORT, null, wr.opcode()
        + " wrId " + wr.wrId() + why, true);
    return false;
  }

  private boolean refusedByEndpoint(long seq, SendWorkRequest wr, RuntimeException ex) {
    sendPins.releaseHeld();
    log.warn("queue pair {}: the RDMAP endpoint refused {} wrId {}", number, wr.opcode(),
        wr.wrId(), ex);
    teardown.enterError(seq, -1, WcStatus.LOC_QP_OP_ERR, 0, TEARDOWN_ABORT, null,
        "the RDMAP endpoint refused a work request: " + ex, true);
    return false;
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
  boolean checkSges(ScatterGatherList sgl, int required) {
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
  void retireSends() {
    SendQueue.Entry e;
    while ((e = sq.retirable()) != null) {
      boolean signaled = signalAll || e.wr.isSignaled();
      // What the completion needs, read before the slot is freed: a poller may repost at once,
      // so the slot is retired before the completion (written straight into the completion
      // queue's entry, no staged copy) is visible.
      long wrId = e.wr.wrId();
      WcOpcode opcode = e.wr.opcode().completionOpcode();
      long byteLen = e.byteLen;
      sq.retireOldest();
      boolean accepted = !signaled || completions.deliverSendSuccess(wrId, opcode, byteLen);
      if (!accepted) {
        teardown.completionRefused(sendCq);
        return;
      }
    }
  }

  /**
   * The view to slice send payloads from: a region's per-thread send view, so that slices this
   * event loop sends never share a root buffer with another thread's (Netty's scratch NIO view).
   */
  private static ByteBuf sendView(LocalBuffer b) {
    if (b instanceof FastRegisterRegion fr) {
      io.iwarp4j.ddp.mem.MemoryRegion r = fr.currentBinding();
      return r != null ? r.sendView() : b.buffer();
    }
    return b instanceof MemoryRegion mr ? mr.sendView() : b.buffer();
  }
}
