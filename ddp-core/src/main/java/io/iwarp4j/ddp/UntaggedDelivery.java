package io.iwarp4j.ddp;

import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Between a {@link DdpStream}'s {@link UntaggedDispatcher} and its upper layer: routes the
 * untagged path's questions, deliveries and errors to the {@link DdpStreamListener}, and owns
 * the buffers of the stream's control queues.
 *
 * <p>Queues come in two kinds. A receive queue ({@link DdpStream#enableReceiveQueue}) holds
 * buffers the upper layer posts (QN 0, the verbs receive queue; each buffer a small scatter
 * list); its messages are delivered with {@link DdpStreamListener#onUntaggedMessage}. A control
 * queue ({@link DdpStream#enableControlQueue}) takes messages of a bounded size (QN 1 Read/Atomic
 * Requests, QN 2 Terminate, QN 3 Atomic Responses) into one preallocated buffer of the stream,
 * handed up with {@link DdpStreamListener#onControlMessage} and reposted right after the call.
 * One buffer is enough: over TCP a queue's next message cannot start before the previous one's
 * L=1 segment, which delivers it; how many requests a peer may have outstanding is the upper
 * layer's rule (IRD), not a DDP buffer count. Event-loop confined; allocates nothing per message.
 */
final class UntaggedDelivery implements UntaggedReceiveListener {
  private static final Logger log = LoggerFactory.getLogger(DdpStream.class);

  private final DdpStream stream;
  /** The stream's own buffer of each control queue, or null. */
  private final ByteBuf[] controlBuffers = new ByteBuf[UntaggedDispatcher.QUEUE_COUNT];

  UntaggedDelivery(DdpStream stream) {
    this.stream = stream;
  }

  /** Makes {@code queue}, just enabled as {@code qn} with room for one buffer, a control queue. */
  void makeControlQueue(int qn, UntaggedReceiveQueue queue, int maxMessageLength) {
    ByteBuf buffer = Unpooled.wrappedBuffer(new byte[maxMessageLength]).clear();
    queue.post(buffer, 0, maxMessageLength, qn);
    controlBuffers[qn] = buffer;
  }

  @Override
  public void onUntaggedMessage(int qn, int msn, int length, long rsvdUlp, long bufferId) {
    ByteBuf own = controlBuffers[qn];
    if (own == null) {
      stream.listener().onUntaggedMessage(qn, msn, rsvdUlp, length, bufferId);
      return;
    }
    own.setIndex(0, length);
    try {
      stream.listener().onControlMessage(qn, msn, rsvdUlp, own);
    } finally {
      own.clear();
      stream.receiveQueue(qn).post(own, 0, own.capacity(), qn);
    }
  }

  @Override
  public boolean placesPayload(int qn, Ulpdu segment) {
    return stream.listener().placesUntaggedPayload(qn, UntaggedHeader.rsvdUlp(segment));
  }

  @Override
  public void onBufferNeeded(int qn) {
    if (controlBuffers[qn] == null) {
      stream.listener().receiveBufferNeeded(qn);
    }
  }

  @Override
  public boolean acceptSegment(int qn, Ulpdu segment) {
    if (stream.listener().acceptUntagged(qn, UntaggedHeader.rsvdUlp(segment), segment)) {
      return true;
    }
    if (log.isDebugEnabled()) {
      log.debug("{} untagged segment on QN {} rejected by the upper layer", stream.channel(), qn);
    }
    stream.markErroneous();
    return false;
  }

  @Override
  public void onUntaggedError(DdpError e, Ulpdu segment, int headerLength) {
    stream.fail(e, segment, headerLength);
  }

  @Override
  public void onLocalMemoryGone(int qn, long bufferId, Ulpdu segment, int headerLength) {
    stream.localMemoryGone(qn, bufferId, segment, headerLength);
  }
}
