package io.iwarp4j.examples.nvmeof.server;

import java.util.Objects;

/**
 * What a {@link NvmeTarget} exports and how.
 *
 * @param subNqn the subsystem's NQN; a host's Connect must name it
 * @param namespaceBytes the size of the one namespace (NSID 1), a multiple of the block size,
 *     at most 1 GiB (one direct buffer)
 * @param blockSize 512 or 4096
 * @param maxQueueEntries the most entries an I/O queue may have (CAP.MQES + 1), at most 1024
 * @param maxIoQueues the most I/O queues a controller may have
 * @param inCapsuleDataSize octets of write data an I/O command capsule may carry (IOCCSZ = 4 +
 *     this / 16); 0 turns in-capsule data off
 * @param mdts the most one command transfers: 4 KiB x 2^mdts
 */
public record TargetConfig(String subNqn, long namespaceBytes, int blockSize, int maxQueueEntries,
    int maxIoQueues, int inCapsuleDataSize, int mdts) {
  /** The admin queue's most entries (Linux NVME_AQ_DEPTH). */
  public static final int ADMIN_QUEUE_ENTRIES = 32;
  public static final long MAX_NAMESPACE_BYTES = 1L << 30;

  public TargetConfig {
    Objects.requireNonNull(subNqn, "subNqn");
    if (blockSize != 512 && blockSize != 4096) {
      throw new IllegalArgumentException("blockSize must be 512 or 4096, not " + blockSize);
    }
    if (namespaceBytes < blockSize || namespaceBytes > MAX_NAMESPACE_BYTES
        || namespaceBytes % blockSize != 0) {
      throw new IllegalArgumentException("namespaceBytes " + namespaceBytes
          + " must be a multiple of " + blockSize + " from " + blockSize + " to 1 GiB");
    }
    if (maxQueueEntries < 2 || maxQueueEntries > 1024) {
      throw new IllegalArgumentException("maxQueueEntries must be 2 to 1024");
    }
    if (maxIoQueues < 1 || maxIoQueues > 64) {
      throw new IllegalArgumentException("maxIoQueues must be 1 to 64");
    }
    if (inCapsuleDataSize < 0 || inCapsuleDataSize > 16384 || inCapsuleDataSize % 16 != 0) {
      throw new IllegalArgumentException("inCapsuleDataSize must be 0 to 16384, a multiple of 16");
    }
    if (mdts < 1 || mdts > 8) {
      throw new IllegalArgumentException("mdts must be 1 to 8 (8 KiB to 1 MiB)");
    }
  }

  /**
   * A target of {@code namespaceBytes} with 512-octet blocks, queues of up to 128 entries, 8
   * I/O queues, 4 KiB of in-capsule data and transfers of up to 128 KiB.
   *
   * @param subNqn the subsystem's NQN
   * @param namespaceBytes the namespace's size
   * @return the configuration
   */
  public static TargetConfig of(String subNqn, long namespaceBytes) {
    return new TargetConfig(subNqn, namespaceBytes, 512, 128, 8, 4096, 5);
  }

  public TargetConfig withBlockSize(int size) {
    return new TargetConfig(subNqn, namespaceBytes, size, maxQueueEntries, maxIoQueues,
        inCapsuleDataSize, mdts);
  }

  public TargetConfig withInCapsuleDataSize(int size) {
    return new TargetConfig(subNqn, namespaceBytes, blockSize, maxQueueEntries, maxIoQueues,
        size, mdts);
  }

  /** The most octets one command transfers. */
  public int maxTransferBytes() {
    return 4096 << mdts;
  }
}
