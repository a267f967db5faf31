package io.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Feeds ranges of {@link ByteBuf}s to a {@link CRC32C} without copying or allocating, always
 * through the JDK's intrinsic (the CPU's crc32 instruction): heap buffers through their array,
 * direct buffers through a direct {@link ByteBuffer} over the octets in place.
 *
 * <p>A derived buffer (a slice, a duplicate, a wrapper) is fed through its <em>root</em>, the
 * buffer it ultimately unwraps to, at the same memory address: the root's
 * {@link ByteBuf#internalNioBuffer} is one cached ByteBuffer per root, whereas a pooled slice's
 * own {@code internalNioBuffer} creates a new ByteBuffer view on every call. Only buffers spread
 * over several regions (composites) fall back to {@link ByteBuf#nioBuffers}, which allocates a
 * small array.
 *
 * <p>{@code internalNioBuffer} reuses one ByteBuffer per root, so a root must not be fed from two
 * threads at once; every caller here runs on its connection's event loop, and registered memory
 * gives every sending thread a root of its own (see {@code MemoryRegion.sendView}).
 */
final class Crc32c {
  private Crc32c() {
  }

  /** Ranges of a direct buffer up to this many octets go through a scratch array. */
  static final int SMALL_RANGE = 64;

  /** Adds {@code length} octets of {@code buf} starting at absolute index {@code index}. */
  static void update(CRC32C crc, ByteBuf buf, int index, int length) {
    update(crc, buf, index, length, null);
  }

  /**
   * Adds {@code length} octets of {@code buf} starting at absolute index {@code index}; a direct
   * range of at most {@link #SMALL_RANGE} octets is first copied into {@code scratch} (at least
   * that long; null: never).
   *
   * <p>Why: headers and trailers are tiny pooled buffers, and Netty hands out small buffers that
   * come from its arena rather than its thread cache (a deep queue of FPDUs outruns the cache)
   * without a cached NIO view, so a view would be a new {@code DirectByteBuffer} per FPDU.
   * Copying a few dozen octets into an array the caller owns costs less and allocates nothing.
   */
  static void update(CRC32C crc, ByteBuf buf, int index, int length, byte[] scratch) {
    if (length == 0) {
      return;
    }
    if (buf.hasArray()) {
      crc.update(buf.array(), buf.arrayOffset() + index, length);
    } else if (scratch != null && length <= SMALL_RANGE) {
      buf.getBytes(index, scratch, 0, length);
      crc.update(scratch, 0, length);
    } else if (buf.nioBufferCount() == 1) {
      crc.update(directView(buf, index, length));
    } else {
      for (ByteBuffer b : buf.nioBuffers(index, length)) {
        crc.update(b);
      }
    }
  }

  /**
   * The octets {@code [index, index + length)} of a single-region direct buffer as a direct
   * ByteBuffer, taken from the root's cached view when addresses tell where the range lies in it.
   */
  static ByteBuffer directView(ByteBuf buf, int index, int length) {
    ByteBuf root = root(buf);
    if (root != buf && buf.hasMemoryAddress() && root.hasMemoryAddress()
        && root.nioBufferCount() == 1) {
      long offset = buf.memoryAddress() - root.memoryAddress();
      long rootIndex = offset + index;
      if (offset >= 0 && rootIndex + length <= root.capacity()) {
        return root.internalNioBuffer((int) rootIndex, length);
      }
    }
    return buf.internalNioBuffer(index, length);
  }

  /** The buffer {@code buf} ultimately unwraps to (itself when it wraps nothing). */
  private static ByteBuf root(ByteBuf buf) {
    ByteBuf b = buf;
    for (ByteBuf u; (u = b.unwrap()) != null; ) {
      b = u;
    }
    return b;
  }
}
