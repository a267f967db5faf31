package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.QpTeardown.LOCAL_CATASTROPHIC;
import static io.iwarp4j.verbs.QpTeardown.TEARDOWN_NONE;

import io.iwarp4j.rdmap.RdmapEndpointListener;
import io.iwarp4j.verbs.engine.ReceiveQueue;
import io.iwarp4j.verbs.engine.SendQueue;
import io.iwarp4j.verbs.engine.TerminateStatus;
import io.iwarp4j.wire.RdmapOpcode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMAP endpoint's callbacks to a queue pair, all on its event loop: each goes to the side
 * it concerns (send, receive, teardown).
 */
final class QpEndpointEvents implements RdmapEndpointListener {
  private static final Logger log = LoggerFactory.getLogger(QueuePair.class);

  private final QueuePair qp;
  private final int number;
  private final SendQueue sq;
  private final ReceiveQueue rq;
  private final SendIssuer sender;
  private final QpReceiver receiver;
  private final QpTeardown teardown;

  QpEndpointEvents(QueuePair qp, SendQueue sq, ReceiveQueue rq, SendIssuer sender,
      QpReceiver receiver, QpTeardown teardown) {
    this.qp = qp;
    this.number = qp.number();
    this.sq = sq;
    this.rq = rq;
    this.sender = sender;
    this.receiver = receiver;
    this.teardown = teardown;
  }

  /**
   * A Send or Immediate Data found no receive handed to the endpoint. Receives are taken at
   * this moment of need, not before every read: a postRecv that returned before the peer's
   * Send may still sit in the ring (its wake-up task has not run yet), so move what posters
   * published into the table and hand it over now; a shared receive queue supplies one. A
   * read of Writes alone then touches no receive state (1000 queue pairs: every read batch
   * of a cold queue pair paid for two ring reads).
   */
  @Override
  public void onReceiveBufferNeeded() {
    SharedReceives shared = qp.sharedReceives();
    if (shared != null) {
      shared.supply();
      return;
    }
    rq.drain();
    QpState s = qp.state();
    if (s == QpState.RTR || s == QpState.RTS) {
      receiver.handReceives();
    } else if (s == QpState.CLOSED) {
      // close() on another thread made it CLOSED and its loop task has not run yet: run that
      // part now. The graceful close ends input here, so the peer's Send in flight is dropped
      // (as siw drops input to a closing queue pair) instead of being answered with Terminate
      // 1/2/0x02 "no buffer" that would blame the peer; the peer sees the FIN and flushes.
      teardown.closeOnLoop();
    }
  }

  @Override
  public void onSendComplete(long token) {
    if (!sq.markDone(token, 0, false)) {
      ignored("send completion", token);
      return;
    }
    sender.retireSends();
  }

  @Override
  public void onReadComplete(long token, long length) {
    if (!sq.markDone(token, length, true)) {
      ignored("read completion", token);
      return;
    }
    sender.retireSends();
  }

  @Override
  public void onCompletionsReported() {
    // Issue once per batch of completions: what waited on ORD, a fence or the depth goes now.
    if (qp.state() == QpState.RTS) {
      sender.progress();
    }
  }

  @Override
  public void onReceive(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
    if (!receiver.received(bufferId, opcode, length, invalidatedStag)) {
      ignored("receive", bufferId);
    }
  }

  @Override
  public void onImmediateData(long bufferId, RdmapOpcode opcode, long data) {
    if (!receiver.immediateReceived(bufferId, opcode, data)) {
      ignored("immediate data", bufferId);
    }
  }

  @Override
  public void onLocalProtectionError(long id, boolean receive) {
    // The endpoint's Local Catastrophic Terminate follows: report it here, with the charge.
    TerminateInfo t = new TerminateInfo(TerminateInfo.LAYER_RDMAP, LOCAL_CATASTROPHIC, 0, false);
    teardown.enterError(receive ? -1 : id, receive ? id : -1, WcStatus.LOC_PROT_ERR,
        t.vendorError(), TEARDOWN_NONE, t, (receive ? "receive " : "work request ") + "memory was deregistered"
        + " while in use (" + t + ")", true);
  }

  @Override
  public void onTerminateSent(int layer, int errorType, int errorCode) {
    teardown.terminate(new TerminateInfo(layer, errorType, errorCode, false));
  }

  @Override
  public void onTerminateWithheld(int layer, int errorType, int errorCode) {
    TerminateInfo t = new TerminateInfo(layer, errorType, errorCode, false);
    // Reported as an error without a Terminate: none was sent (RFC 5044 §7.1.2 rule 4).
    teardown.enterError(-1, -1, TerminateStatus.forSent(layer, errorType, errorCode),
        t.vendorError(), TEARDOWN_NONE, null, "closed without a Terminate: the peer's first FPDU failed ("
            + t.describe() + "), and nothing may be sent before an intact one (RFC 5044"
            + " §7.1.2 rule 4)", true);
  }

  @Override
  public void onTerminateReceived(int layer, int errorType, int errorCode) {
    teardown.terminate(new TerminateInfo(layer, errorType, errorCode, true));
  }

  @Override
  public void onDisconnected(boolean graceful) {
    teardown.disconnected(graceful);
  }

  private void ignored(String what, long token) {
    // After a flush, late reports of flushed work requests are expected.
    if (qp.isLive()) {
      log.warn("queue pair {}: {} for unknown token {} ignored", number, what, token);
    }
  }
}
