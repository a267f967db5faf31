package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Test memory: registered regions (closed by {@link #close()}), seeded random contents, and gather
 * lists that cut a region range into pieces.
 */
final class Regions implements AutoCloseable {
  /** Every right a test region usually needs. */
  static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ;

  private final List<MemoryRegion> regions = new ArrayList<>();
  private final SplittableRandom random;

  Regions(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** A zeroed region of {@code length} octets in {@code pd}; its base TO is a fixed odd value. */
  MemoryRegion allocate(ProtectionDomain pd, int length, int access) {
    return allocate(pd, length, access, RegionOptions.defaults().baseTo(0x1000_0000_0000L
        + 0x10_0000L * regions.size()));
  }

  /** A zeroed region with these options. */
  MemoryRegion allocate(ProtectionDomain pd, int length, int access, RegionOptions options) {
    MemoryRegion r = pd.allocate(length, access, options);
    regions.add(r);
    return r;
  }

  /** Fills {@code [offset, offset + length)} of the region with random octets. */
  void fill(MemoryRegion r, int offset, int length) {
    byte[] octets = new byte[length];
    random.nextBytes(octets);
    r.buffer().setBytes(offset, octets);
  }

  /** The octets {@code [offset, offset + length)} of the region. */
  static byte[] read(MemoryRegion r, int offset, int length) {
    byte[] octets = new byte[length];
    r.buffer().getBytes(offset, octets);
    return octets;
  }

  /** Whether every octet of the region is zero. */
  static boolean allZero(MemoryRegion r) {
    ByteBuf b = r.buffer();
    for (int i = 0; i < r.length(); i++) {
      if (b.getByte(i) != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * A gather list over {@code [offset, offset + length)} of the region, cut into {@code pieces}
   * pieces at random points (pieces may be empty).
   */
  GatherList gather(MemoryRegion r, int offset, int length, int pieces) {
    int[] cuts = new int[pieces + 1];
    cuts[pieces] = length;
    for (int i = 1; i < pieces; i++) {
      cuts[i] = length == 0 ? 0 : random.nextInt(length + 1);
    }
    java.util.Arrays.sort(cuts);
    GatherList g = new GatherList();
    ByteBuf memory = r.buffer();
    for (int i = 0; i < pieces; i++) {
      g.add(memory, offset + cuts[i], cuts[i + 1] - cuts[i]);
    }
    return g;
  }

  /** Scatter pieces over {@code [offset, offset + length)} for postReceive, cut at random. */
  ByteBuf[] scatter(MemoryRegion r, int offset, int length, int pieces) {
    GatherList g = gather(r, offset, length, pieces);
    ByteBuf[] out = new ByteBuf[pieces];
    for (int i = 0; i < pieces; i++) {
      out[i] = g.buffer(i).slice(g.index(i), g.length(i));
    }
    return out;
  }

  /** The random source, for sizes. */
  SplittableRandom random() {
    return random;
  }

  @Override
  public void close() {
    for (MemoryRegion r : regions) {
      r.close();
    }
    regions.clear();
  }
}
