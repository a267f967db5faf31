package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.netty.channel.Channel;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transmit order of an {@link RdmapEndpoint} (siw's qp_tx bookkeeping): every transmit
 * message (a Write, a Send, Immediate Data, a Read or Atomic Response) gets the next sequence
 * number when it is handed to DDP; {@link TransportBarriers} written behind batches report which
 * of them the transport took. Taken messages unpin Read Response sources; sent ones complete the
 * local operations, reported in issue order (RFC 5040 §5.5 rules 14, 15) from a task on the event
 * loop, never from inside Netty's write path. That one task per turn ({@link #schedule}) also
 * flushes the Read Responses of a read batch once and answers inbound requests that waited for
 * earlier responses to leave.
 *
 * <p>Confined to the event loop; allocates nothing per message (the barriers are recycled and the
 * task is one object).
 */
final class TransmitOrder {
  // The endpoint's logger: its lines are the endpoint's.
  private static final Logger log = LoggerFactory.getLogger(RdmapEndpoint.class);

  private final RdmapEndpoint ep;
  private final DdpStream stream;
  private final Channel channel;
  private final RdmapEndpointListener listener;
  private final LocalOperations operations;
  private final ReadResponder responder;
  private final TransportBarriers barriers;
  private final Runnable deferredWork = this::runDeferredWork;

  /** The next transmit message's sequence number. */
  private long txSeq;
  /** Transmit messages below this were taken by the transport while the channel was active. */
  private long sent;
  /** Transmit messages below this were released by the transport, sent or dropped. */
  private long taken;
  private boolean deferredScheduled;
  private boolean responsesUnflushed;

  /**
   * @param ep the endpoint, for its state and the parts built after this one (inbound requests,
   *     teardown)
   */
  TransmitOrder(RdmapEndpoint ep, DdpStream stream, RdmapEndpointListener listener,
      LocalOperations operations, ReadResponder responder) {
    this.ep = ep;
    this.stream = stream;
    this.channel = stream.channel();
    this.listener = listener;
    this.operations = operations;
    this.responder = responder;
    this.barriers = new TransportBarriers(channel, this::onTaken);
  }

  /** The sequence number the next transmit message gets. */
  long nextSeq() {
    return txSeq;
  }

  /** A transmit message was handed to DDP: its sequence number (the next one from now on). */
  long assignSeq() {
    return txSeq++;
  }

  /** Transmit messages below this were released by the transport (sent, or dropped on close). */
  long taken() {
    return taken;
  }

  /**
   * A Read or Atomic Response was handed to DDP as the transmit message below {@link #nextSeq}.
   * A barrier right behind it frees its IRD slot as soon as the transport took it: the requester
   * may issue its next request the moment it has the response, and a barrier per batch would
   * keep the slot of an early response of a batch until the whole batch left (1 MiB responses
   * on a full socket), so that request would find the IRD exceeded.
   */
  void responseWritten() {
    writeBarrier();
    responsesUnflushed = true;
    schedule();
  }

  /** Writes a barrier behind what was issued and flushes it all to the transport. */
  void flush() {
    writeBarrier();
    responsesUnflushed = false;
    stream.flush();
  }

  /** A barrier behind every transmit message so far; their octets go to the channel first. */
  private void writeBarrier() {
    stream.writePending();
    barriers.writeBehind(txSeq);
  }

  /** Reports every operation at the head of the issue order that is done. */
  void drainCompletions() {
    boolean reported = false;
    while (!ep.isEnded() && operations.headDone(sent)) {
      reported = true;
      long token = operations.headToken();
      boolean read = operations.headIsRead();
      long length = read ? operations.headReadLength() : 0;
      operations.removeHead();
      if (read) {
        listener.onReadComplete(token, length);
      } else {
        listener.onSendComplete(token);
      }
    }
    if (reported) {
      listener.onCompletionsReported();
    }
  }

  /** The channel closed: everything written was released; unpin every Read Response source. */
  void channelClosed() {
    taken = txSeq;
    responder.releaseAll();
  }

  /** A barrier came back: unpin what the transport took, complete what it sent (later). */
  private void onTaken(long upTo, boolean wasSent) {
    if (upTo > taken) {
      taken = upTo;
      responder.retire(taken);
      if (ep.inbound.hasWaiting()) {
        schedule();
      }
    }
    if (wasSent && upTo > sent) {
      sent = upTo;
      if (operations.size() > 0) {
        schedule();
      }
    }
  }

  /** Runs the deferred work once, after what the event loop is doing now. */
  void schedule() {
    if (deferredScheduled) {
      return;
    }
    deferredScheduled = true;
    try {
      channel.eventLoop().execute(deferredWork);
    } catch (RejectedExecutionException e) {
      deferredScheduled = false;
      log.debug("{} event loop shut down; deferred RDMAP work dropped", channel);
    }
  }

  /** Flushes Read Responses once per read batch, reports completions, notices a missed close. */
  private void runDeferredWork() {
    deferredScheduled = false;
    ep.inbound.answerWaitingRequests();
    if (responsesUnflushed && !ep.isEnded()) {
      flush();
    }
    drainCompletions();
    ep.teardown.noticeMissedClose();
  }
}
