package io.iwarp4j.mpa;

import io.iwarp4j.testing.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Test plumbing: a framer writing into an EmbeddedChannel and a deframer reading from another,
 * telling a {@link RecordingUlpduListener}.
 */
final class FramingHarness {
  private FramingHarness() {
  }

  /** An EmbeddedChannel whose first handler's context a framer can write through. */
  static final class Sender implements AutoCloseable {
    final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    final ChannelHandlerContext ctx = channel.pipeline().firstContext();

    FpduFramer framer(boolean crc, boolean markers, int maxUlpduLength) {
      return new FpduFramer(ctx, crc, markers, maxUlpduLength);
    }

    /** Everything flushed so far, concatenated; the written buffers are released. */
    byte[] drain() {
      return Outbound.drain(channel);
    }

    @Override
    public void close() {
      channel.finishAndReleaseAll();
    }
  }

  /**
   * A deframer in an EmbeddedChannel. Feeds unpooled buffers (direct ones are still watched by
   * the leak detector) because pooled buffer objects are recycled, which would make a refCnt
   * check after release meaningless.
   */
  static final class Receiver implements AutoCloseable {
    final RecordingUlpduListener listener = new RecordingUlpduListener();
    final FpduDeframer deframer;
    final EmbeddedChannel channel;
    /** Every buffer fed in, to check that all were released. */
    final List<ByteBuf> fed = new ArrayList<>();
    boolean direct = true;

    Receiver(boolean crc, boolean markers) {
      deframer = new FpduDeframer(crc, markers, listener);
      channel = new EmbeddedChannel(deframer);
    }

    /** Feeds {@code len} octets of {@code wire} as one read. */
    ByteBuf feed(byte[] wire, int off, int len) {
      ByteBuf b = direct
          ? UnpooledByteBufAllocator.DEFAULT.directBuffer(len)
          : UnpooledByteBufAllocator.DEFAULT.heapBuffer(len);
      b.writeBytes(wire, off, len);
      fed.add(b);
      channel.pipeline().fireChannelRead(b);
      channel.checkException();
      return b;
    }

    void feed(byte[] wire) {
      feed(wire, 0, wire.length);
    }

    /** Feeds the wire split at the given chunk sizes (cycled until the wire is used up). */
    void feedChunked(byte[] wire, int[] chunks) {
      int pos = 0;
      for (int i = 0; pos < wire.length; i++) {
        int n = Math.min(chunks[i % chunks.length], wire.length - pos);
        feed(wire, pos, n);
        pos += n;
      }
    }

    /** True when every buffer fed in has been released. */
    boolean allFedReleased() {
      for (ByteBuf b : fed) {
        if (b.refCnt() != 0) {
          return false;
        }
      }
      return true;
    }

    @Override
    public void close() {
      channel.finishAndReleaseAll();
    }
  }
}
