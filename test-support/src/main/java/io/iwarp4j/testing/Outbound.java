package io.iwarp4j.testing;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;

/** Test support: what an {@link EmbeddedChannel} has written, as the octets a socket would send. */
public final class Outbound {
  private Outbound() {
  }

  /**
   * Everything the channel has written so far, concatenated in order; each written buffer is
   * released. Every outbound message must be a {@link ByteBuf}.
   */
  public static byte[] drain(EmbeddedChannel channel) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object m; (m = channel.readOutbound()) != null; ) {
      ByteBuf buf = (ByteBuf) m;
      try {
        byte[] octets = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), octets);
        out.write(octets, 0, octets.length);
      } finally {
        buf.release();
      }
    }
    return out.toByteArray();
  }
}
