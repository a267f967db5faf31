package io.iwarp4j.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * Test support: octets arriving at an {@link EmbeddedChannel} as a socket's reads would, for the
 * back-to-back channel pairs of the layer tests (mpa-core's StartupPair, ddp-core's StreamPair,
 * rdmap-core's EndpointPair).
 */
public final class Inbound {
  private Inbound() {
  }

  /**
   * Feeds {@code octets} to {@code channel} as inbound reads, in order, until they are used up or
   * the channel is closed. {@code readSize}, given the octets left, chooses the size of the next
   * read (the TCP chunking; clamped to [1, left]). Each read wraps {@code octets} without copying.
   *
   * @return the reads fed, for a test that checks they were released
   */
  public static List<ByteBuf> feed(EmbeddedChannel channel, byte[] octets,
      IntUnaryOperator readSize) {
    List<ByteBuf> fed = new ArrayList<>();
    int pos = 0;
    while (pos < octets.length && channel.isOpen()) {
      int left = octets.length - pos;
      int n = Math.max(1, Math.min(readSize.applyAsInt(left), left));
      ByteBuf read = Unpooled.wrappedBuffer(octets, pos, n);
      fed.add(read);
      channel.writeInbound(read);
      pos += n;
    }
    return fed;
  }
}
