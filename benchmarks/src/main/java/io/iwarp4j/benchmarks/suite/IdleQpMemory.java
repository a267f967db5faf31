package io.iwarp4j.benchmarks.suite;

import io.netty.util.internal.PlatformDependent;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * Measures the memory an idle connected queue pair costs: heap used plus direct memory (Netty's
 * own counter for the direct memory it allocates without a Cleaner, plus the JDK's direct buffer
 * pool) after a full GC, before and after connecting {@code n} queue pairs between two devices
 * (device defaults: 128 send and 128 receive slots, 4 SGEs, IRD/ORD 16; CRC on). Both ends
 * live in this JVM, so the difference is divided by 2n queue pairs; it includes the two
 * devices' fixed costs (event loops, STag tables), so it overestimates a little.
 *
 * <p>Prints a human line and a last line {@code JSON {...}} for the suite runner.
 */
public final class IdleQpMemory {
  private IdleQpMemory() {
  }

  /**
   * Runs the measurement.
   *
   * @param args optional number of connections (default 1000), then optional seconds to hold
   *     the connections open after measuring (to take a class histogram with jcmd)
   * @throws Exception when connecting fails
   */
  public static void run(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    // Load every class and warm the pools on a small pair first, so they are not counted.
    try (VerbsPair warm = new VerbsPair(8, true, 128, 128, 16, null)) {
      warm.clientQps[0].state();
    }
    long[] before = measure();
    long[] after;
    String transport;
    try (VerbsPair pair = new VerbsPair(n, true, 128, 128, 16, null)) {
      after = measure();
      transport = String.valueOf(pair.clientDevice.transport());
      if (args.length > 1) {
        Thread.sleep(Long.parseLong(args[1]) * 1000);
      }
      for (int i = 0; i < n; i++) {
        if (pair.clientQps[i].state() != io.iwarp4j.verbs.QpState.RTS) {
          throw new IllegalStateException("queue pair " + i + " is " + pair.clientQps[i].state());
        }
      }
    }
    long heap = after[0] - before[0];
    long direct = after[1] - before[1];
    int qps = 2 * n;
    System.out.printf("%d connections (%d queue pairs): heap %+d octets, direct %+d octets;"
            + " per queue pair: heap %d, direct %d, total %d octets (target <= 65536)%n", n, qps,
        heap, direct, heap / qps, direct / qps, (heap + direct) / qps);
    System.out.printf("JSON {\"connections\": %d, \"queue_pairs\": %d, \"heap_bytes\": %d,"
            + " \"direct_bytes\": %d, \"per_qp_heap\": %d, \"per_qp_direct\": %d,"
            + " \"per_qp_total\": %d, \"transport\": \"%s\"}%n", n, qps, heap, direct,
        heap / qps, direct / qps, (heap + direct) / qps, transport);
  }

  /** Heap used and direct memory used after a full collection. */
  private static long[] measure() throws InterruptedException {
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(100);
    }
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    long direct = Math.max(0, PlatformDependent.usedDirectMemory());
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        direct += pool.getMemoryUsed();
      }
    }
    return new long[] {heap, direct};
  }
}
