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
 * {@code java -cp JAR io.iwarp4j.benchmarks.suite.LoopCpuPerMessage OP SIZE DEPTH QPS SRQ N [CRC]}
 * runs N messages to warm up, then N measured, and prints one line:
 * {@code op=SEND size=64 ... rate=<msg/s> <thread>=<ns/msg> ...}, then, on Linux, one line of
 * each thread's voluntary context switches per 1,000 messages ({@code vcs/1k <thread>=<n>}):
 * how often it parked, which says how small the batches it handed on were. CRC is
 * {@code true} (the default) or {@code false}.
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
    if (args.length != 6 && args.length != 7) {
      throw new IllegalArgumentException("usage: OP SIZE DEPTH QPS SRQ N [CRC]");
    }
    VerbsBandwidthBenchmark b = new VerbsBandwidthBenchmark();
    b.op = args[0];
    b.size = Integer.parseInt(args[1]);
    b.depth = Integer.parseInt(args[2]);
    b.qps = Integer.parseInt(args[3]);
    b.srq = Boolean.parseBoolean(args[4]);
    b.crc = args.length < 7 || Boolean.parseBoolean(args[6]);
    long n = Long.parseLong(args[5]);
    b.setUp();
    try {
      for (long i = 0; i < n; i++) {
        b.message();
      }
      b.drain();
      ThreadMXBean mx = ManagementFactory.getThreadMXBean();
      Map<String, Long> before = cpu(mx);
      Map<String, Long> switchesBefore = voluntarySwitches();
      long start = System.nanoTime();
      for (long i = 0; i < n; i++) {
        b.message();
      }
      b.drain();
      long wall = System.nanoTime() - start;
      Map<String, Long> after = cpu(mx);
      Map<String, Long> switchesAfter = voluntarySwitches();
      StringBuilder line = new StringBuilder("op=" + b.op + " size=" + b.size + " depth="
          + b.depth + " qps=" + b.qps + " srq=" + b.srq + " crc=" + b.crc + " rate="
          + (long) (n * 1e9 / wall));
      for (Map.Entry<String, Long> e : after.entrySet()) {
        long spent = e.getValue() - before.getOrDefault(e.getKey(), 0L);
        line.append(' ').append(e.getKey()).append('=').append(spent / n).append("ns");
      }
      System.out.println(line);
      if (!switchesAfter.isEmpty()) {
        StringBuilder sw = new StringBuilder("vcs/1k");
        for (Map.Entry<String, Long> e : switchesAfter.entrySet()) {
          long d = e.getValue() - switchesBefore.getOrDefault(e.getKey(), 0L);
          sw.append(' ').append(e.getKey()).append('=')
              .append(String.format(java.util.Locale.ROOT, "%.2f", d * 1000.0 / n));
        }
        System.out.println(sw);
      }
    } finally {
      b.tearDown();
    }
  }

  /**
   * Voluntary context switches of this process's event loops and of the posting thread (named
   * as the JVM names the native thread: the Java name cut to 15 characters), from /proc; empty
   * elsewhere.
   */
  private static Map<String, Long> voluntarySwitches() {
    Map<String, Long> m = new TreeMap<>();
    String poster = Thread.currentThread().getName();
    java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
    if (tasks == null) {
      return m;
    }
    for (java.io.File task : tasks) {
      try {
        String name = java.nio.file.Files.readString(task.toPath().resolve("comm")).trim();
        // The JVM's main thread keeps the launcher's name, "java" (the launcher thread itself
        // only waits for it, so its switches add nothing).
        String key = name.startsWith("iwarp4j-") ? name
            : name.equals("java") || poster.startsWith(name) ? poster : null;
        if (key == null) {
          continue;
        }
        for (String l : java.nio.file.Files.readAllLines(task.toPath().resolve("status"))) {
          if (l.startsWith("voluntary_ctxt_switches:")) {
            m.merge(key, Long.parseLong(l.substring(l.indexOf(':') + 1).trim()), Long::sum);
          }
        }
      } catch (java.io.IOException | RuntimeException e) {
        // A thread that ended between the listing and the read: not one we measure.
      }
    }
    return m;
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
