package io.iwarp4j.benchmarks.suite;

import io.iwarp4j.verbs.CompletionQueue;
import io.netty.util.internal.PlatformDependent;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * Measures the memory an idle connected queue pair costs: heap used plus direct memory (Netty's
 * own counter for the direct memory it allocates without a Cleaner, plus the JDK's direct buffer
 * pool) after a full GC, before and after connecting {@code n} queue pairs between two devices
 * (device defaults: 128 send and 128 receive slots, 4 SGEs, IRD/ORD 16; CRC on). Both ends
 * live in this JVM, so the difference is divided by 2n queue pairs; it includes the two
 * devices' fixed costs (event loops, STag tables), so it overestimates a little. It also
 * includes the two completion queues, which the pair sizes at {@code n × 256} entries so that
 * no completion can overrun; their share is measured apart afterwards (two more completion
 * queues of that size on the same devices) and reported as {@code per_qp_cq}, with
 * {@code per_qp_without_cq} the rest: what each queue pair costs on its own.
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
    long cqBytes;
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
      // The two completion queues' share: two more of the same size, measured on their own.
      int cqe = pair.clientCq.capacity();
      CompletionQueue a = pair.clientDevice.createCompletionQueue(cqe);
      CompletionQueue b = pair.serverDevice.createCompletionQueue(cqe);
      long[] withCqs = measure();
      cqBytes = withCqs[0] + withCqs[1] - after[0] - after[1];
      a.close();
      b.close();
    }
    long heap = after[0] - before[0];
    long direct = after[1] - before[1];
    int qps = 2 * n;
    long total = (heap + direct) / qps;
    long cq = cqBytes / qps;
    System.out.printf("%d connections (%d queue pairs): heap %+d octets, direct %+d octets;"
            + " per queue pair: heap %d, direct %d, total %d octets, of which %d are the"
            + " completion queues' entries (n x 256 per queue): %d without them"
            + " (target <= 16384)%n", n, qps, heap, direct, heap / qps, direct / qps, total, cq,
        total - cq);
    System.out.printf("JSON {\"connections\": %d, \"queue_pairs\": %d, \"heap_bytes\": %d,"
            + " \"direct_bytes\": %d, \"per_qp_heap\": %d, \"per_qp_direct\": %d,"
            + " \"per_qp_total\": %d, \"per_qp_cq\": %d, \"per_qp_without_cq\": %d,"
            + " \"transport\": \"%s\"}%n", n, qps, heap, direct, heap / qps, direct / qps, total,
        cq, total - cq, transport);
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
