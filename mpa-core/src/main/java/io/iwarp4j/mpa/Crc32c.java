package io.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Feeds ranges of {@link ByteBuf}s to a {@link CRC32C} without copying or allocating: heap
 * buffers through their array, single-region direct buffers through
 * {@link ByteBuf#internalNioBuffer} (both are intrinsics in the JDK). Only buffers spread over
 * several regions (composites) fall back to {@link ByteBuf#nioBuffers}, which allocates a small
 * array.
 *
 * <p>{@code internalNioBuffer} reuses one ByteBuffer per buffer instance, so a buffer must not be
 * fed from two threads at once; every caller here runs on its connection's event loop.
 */
final class Crc32c {
  private Crc32c() {
  }

  /** Adds {@code length} octets of {@code buf} starting at absolute index {@code index}. */
  static void update(CRC32C crc, ByteBuf buf, int index, int length) {
    if (length == 0) {
      return;
    }
    if (buf.hasArray()) {
      crc.update(buf.array(), buf.arrayOffset() + index, length);
    } else if (buf.nioBufferCount() == 1) {
      crc.update(buf.internalNioBuffer(index, length));
    } else {
      for (ByteBuffer b : buf.nioBuffers(index, length)) {
        crc.update(b);
      }
    }
  }
}
