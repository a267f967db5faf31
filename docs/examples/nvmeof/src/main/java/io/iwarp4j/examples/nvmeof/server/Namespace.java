package io.iwarp4j.examples.nvmeof.server;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import java.nio.ByteBuffer;

/**
 * The target's one namespace (NSID 1), held in memory: one direct buffer registered for local
 * access, so that a host's Read is an RDMA Write straight from it and a host's Write an RDMA
 * Read straight into it (no copy on the target).
 */
final class Namespace implements AutoCloseable {
  static final int NSID = 1;

  private final ByteBuffer data;
  private final MemoryRegion region;
  private final int blockShift;
  private final long blocks;

  Namespace(ProtectionDomain pd, long bytes, int blockSize) {
    data = ByteBuffer.allocateDirect(Math.toIntExact(bytes));
    region = pd.register(data, AccessFlags.LOCAL_WRITE);
    blockShift = Integer.numberOfTrailingZeros(blockSize);
    blocks = bytes >>> blockShift;
  }

  MemoryRegion region() {
    return region;
  }

  ByteBuffer data() {
    return data;
  }

  int blockShift() {
    return blockShift;
  }

  long blocks() {
    return blocks;
  }

  /** Whether blocks {@code [slba, slba + count)} are all in the namespace. */
  boolean contains(long slba, int count) {
    return slba >= 0 && slba < blocks && count <= blocks - slba;
  }

  @Override
  public void close() {
    region.close();
  }
}
