package io.iwarp4j.benchmarks.suite;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time per message of each event-loop thread (and the posting thread) while
 * {@link VerbsBandwidthBenchmark} runs one configuration: a yardstick that a loaded machine
 * disturbs far less than a rate, since time the thread waits for a core is not counted. The
 * target device is opened first, so its loop is {@code iwarp4j-<n>-…} with the lower {@code n}.
 *
 * <p>Usage ({@code benchmarks/target/iwarp4j-benchmarks.jar} on the class path):
 * {@code java -cp JAR io.iwarp4j.benchmarks.suite.LoopCpuPerMessage OP SIZE DEPTH QPS SRQ N}
 * runs N messages to warm up, then N measured, and prints one line:
 * {@code op=SEND size=64 ... rate=<msg/s> <thread>=<ns/msg> ...}.
 */
public final class LoopCpuPerMessage {
  private LoopCpuPerMessage() {
  }

  /**
   * Runs one configuration.
   *
   * @param args OP SIZE DEPTH QPS SRQ N
   * @throws Exception when the benchmark fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      throw new IllegalArgumentException("usage: OP SIZE DEPTH QPS SRQ N");
    }
    VerbsBandwidthBenchmark b = new VerbsBandwidthBenchmark();
    b.op = args[0];
    b.size = Integer.parseInt(args[1]);
    b.depth = Integer.parseInt(args[2]);
    b.qps = Integer.parseInt(args[3]);
    b.srq = Boolean.parseBoolean(args[4]);
    b.crc = true;
    long n = Long.parseLong(args[5]);
    b.setUp();
    try {
      for (long i = 0; i < n; i++) {
        b.message();
      }
      b.drain();
      ThreadMXBean mx = ManagementFactory.getThreadMXBean();
      Map<String, Long> before = cpu(mx);
      long start = System.nanoTime();
      for (long i = 0; i < n; i++) {
        b.message();
      }
      b.drain();
      long wall = System.nanoTime() - start;
      Map<String, Long> after = cpu(mx);
      StringBuilder line = new StringBuilder("op=" + b.op + " size=" + b.size + " depth="
          + b.depth + " qps=" + b.qps + " srq=" + b.srq + " rate=" + (long) (n * 1e9 / wall));
      for (Map.Entry<String, Long> e : after.entrySet()) {
        long spent = e.getValue() - before.getOrDefault(e.getKey(), 0L);
        line.append(' ').append(e.getKey()).append('=').append(spent / n).append("ns");
      }
      System.out.println(line);
    } finally {
      b.tearDown();
    }
  }

  private static Map<String, Long> cpu(ThreadMXBean mx) {
    Map<String, Long> m = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("iwarp4j-") || t == Thread.currentThread()) {
        m.put(t.getName(), mx.getThreadCpuTime(t.getId()));
      }
    }
    return m;
  }
}
