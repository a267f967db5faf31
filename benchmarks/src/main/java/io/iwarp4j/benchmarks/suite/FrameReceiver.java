package io.iwarp4j.benchmarks.suite;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The raw-Netty baseline's receiver: reads messages of a fixed {@code size} sent as frames of
 * at most 65535 octets, each behind a 2-octet length, and copies every payload octet once into
 * a preallocated direct buffer (the same one copy iwarp4j makes from the socket buffer into
 * registered memory). No per-message allocation; socket buffers are released as soon as read.
 */
class FrameReceiver extends ChannelInboundHandlerAdapter {
  /** Called on the event loop when a whole message has been copied in. */
  interface MessageSink {
    void onMessage(ChannelHandlerContext ctx, ByteBuf message);
  }

  private final ByteBuf sink;
  private final int size;
  private final MessageSink messageSink;
  private int frameLeft;
  private int prefixHigh = -1;
  private int filled;

  /**
   * Creates a receiver.
   *
   * @param sink preallocated direct buffer of at least {@code size} octets; the caller owns it
   * @param size message size in octets
   * @param onMessage what to do with each message (null where a subclass overrides
   *     {@link #onMessage(ChannelHandlerContext, ByteBuf)})
   */
  FrameReceiver(ByteBuf sink, int size, MessageSink onMessage) {
    this.sink = sink;
    this.size = size;
    this.messageSink = onMessage;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      while (in.isReadable()) {
        if (frameLeft == 0) {
          // A length may arrive split across two reads.
          if (prefixHigh >= 0) {
            frameLeft = prefixHigh << 8 | in.readUnsignedByte();
            prefixHigh = -1;
          } else if (in.readableBytes() >= 2) {
            frameLeft = in.readUnsignedShort();
          } else {
            prefixHigh = in.readUnsignedByte();
            continue;
          }
          if (frameLeft == 0 || frameLeft > size - filled) {
            throw new IllegalStateException("bad frame length " + frameLeft + " with " + filled
                + " of " + size + " octets filled");
          }
        }
        int n = Math.min(frameLeft, in.readableBytes());
        in.readBytes(sink, filled, n);
        filled += n;
        frameLeft -= n;
        if (filled == size) {
          filled = 0;
          onMessage(ctx, sink);
        }
      }
    } finally {
      in.release();
    }
  }

  /** A whole message has been copied into the sink (event loop); hands it to the sink. */
  void onMessage(ChannelHandlerContext ctx, ByteBuf message) {
    messageSink.onMessage(ctx, message);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  /** Writes {@code size} octets of {@code source} from index 0 as 2-octet-prefixed frames. */
  static void writeMessage(io.netty.channel.Channel ch, ByteBuf source, int size,
      io.netty.channel.ChannelPromise last) {
    for (int off = 0; off < size; off += 65535) {
      int n = Math.min(65535, size - off);
      ByteBuf prefix = ch.alloc().ioBuffer(2);
      prefix.writeShort(n);
      ch.write(prefix, ch.voidPromise());
      boolean lastFrame = off + n == size;
      ch.write(source.retainedSlice(off, n), lastFrame && last != null ? last : ch.voidPromise());
    }
  }
}
