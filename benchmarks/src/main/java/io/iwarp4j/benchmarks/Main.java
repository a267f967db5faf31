package io.iwarp4j.benchmarks;

/**
 * Entry point of the benchmarks jar: the verbs loopback demo, the MPA-only loopback demo, JMH,
 * and {@code iwarp-perf} (also {@code perf}), the perftest-compatible tool.
 */
public final class Main {
  private Main() {
  }

  /**
   * Runs a command.
   *
   * @param args {@code loopback} (default), {@code loopback-mpa}, {@code jmh} followed by JMH
   *     options, or {@code iwarp-perf} followed by its arguments
   * @throws Exception when JMH fails
   */
  public static void main(String[] args) throws Exception {
    String cmd = args.length == 0 ? "loopback" : args[0];
    String[] rest = java.util.Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    switch (cmd) {
      case "loopback" -> demo("loopback", () -> LoopbackDemo.run(rest));
      case "loopback-mpa" -> demo("loopback-mpa", () -> MpaLoopbackDemo.run(rest));
      case "jmh" -> org.openjdk.jmh.Main.main(rest);
      case "iwarp-ping" -> io.iwarp4j.tools.ping.IwarpPing.main(rest);
      case "iwarp-perf", "perf" -> System.exit(
          io.iwarp4j.tools.perf.IwarpPerf.run(rest, System.out, System.err));
      case "idle-qp-memory" -> demo("idle-qp-memory",
          () -> io.iwarp4j.benchmarks.suite.IdleQpMemory.run(rest));
      default -> {
        System.err.println("usage: java -jar iwarp4j-benchmarks.jar [loopback|loopback-mpa"
            + "|jmh [JMH options]|iwarp-perf <test> [options]|iwarp-ping [options]"
            + "|idle-qp-memory [connections]]");
        System.exit(2);
      }
    }
  }

  private interface Demo {
    void run() throws Exception;
  }

  /** Runs a demo; exits 0 on success, 1 with the failure on stderr otherwise. */
  private static void demo(String name, Demo demo) {
    int status = 0;
    try {
      demo.run();
    } catch (Throwable t) {
      System.err.println(name + " demo FAILED: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.exit(status);
  }
}
