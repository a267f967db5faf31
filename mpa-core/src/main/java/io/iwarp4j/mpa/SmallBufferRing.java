package io.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import java.util.concurrent.RejectedExecutionException;

/**
 * A per-connection ring of reusable small direct buffers for the parts every FPDU adds around
 * the payload: DDP headers (with MPA's ULPDU_Length in their headroom) and MPA trailers (PAD, a
 * Marker, the CRC field). Taking one costs a reference-count check and a retain, where the
 * channel's pooled allocator costs a thread-cache lookup, a recycled buffer object and, on
 * release, the way back into the cache: per 64-octet Send that was ~18 % of the sending event
 * loop's time (perf, three such buffers per FPDU).
 *
 * <p>The ring keeps one reference to each of its buffers and hands out another with each use;
 * the transport releases that one once it wrote the octets, so a buffer whose count is back to 1
 * is free again. Buffers (and the array that holds them) are made on first need, up to
 * {@code maxSlots}: a connection that never has more than a few FPDUs in flight keeps only a
 * few. Writes leave in order, so the next slot
 * in turn is normally the first to come back; when it is still queued for the socket a new slot
 * is made, and at the limit a one-off buffer comes from the channel's allocator. The ring's own
 * references are released when the channel closes; after that every buffer is a one-off. The
 * ring's buffers are unpooled, Cleaner-backed direct memory, which the garbage collector frees
 * even if that release is never seen.
 *
 * <p>Event-loop confined.
 */
public final class SmallBufferRing {
  /**
   * Unpooled, without leak tracking, Cleaner-backed (never the no-Cleaner variant): the ring
   * outlives any one write, and if the channel's close is never seen (an event loop torn down
   * first) the garbage collector still frees it.
   */
  private static final UnpooledByteBufAllocator RING_ALLOCATOR =
      new UnpooledByteBufAllocator(true, true, false);

  /** Slots the array has room for at first; it doubles up to {@code maxSlots} as slots are made. */
  static final int INITIAL_SLOTS = 4;

  private final Channel channel;
  private final int capacity;
  private final int maxSlots;
  private ByteBuf[] ring;
  private int count;
  private int next;
  private boolean closed;

  /**
   * A ring for {@code channel}, released when it closes.
   *
   * @param channel the connection whose allocator serves one-off buffers
   * @param capacity octets of every buffer
   * @param maxSlots the most buffers the ring keeps
   */
  public SmallBufferRing(Channel channel, int capacity, int maxSlots) {
    if (capacity < 1 || maxSlots < 1) {
      throw new IllegalArgumentException("capacity " + capacity + " and maxSlots " + maxSlots
          + " must be positive");
    }
    this.channel = channel;
    this.capacity = capacity;
    this.maxSlots = maxSlots;
    this.ring = new ByteBuf[Math.min(maxSlots, INITIAL_SLOTS)];
    channel.closeFuture().addListener(f -> {
      if (channel.eventLoop().inEventLoop()) {
        close();
        return;
      }
      try {
        channel.eventLoop().execute(this::close);
      } catch (RejectedExecutionException e) {
        // The loop has shut down, so nothing can acquire any more: release from here.
        close();
      }
    });
  }

  /**
   * Octets of every buffer.
   *
   * @return the capacity given to the constructor
   */
  public int capacity() {
    return capacity;
  }

  /**
   * An empty buffer of {@link #capacity()} octets; the caller writes it and passes it to the
   * transport, which releases it.
   *
   * @return a buffer with reference count 1 held by the caller
   */
  public ByteBuf acquire() {
    if (closed) {
      return channel.alloc().ioBuffer(capacity);
    }
    if (count > 0) {
      ByteBuf b = ring[next];
      if (b.refCnt() == 1) {
        next = next + 1 == count ? 0 : next + 1;
        return b.clear().retain();
      }
    }
    if (count < maxSlots) {
      // The slot in turn is still queued for the socket: grow instead of waiting for it. The
      // new slot comes later in the turn; the busy one is looked at first again next time.
      if (count == ring.length) {
        ring = java.util.Arrays.copyOf(ring, Math.min(maxSlots, 2 * count));
      }
      ByteBuf b = RING_ALLOCATOR.directBuffer(capacity, capacity);
      ring[count++] = b;
      return b.retain();
    }
    return channel.alloc().ioBuffer(capacity);
  }

  /**
   * Buffers the ring keeps now.
   *
   * @return buffers made so far and not released by a close
   */
  public int slots() {
    return count;
  }

  /** Releases the ring's own references (buffers still in flight die with their last release). */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (int i = 0; i < count; i++) {
      ring[i].release();
      ring[i] = null;
    }
    count = 0;
  }
}
