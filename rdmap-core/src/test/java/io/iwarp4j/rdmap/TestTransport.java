package io.iwarp4j.rdmap;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.io.ByteArrayOutputStream;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;

/**
 * The "socket" of a test channel, first in the pipeline: on flush it takes every octet written
 * so far (copies it onto its wire and releases the buffer, completing the write), as a socket
 * with room in its send buffer does. While {@link #pause paused} it takes nothing, so a test can
 * look at the state before the transport took a message. On close, what it has not taken is
 * dropped (released, its writes failed), as the kernel drops what the application never handed
 * over.
 */
final class TestTransport extends ChannelOutboundHandlerAdapter {
  private final ArrayDeque<Object> queued = new ArrayDeque<>();
  private final ArrayDeque<ChannelPromise> promises = new ArrayDeque<>();
  private final ByteArrayOutputStream taken = new ByteArrayOutputStream();
  private int flushedCount;
  private boolean paused;
  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    queued.add(msg);
    promises.add(promise);
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    flushedCount = queued.size();
    if (!paused) {
      takeFlushed();
    }
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
    // As Netty's outbound buffer does: the channel is closed first, then what is queued fails.
    super.close(ctx, promise);
    dropAll();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    dropAll();
  }

  /** Stops taking octets until {@link #resume()}. */
  void pause() {
    paused = true;
  }

  /** Takes what was flushed while paused and keeps taking from now on. */
  void resume() {
    paused = false;
    takeFlushed();
  }

  /** Takes only the first {@code n} flushed messages (while paused). */
  void takeMessages(int n) {
    for (int i = 0; i < n && flushedCount > 0; i++) {
      takeOne();
    }
  }

  /** Messages written and flushed but not taken yet. */
  int flushedNotTaken() {
    return flushedCount;
  }

  /** Everything taken since the last call, and forgets it. */
  byte[] drainTaken() {
    byte[] out = taken.toByteArray();
    taken.reset();
    return out;
  }

  private void takeFlushed() {
    while (flushedCount > 0) {
      takeOne();
    }
  }

  private void takeOne() {
    Object msg = queued.poll();
    ChannelPromise promise = promises.poll();
    flushedCount--;
    ByteBuf buf = (ByteBuf) msg;
    try {
      byte[] octets = new byte[buf.readableBytes()];
      buf.getBytes(buf.readerIndex(), octets);
      taken.write(octets, 0, octets.length);
    } finally {
      buf.release();
    }
    promise.trySuccess();
  }

  private void dropAll() {
    Object msg;
    while ((msg = queued.poll()) != null) {
      ChannelPromise promise = promises.poll();
      ((ByteBuf) msg).release();
      promise.tryFailure(new ClosedChannelException());
    }
    flushedCount = 0;
  }
}
