package io.iwarp4j.verbs;

/**
 * Copies the payload of an {@link SendFlags#INLINE} send work request when it is posted, on the
 * posting thread, like {@code IBV_SEND_INLINE}: the octets each SGE names are read from its
 * {@link LocalBuffer#buffer()} at once, so the application may reuse them when the post returns.
 * The STag is not looked at (any {@link LocalBuffer} will do, registered or not, as the verbs
 * {@code lkey} is ignored for inline data). A valid {@link MemoryRegion} is pinned while it is
 * read, so a concurrent {@link MemoryRegion#close()} cannot release the memory under the copy;
 * an invalidated one is read as the application reads it ({@link MemoryRegion#buffer()}).
 */
final class InlineData {
  private InlineData() {
  }

  /**
   * Copies every SGE's octets, in order, into {@code into} from index 0.
   *
   * @param sgl a validated list whose total fits {@code into}
   * @param into the send queue entry's inline area
   * @throws IllegalStateException when an SGE names a closed {@link MemoryRegion}
   */
  static void gather(ScatterGatherList sgl, byte[] into) {
    int n = sgl.count();
    int at = 0;
    for (int i = 0; i < n; i++) {
      int length = (int) sgl.length(i);
      if (length == 0) {
        continue;
      }
      LocalBuffer b = sgl.buffer(i);
      int offset = (int) sgl.offset(i);
      if (b instanceof MemoryRegion mr) {
        copyPinned(mr, offset, into, at, length);
      } else {
        b.buffer().getBytes(offset, into, at, length);
      }
      at += length;
    }
  }

  private static void copyPinned(MemoryRegion mr, int offset, byte[] into, int at, int length) {
    io.iwarp4j.ddp.mem.MemoryRegion r = mr.region();
    if (r.tryPin()) {
      try {
        mr.buffer().getBytes(offset, into, at, length);
      } finally {
        r.unpin();
      }
    } else {
      // Invalidated (the memory stays registered and locally readable until close) or closed:
      // buffer() refuses a closed region with an exception that names it.
      mr.buffer().getBytes(offset, into, at, length);
    }
  }
}
