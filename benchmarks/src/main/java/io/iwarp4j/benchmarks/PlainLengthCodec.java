package io.iwarp4j.benchmarks;

import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * The baseline for {@link FpduCodecBenchmark}: a plain 2-octet length-prefix codec with the same
 * buffer handling as MPA's (a pooled prefix, the header and payload written as they are, a
 * zero-copy {@link Ulpdu} view on receive, read buffers retained across reads), minus what MPA
 * adds: PAD, the CRC field and its computation, Markers.
 */
final class PlainLengthCodec {
  private PlainLengthCodec() {
  }

  /** Writes {@code [length][header][payload]} as three buffers. */
  static final class Framer {
    private final ChannelHandlerContext ctx;
    private final ChannelPromise voidPromise;

    Framer(ChannelHandlerContext ctx) {
      this.ctx = ctx;
      this.voidPromise = ctx.voidPromise();
    }

    void write(ByteBuf header, ByteBuf payload) {
      int length = header.readableBytes() + payload.readableBytes();
      ByteBuf prefix = ctx.alloc().ioBuffer(2);
      prefix.writeShort(length);
      ctx.write(prefix, voidPromise);
      ctx.write(header, voidPromise);
      ctx.write(payload, voidPromise);
    }
  }

  /** Delimits records by their 2-octet length and delivers each as a view of the reads. */
  static final class Deframer extends ChannelInboundHandlerAdapter {
    private final UlpduListener listener;
    private final Ulpdu ulpdu = new Ulpdu(8);
    private final ByteBuf[] held = new ByteBuf[64];
    private int heldCount;
    private int lengthOctets;
    private int length;
    private int remaining;
    private boolean backs;

    Deframer(UlpduListener listener) {
      this.listener = listener;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf in = (ByteBuf) msg;
      try {
        backs = false;
        int i = in.readerIndex();
        int end = in.writerIndex();
        while (i < end) {
          if (lengthOctets < 2) {
            length = length << 8 | in.getUnsignedByte(i++);
            if (++lengthOctets == 2) {
              remaining = length;
              if (remaining == 0) {
                deliver(ctx);
              }
            }
            continue;
          }
          int n = Math.min(remaining, end - i);
          ulpdu.addPiece(in, i, n);
          backs = true;
          i += n;
          remaining -= n;
          if (remaining == 0) {
            deliver(ctx);
          }
        }
        if (backs) {
          held[heldCount++] = in.retain();
        }
      } finally {
        in.release();
      }
    }

    private void deliver(ChannelHandlerContext ctx) {
      lengthOctets = 0;
      length = 0;
      try {
        listener.onUlpdu(ctx, ulpdu);
      } finally {
        ulpdu.clear();
        for (int k = 0; k < heldCount; k++) {
          held[k].release();
          held[k] = null;
        }
        heldCount = 0;
        backs = false;
      }
    }
  }
}
