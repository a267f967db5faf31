package io.iwarp4j.ddp;

import io.iwarp4j.mpa.CopyCounters;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.UntaggedHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Data Sink's untagged receive path of one DDP Stream (RFC 5041 §5.4, §7.1, ddp.md §11):
 * validates each untagged segment, places its payload into the posted buffer of its queue and
 * delivers each message when its L=1 segment arrives.
 *
 * <p>Checks, in this order, all before anything is placed (the code is the DDP error code of
 * Error Type 0x2):
 * <ol>
 *   <li>U6, DDP version: DV must be 1, else 0x06. Checked first and on every segment, zero-length
 *       ones included, because a segment of another DDP version cannot be trusted to have the
 *       layout the other checks read (Linux siw checks it first too).
 *   <li>A segment shorter than the 18-octet header is reported as Local Catastrophic (Error Type
 *       0x0, code 0x00): RFC 5041 has no code for it, and it makes the stream unusable.
 *   <li>U1, QN: the queue must have been enabled by the upper layer, else 0x01.
 *   <li>U3, MSN range: the MSN must be the queue's expected MSN (the message in progress's, or
 *       the next one's), else 0x03.
 *   <li>U2, buffer: a new message needs a posted buffer, else 0x02. The upper layer posts what
 *       it has before each read batch ({@link DdpStreamListener#beforeReadBatch}); when a new
 *       message (the expected MSN) finds the queue empty, it is asked once more
 *       ({@link UntaggedReceiveListener#onBufferNeeded}), for a buffer from a pool shared by
 *       several streams (a verbs shared receive queue), which can only be taken when a message
 *       needs it, or for buffers it accepted and had not posted yet (verbs posts at this moment
 *       of need rather than before every read). If it posts none, the check fails.
 *   <li>U4, MO: the MO must equal the octets already received for the message, else 0x04.
 *   <li>U5, length: MO + payload length must fit in the buffer, else 0x05.
 * </ol>
 * Zero-length segments go through the same checks: RFC 5041 mandates them only for non-zero
 * length, but a zero-length Send still consumes a buffer (ddp.md §7, §13).
 *
 * <p>On the first error the dispatcher reports it once through
 * {@link UntaggedReceiveListener#onUntaggedError}, places nothing of that segment, and from then
 * on silently drops every segment (RFC 5041 §7.1). {@link #markErroneous()} does the same for an
 * error found elsewhere on the stream (the tagged path, MPA).
 *
 * <p>Delivery order: a compliant Data Source sends each message's segments together and in
 * order, so over TCP the L=1 segments arrive in send order and delivering on L=1 delivers in
 * order, exactly once. Each queue tracks its own message in progress, so segments of messages on
 * different queues may interleave (each is still delivered on its own L=1).
 *
 * <p>Event-loop confined; nothing is allocated per segment.
 */
public final class UntaggedDispatcher {
  /** Queues an upper layer can enable: 0..3 (RDMAP QN 0-2, RFC 7306 QN 3). */
  public static final int QUEUE_COUNT = OpcodeTable.QUEUE_COUNT;

  private static final Logger log = LoggerFactory.getLogger(UntaggedDispatcher.class);

  private final UntaggedReceiveQueue[] queues = new UntaggedReceiveQueue[QUEUE_COUNT];
  private final UntaggedReceiveListener listener;
  private boolean erroneous;

  /** @param listener told of deliveries and of the first error */
  public UntaggedDispatcher(UntaggedReceiveListener listener) {
    if (listener == null) {
      throw new NullPointerException("listener");
    }
    this.listener = listener;
  }

  /**
   * Enables queue {@code qn} with room for {@code capacity} posted single-region buffers.
   * Segments for a queue that is not enabled fail U1.
   *
   * @param qn the queue number
   * @param capacity the most buffers posted at once
   * @return the new queue, for posting buffers
   * @throws IllegalStateException if the queue is already enabled
   */
  public UntaggedReceiveQueue enableQueue(int qn, int capacity) {
    return enableQueue(qn, capacity, 1);
  }

  /**
   * Enables queue {@code qn} with room for {@code capacity} posted buffers of up to
   * {@code maxPieces} regions each (see {@link UntaggedReceiveQueue#post(GatherList, long)}).
   *
   * @param qn the queue number
   * @param capacity the most buffers posted at once
   * @param maxPieces the most buffer pieces a posted receive may have
   * @return the new queue, for posting buffers
   * @throws IllegalStateException if the queue is already enabled
   */
  public UntaggedReceiveQueue enableQueue(int qn, int capacity, int maxPieces) {
    checkQueue(qn);
    if (queues[qn] != null) {
      throw new IllegalStateException("queue " + qn + " is already enabled");
    }
    UntaggedReceiveQueue q = new UntaggedReceiveQueue(capacity, maxPieces);
    queues[qn] = q;
    return q;
  }

  /**
   * The queue {@code qn}, or null when it is not enabled.
   *
   * @param qn the queue number
   * @return the queue {@code qn}, or null when it is not enabled
   */
  public UntaggedReceiveQueue queue(int qn) {
    checkQueue(qn);
    return queues[qn];
  }

  private static void checkQueue(int qn) {
    if (qn < 0 || qn >= QUEUE_COUNT) {
      throw new IllegalArgumentException("queue number " + qn + " outside 0.." + (QUEUE_COUNT - 1));
    }
  }

  /**
   * Whether an error stopped this stream's receive path; later segments are dropped.
   *
   * @return whether an error stopped this stream's receive path; later segments are dropped
   */
  public boolean isErroneous() {
    return erroneous;
  }

  /** Stops placement after an error detected elsewhere: every later segment is dropped. */
  public void markErroneous() {
    erroneous = true;
  }

  /**
   * Handles one untagged segment (T=0) as handed up by MPA.
   *
   * @param segment the whole segment, its index 0 being the first DDP octet; valid during the call
   * @throws IllegalArgumentException if the segment is tagged (a routing bug, not a peer error)
   */
  public void onSegment(Ulpdu segment) {
    if (erroneous) {
      if (log.isDebugEnabled()) {
        log.debug("dropping a {}-octet untagged segment: the stream is erroneous", segment.length());
      }
      return;
    }
    int length = segment.length();
    if (length == 0) {
      fail(DdpError.LOCAL_CATASTROPHIC, segment, 0);
      return;
    }
    int control = DdpControl.get(segment);
    if (DdpControl.isTagged(control)) {
      throw new IllegalArgumentException("a tagged segment was routed to the untagged path");
    }
    int headerLength = Math.min(length, UntaggedHeader.LENGTH);
    if (DdpControl.version(control) != DdpControl.VERSION) {
      fail(DdpError.UNTAGGED_INVALID_DDP_VERSION, segment, headerLength);
      return;
    }
    if (length < UntaggedHeader.LENGTH) {
      fail(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
      return;
    }
    int qn = UntaggedHeader.queueNumber(segment);
    UntaggedReceiveQueue queue = qn >= 0 && qn < QUEUE_COUNT ? queues[qn] : null;
    if (queue == null) {
      fail(DdpError.INVALID_QN, segment, headerLength);
      return;
    }
    int msn = UntaggedHeader.msn(segment);
    // A payload the upper layer takes itself (Immediate Data) consumes a buffer but fills none.
    int payloadLength = listener.placesPayload(qn, segment) ? length - UntaggedHeader.LENGTH : 0;
    if (queue.postedCount() == 0 && msn == queue.expectedMsn()) {
      // A new message and no buffer: the upper layer's one chance to supply one from a pool
      // several streams share (a shared receive queue), taken only when a message needs it.
      listener.onBufferNeeded(qn);
      if (erroneous) {
        return; // supplying it failed, and the upper layer ended the stream
      }
    }
    // Only the queue as it is: the upper layer had its chance to post above.
    DdpError error = queue.validate(msn, UntaggedHeader.messageOffset(segment), payloadLength);
    if (error != null) {
      fail(error, segment, headerLength);
      return;
    }
    if (!listener.acceptSegment(qn, segment)) {
      // The upper layer refused it and reports its own error: place nothing, drop the rest.
      erroneous = true;
      return;
    }
    if (!queue.place(segment, UntaggedHeader.LENGTH, payloadLength)) {
      // The posted buffer's memory was deregistered: our error, not the peer's.
      erroneous = true;
      if (log.isDebugEnabled()) {
        log.debug("untagged segment on QN {}: the posted buffer's region was deregistered", qn);
      }
      listener.onLocalMemoryGone(qn, queue.headId(), segment, headerLength);
      return;
    }
    if (CopyCounters.ENABLED) {
      // Queue 0 holds the buffers the application posted; the others hold RDMAP control messages.
      if (qn == 0) {
        CopyCounters.receivePlaced(payloadLength);
      } else {
        CopyCounters.controlCopied(payloadLength);
      }
    }
    if (DdpControl.isLast(control)) {
      int messageLength = queue.receivedLength();
      long bufferId = queue.complete();
      if (log.isDebugEnabled()) {
        log.debug("untagged message delivered: qn={} msn={} length={} buffer={}", qn,
            Integer.toUnsignedString(msn), messageLength, bufferId);
      }
      listener.onUntaggedMessage(qn, msn, messageLength, UntaggedHeader.rsvdUlp(segment),
          bufferId);
    }
  }

  private void fail(DdpError error, Ulpdu segment, int headerLength) {
    erroneous = true; // before the callback, so a re-entrant segment is already dropped
    if (log.isDebugEnabled()) {
      log.debug("untagged segment rejected: {} (etype={} code={}) segment length={}", error,
          error.errorType(), error.code(), segment.length());
    }
    listener.onUntaggedError(error, segment, headerLength);
  }
}
