package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.QpTeardown.TEARDOWN_ABORT;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.verbs.engine.EndpointPort;
import io.iwarp4j.verbs.engine.ReceiveQueue;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue pair's receive side (siw's qp_rx, as far as the verbs layer goes): hands posted
 * receives to the RDMAP stream once their SGEs checked out, and completes them, in posting order,
 * when a Send or Immediate Data consumed them. Event loop only.
 */
final class QpReceiver {
  /**
   * A posted receive's view of each SGE's memory: a region's receive view names the region, so
   * placement pins it around each copy (never a bare duplicate of registered memory).
   */
  private static final Function<LocalBuffer, ByteBuf> RECEIVE_VIEWS =
      b -> b instanceof MemoryRegion mr ? mr.region().receiveView() : b.buffer().duplicate();

  private static final Logger log = LoggerFactory.getLogger(QueuePair.class);

  private final QueuePair qp;
  private final int number;
  private final ReceiveQueue rq;
  private final CompletionQueue recvCq;
  private final QpCompletions completions;
  private final QpTeardown teardown;
  private final SendIssuer sender;

  QpReceiver(QueuePair qp, ReceiveQueue rq, QpCompletions completions, QpTeardown teardown,
      SendIssuer sender) {
    this.qp = qp;
    this.number = qp.number();
    this.rq = rq;
    this.recvCq = qp.recvCq();
    this.completions = completions;
    this.teardown = teardown;
    this.sender = sender;
  }

  /** Hands receives taken from the ring to the endpoint. */
  void handReceives() {
    EndpointPort ep = qp.endpoint();
    while (rq.hasUnhanded() && qp.isLive()) {
      ReceiveQueue.Entry e = rq.nextUnhanded();
      long id = rq.nextUnhandedSequence();
      ScatterGatherList sgl = e.wr.sgl();
      if (!sender.checkSges(sgl, AccessFlags.LOCAL_WRITE)) {
        teardown.enterError(-1, id, WcStatus.LOC_PROT_ERR, 0, TEARDOWN_ABORT, null,
            "receive wrId " + e.wr.wrId() + " names memory this queue pair may not write", true);
        return;
      }
      e.preparePieces(RECEIVE_VIEWS);
      rq.markHanded();
      try {
        ep.postReceive(id, e.pieces, e.pieceCount);
      } catch (RuntimeException ex) {
        log.warn("queue pair {}: the RDMAP endpoint refused receive {}", number, id, ex);
        teardown.enterError(-1, id, WcStatus.LOC_QP_OP_ERR, 0, TEARDOWN_ABORT, null,
            "the RDMAP endpoint refused a receive: " + ex, true);
        return;
      }
    }
  }

  /**
   * A Send was placed into posted receive {@code bufferId}: complete it.
   *
   * @return false when no outstanding receive has that id (late report after a flush)
   */
  boolean received(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
    ReceiveQueue.Entry e = rq.deliveredTo(bufferId);
    if (e == null) {
      return false;
    }
    long wrId = e.wr.wrId();
    rq.retireOldest(); // before the completion is visible: a poller may repost at once
    // Written straight into the completion queue's entry: no staged copy to copy again.
    if (!completions.deliverRecvSuccess(wrId, opcode, Integer.toUnsignedLong(length),
        invalidatedStag)) {
      teardown.completionRefused(recvCq);
    }
    return true;
  }

  /**
   * Immediate Data consumed posted receive {@code bufferId}: complete it with the data.
   *
   * @return false when no outstanding receive has that id (late report after a flush)
   */
  boolean immediateReceived(long bufferId, RdmapOpcode opcode, long data) {
    ReceiveQueue.Entry e = rq.deliveredTo(bufferId);
    if (e == null) {
      return false;
    }
    WorkCompletion wc = completions.stageImmediate(e.wr, opcode, data);
    rq.retireOldest();
    if (!completions.deliverRecv(wc)) {
      teardown.completionRefused(recvCq);
    }
    return true;
  }
}
