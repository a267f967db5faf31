package io.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.RejectedExecutionException;

/**
 * The outgoing buffer {@link FpduFramer} gathers the small parts of consecutive FPDUs in when
 * Markers are off: ULPDU_Length, headers, payloads up to {@link FpduFramer#INLINE_THRESHOLD},
 * PAD and CRC, back to back. What was gathered goes to the channel as one write (a retained
 * slice of the buffer) only when something must follow it in another buffer (a zero-copy
 * payload), when the framer flushes, or when an upper layer writes something of its own behind
 * it ({@link FpduFramer#writePending}). So a batch of small FPDUs costs one entry in Netty's
 * outbound buffer, one promise-less write and one iovec instead of three of each per FPDU: that
 * per-entry cost was ~70 % of the sending event loop for 64-octet Writes (JFR).
 *
 * <p>The buffer comes from the channel's pooled allocator and is given back when the framer
 * flushes (an idle connection holds none); each written slice keeps it alive until the transport
 * took the slice's octets. Event-loop confined; released when the channel closes.
 */
final class FpduBatch {
  /** Octets of a batch buffer: 64 FPDUs of 64-octet payload (94 octets each) fit with room. */
  static final int CAPACITY = 8192;

  private final ChannelHandlerContext ctx;
  private final ChannelPromise voidPromise;
  private ByteBuf buffer;
  /** Octets below this index of {@link #buffer} were written to the channel already. */
  private int writtenUpTo;
  private boolean closed;

  FpduBatch(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.voidPromise = ctx.voidPromise();
    ctx.channel().closeFuture().addListener(f -> {
      if (ctx.executor().inEventLoop()) {
        close();
        return;
      }
      try {
        ctx.executor().execute(this::close);
      } catch (RejectedExecutionException e) {
        close(); // the loop is gone, so nothing can gather any more
      }
    });
  }

  /**
   * The buffer to append to, with at least {@code octets} writable: the current one, or (after
   * writing what the current one gathered) a fresh one.
   */
  ByteBuf reserve(int octets) {
    ByteBuf b = buffer;
    if (b != null && b.writableBytes() >= octets) {
      return b;
    }
    release();
    b = ctx.alloc().directBuffer(Math.max(CAPACITY, octets));
    buffer = b;
    writtenUpTo = b.writerIndex();
    return b;
  }

  /** Writes what was gathered since the last call to the channel (not flushed). */
  void writePending() {
    ByteBuf b = buffer;
    if (b == null) {
      return;
    }
    int end = b.writerIndex();
    if (end > writtenUpTo) {
      ByteBuf part = b.retainedSlice(writtenUpTo, end - writtenUpTo);
      writtenUpTo = end;
      ctx.write(part, voidPromise);
    }
  }

  /** Writes what was gathered and gives the buffer back (its slices keep it while queued). */
  void release() {
    ByteBuf b = buffer;
    if (b == null) {
      return;
    }
    writePending();
    buffer = null;
    b.release();
  }

  /** Whether the channel closed: then every FPDU is written as soon as it is framed. */
  boolean isClosed() {
    return closed;
  }

  /** The connection is gone: what was gathered and not written could never be sent. */
  private void close() {
    closed = true;
    ByteBuf b = buffer;
    if (b != null) {
      buffer = null;
      b.release();
    }
  }
}
