package io.iwarp4j.verbs;

import io.iwarp4j.verbs.engine.ReceiveQueue;
import java.util.function.BiConsumer;

/**
 * The event-loop side of a queue pair attached to a {@link SharedReceiveQueue}: when a new
 * message finds no receive (DDP asks, {@code RdmapEndpointListener.onReceiveBufferNeeded}), takes
 * the shared queue's oldest receive into the queue pair's own receive queue and hands it to the
 * endpoint as any posted receive ({@link QpReceiver#handReceives}), so that checking, placing,
 * completing and flushing it are the per-queue-pair path's. Taking only when a message needs
 * one keeps every other receive in the shared queue for the other queue pairs: a receive handed
 * to one stream ahead of time would be stuck there while another stream runs dry.
 * Event loop only; allocates nothing.
 */
final class SharedReceives {
  /** The queue pair's receive queue is filled on its own loop, past its ring: nobody wakes. */
  static final Runnable NO_WAKE_UP = () -> { };
  /** Copies a shared queue's slot into the queue pair's receive queue (a constant: no lambda). */
  private static final BiConsumer<RecvWorkRequest, ReceiveQueue> POST =
      (wr, q) -> q.postOnLoop(wr);

  private final QueuePair qp;
  private final SharedReceiveQueue srq;
  private final ReceiveQueue rq;
  private final QpReceiver receiver;
  private final int depth;

  SharedReceives(QueuePair qp, SharedReceiveQueue srq, ReceiveQueue rq, QpReceiver receiver) {
    this.qp = qp;
    this.srq = srq;
    this.rq = rq;
    this.receiver = receiver;
    this.depth = qp.capabilities().maxRecvWr();
  }

  /**
   * A new message found no receive: take one from the shared queue and hand it over. Does
   * nothing when the queue pair is not connected, already holds as many taken receives as it
   * can, or the shared queue is empty: the message then ends the connection ("no buffer
   * available", 1/2/0x02).
   */
  void supply() {
    // The shared queue's slot is copied straight into this queue pair's receive queue, which has
    // room (checked first), so the post cannot fail while the slot is claimed.
    if (!qp.isLive() || rq.outstanding() >= depth || !srq.take(POST, rq)) {
      return;
    }
    receiver.handReceives();
  }
}
