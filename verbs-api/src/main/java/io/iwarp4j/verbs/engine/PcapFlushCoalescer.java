package io.iwarp4j.verbs.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;

/**
 * Only while capturing ({@link PcapCapture}): gathers the buffers written between two flushes
 * into one composite write, so the capture holds one TCP segment per flush, as the kernel sends
 * it, instead of one per piece (an FPDU goes out as its length, header, payload slices and CRC;
 * Wireshark's MPA dissector does not reassemble an FPDU cut into such pieces). No copy: the
 * composite holds the original buffers. Each original write's promise completes with the
 * composite's. Unflushed writes fail on close, as in Netty's outbound buffer.
 */
public final class PcapFlushCoalescer extends ChannelOutboundHandlerAdapter {
  static final String NAME = "pcap-coalescer";

  private CompositeByteBuf pending;
  private final List<ChannelPromise> promises = new ArrayList<>();

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof ByteBuf buf)) {
      writePending(ctx);
      ctx.write(msg, promise);
      return;
    }
    if (pending == null) {
      pending = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
    }
    pending.addComponent(true, buf);
    if (!promise.isVoid()) {
      promises.add(promise);
    }
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    writePending(ctx);
    ctx.flush();
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
    discard(new ClosedChannelException());
    super.close(ctx, promise);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    discard(new ClosedChannelException());
  }

  private void writePending(ChannelHandlerContext ctx) {
    CompositeByteBuf buf = pending;
    if (buf == null) {
      return;
    }
    pending = null;
    if (promises.isEmpty()) {
      ctx.write(buf, ctx.voidPromise());
      return;
    }
    ChannelPromise[] waiting = promises.toArray(new ChannelPromise[0]);
    promises.clear();
    ctx.write(buf).addListener((ChannelFutureListener) f -> {
      for (ChannelPromise p : waiting) {
        if (f.isSuccess()) {
          p.trySuccess();
        } else {
          p.tryFailure(f.cause());
        }
      }
    });
  }

  private void discard(Throwable cause) {
    if (pending != null) {
      pending.release();
      pending = null;
    }
    for (ChannelPromise p : promises) {
      p.tryFailure(cause);
    }
    promises.clear();
  }
}
