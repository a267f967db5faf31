package io.iwarp4j.rdmap;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.nio.ByteBuffer;

/**
 * An empty buffer written to the channel after a batch of messages, whose release says "the
 * transport took every octet written before me". Netty's outbound buffer releases its messages in
 * write order, each once the socket has taken all of its octets, and releases an empty buffer as
 * soon as everything before it has gone; on close it releases whatever is still queued, in order.
 * The MPA framer keeps the same rule for every buffer handed to it, so this release is the one
 * signal that completes Writes and Sends (RFC 5040 §5.5 rule 14) and ends the pins of Read
 * Response sources.
 *
 * <p>Recycled, not garbage: {@link #deallocate()} hands the barrier back to its
 * {@link TransportBarriers} instead of freeing anything, which re-arms it for the next batch.
 * Direct (over a shared empty direct buffer), so that NIO and epoll pass it through as it is:
 * both copy a heap buffer into a new direct one and would release this one at once, before the
 * octets ahead of it had left. Not tracked by the leak detector (it is not made by an allocator).
 * Event-loop confined.
 */
final class TransportBarrier extends UnpooledDirectByteBuf {
  private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

  private final TransportBarriers owner;
  /** Transmit messages with a sequence number below this one were written before the barrier. */
  private long upTo;

  TransportBarrier(TransportBarriers owner) {
    super(UnpooledByteBufAllocator.DEFAULT, EMPTY, 0);
    this.owner = owner;
  }

  /** Makes a released (or new) barrier ready to be written again. */
  TransportBarrier arm(long upTo) {
    if (refCnt() == 0) {
      resetRefCnt();
    }
    this.upTo = upTo;
    return this;
  }

  /** What the transport took when this barrier was released. */
  long upTo() {
    return upTo;
  }

  /** The transport released the barrier: report it, and keep the object for reuse. */
  @Override
  protected void deallocate() {
    owner.released(this);
  }
}
