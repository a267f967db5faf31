package io.iwarp4j.it.hostile;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * Heap in use after a {@code System.gc()} and direct memory: the JDK's direct buffer pool (every
 * {@code ByteBuffer.allocateDirect}: the memory regions, and Netty's pooled arenas when Netty
 * allocates through it) plus what Netty allocates without a cleaner, if any. Sampled around a
 * flood so a test can show that the flood left nothing behind.
 */
record MemorySample(long heap, long direct) {
  private static final long MIB = 1 << 20;

  static MemorySample take() throws InterruptedException {
    for (int i = 0; i < 2; i++) {
      System.gc();
      Thread.sleep(50);
    }
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    long direct = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        direct = pool.getMemoryUsed();
      }
    }
    // Direct memory Netty allocates without a cleaner is not in the JDK's pool: add it.
    direct += Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
    return new MemorySample(heap, direct);
  }

  /**
   * Prints the samples and fails if, from {@code warm} to {@code end}, heap grew by more than
   * {@code heapMib} or direct memory by more than {@code directMib}.
   */
  static void assertBounded(String what, MemorySample cold, MemorySample warm, MemorySample end,
      long heapMib, long directMib) {
    System.out.printf("%s memory: heap %.1f / %.1f / %.1f MiB, direct %.1f / %.1f / %.1f MiB"
        + " (before / after the first round / after the last)%n", what, mib(cold.heap),
        mib(warm.heap), mib(end.heap), mib(cold.direct), mib(warm.direct), mib(end.direct));
    assertTrue(end.heap - warm.heap <= heapMib * MIB, what + ": heap grew from "
        + mib(warm.heap) + " to " + mib(end.heap) + " MiB");
    assertTrue(end.direct - warm.direct <= directMib * MIB, what + ": direct memory grew from "
        + mib(warm.direct) + " to " + mib(end.direct) + " MiB");
  }

  private static double mib(long octets) {
    return octets / (double) MIB;
  }
}
