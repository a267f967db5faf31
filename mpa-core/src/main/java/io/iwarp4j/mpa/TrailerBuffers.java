package io.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;

/**
 * A small ring of reusable buffers for FPDU trailers (PAD, a Marker, the CRC field: at most
 * {@link #CAPACITY} octets), so that the one buffer MPA adds to every FPDU costs a retain and a
 * release instead of an allocation from the channel's allocator.
 *
 * <p>The ring keeps one reference to each of its buffers and hands out another with each use; the
 * transport releases that one once it wrote the octets. A buffer whose count is back to 1 is
 * therefore free again. Trailers are written in order, so the oldest entry is the first to come
 * back; when it is still in flight (a queue building up in the outbound buffer) a one-off buffer
 * from the allocator is used instead. The ring's own references are released when the channel
 * closes; after that every trailer is a one-off buffer. The ring's buffers are Cleaner-backed
 * direct memory, which the garbage collector frees even if that release never happens.
 *
 * <p>Event-loop confined.
 */
final class TrailerBuffers {
  /** PAD (up to 3) + a Marker (4) + the CRC field (4), rounded up. */
  static final int CAPACITY = 12;
  private static final int SLOTS = 16;
  /**
   * Unpooled, without leak tracking, Cleaner-backed (never the no-Cleaner variant): the ring
   * outlives any one write, and if the channel's close is never seen (an event loop torn down
   * first) the garbage collector still frees it. Faster than wrapping a JDK ByteBuffer.
   */
  private static final UnpooledByteBufAllocator RING_ALLOCATOR =
      new UnpooledByteBufAllocator(true, true, false);

  private final ChannelHandlerContext ctx;
  private final ByteBuf[] ring = new ByteBuf[SLOTS];
  private int next;
  private boolean closed;

  TrailerBuffers(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    ctx.channel().closeFuture().addListener(f -> {
      if (ctx.executor().inEventLoop()) {
        close();
        return;
      }
      try {
        ctx.executor().execute(this::close);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // The loop has shut down, so nothing can acquire any more: release from here.
        close();
      }
    });
  }

  /** An empty buffer for one trailer; the caller writes it and passes it to the transport. */
  ByteBuf acquire() {
    if (closed) {
      return ctx.alloc().ioBuffer(CAPACITY);
    }
    ByteBuf b = ring[next];
    if (b == null) {
      // Not the channel's allocator: see RING_ALLOCATOR.
      b = RING_ALLOCATOR.directBuffer(CAPACITY, CAPACITY);
      ring[next] = b;
    } else if (b.refCnt() != 1) {
      // Still queued for the socket: do not wait for it.
      return ctx.alloc().ioBuffer(CAPACITY);
    }
    next = (next + 1) & (SLOTS - 1);
    return b.clear().retain();
  }

  /** Releases the ring's own references (buffers still in flight die with their last release). */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (int i = 0; i < SLOTS; i++) {
      if (ring[i] != null) {
        ring[i].release();
        ring[i] = null;
      }
    }
  }
}
