package io.iwarp4j.benchmarks;

/**
 * Entry point of the benchmarks jar: the verbs loopback demo, the MPA-only loopback demo, JMH,
 * {@code iwarp-perf} (also {@code perf}), the perftest-compatible tool, and {@code iwarp-ping},
 * the rping-compatible one. Like those tools: {@code --help} on stdout with status 0, an unknown
 * command or argument refused with one line on stderr and status 2, a failure one line on
 * stderr and status 1.
 */
public final class Main {
  /** The usage text, printed with {@code --help}. */
  static final String USAGE = String.join("\n",
      "usage: java -jar iwarp4j-benchmarks.jar [command]",
      "  loopback              the verbs demo over 127.0.0.1: Write bandwidth, Read with every",
      "                        octet verified, Send ping-pong (the default command)",
      "  loopback-mpa          the MPA-only demo over 127.0.0.1",
      "  iwarp-perf ...        perftest's ib_*_bw/ib_*_lat over iwarp4j (iwarp-perf --help)",
      "  iwarp-ping ...        rping over iwarp4j (iwarp-ping --help)",
      "  jmh [JMH options]     the JMH suite (docs/benchmarks.md)",
      "  idle-qp-memory [N [S]]  heap and direct memory of N idle connected queue pairs",
      "On JDK 24+ the jar restarts itself with --sun-misc-unsafe-memory-access=allow and",
      "--enable-native-access=ALL-UNNAMED (Netty's fast path, no warnings);",
      "IWARP4J_NO_RELAUNCH=1 turns that off.",
      "");

  private static final String LIFECYCLE_LEVEL = "org.slf4j.simpleLogger.log.io.iwarp4j.lifecycle";

  private Main() {
  }

  /**
   * Runs a command.
   *
   * @param args a command and its arguments (see {@link #USAGE})
   * @throws Exception when JMH fails
   */
  public static void main(String[] args) throws Exception {
    String cmd = args.length == 0 ? "loopback" : args[0];
    if (isHelp(cmd) || cmd.equals("help")) {
      System.out.print(USAGE);
      System.exit(0);
    }
    String[] rest = java.util.Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    String refusal = refusal(cmd, rest);
    if (refusal != null) {
      System.err.println("iwarp4j-benchmarks: " + refusal
          + " (java -jar iwarp4j-benchmarks.jar --help)");
      System.exit(2);
    }
    if (rest.length == 1 && isHelp(rest[0]) && isDemo(cmd)) {
      System.out.print(USAGE);
      System.exit(0);
    }
    Relauncher.relaunchIfNeeded(args);
    if (cmd.startsWith("iwarp-") || cmd.equals("perf")) {
      // The tools print one line per failure themselves; the library's lifecycle WARN line
      // would say the same again (give -Dorg.slf4j.simpleLogger.log.io.iwarp4j.lifecycle=info
      // to see it).
      System.setProperty(LIFECYCLE_LEVEL, System.getProperty(LIFECYCLE_LEVEL, "error"));
    }
    switch (cmd) {
      case "loopback" -> demo("loopback", () -> LoopbackDemo.run(rest));
      case "loopback-mpa" -> demo("loopback-mpa", () -> MpaLoopbackDemo.run(rest));
      case "jmh" -> org.openjdk.jmh.Main.main(rest);
      case "iwarp-ping" -> io.iwarp4j.tools.ping.IwarpPing.main(rest);
      case "iwarp-perf", "perf" -> System.exit(
          io.iwarp4j.tools.perf.IwarpPerf.run(rest, System.out, System.err));
      case "idle-qp-memory" -> demo("idle-qp-memory",
          () -> io.iwarp4j.benchmarks.suite.IdleQpMemory.run(rest));
      default -> throw new IllegalStateException(cmd); // refusal() knows every command
    }
  }

  private static boolean isHelp(String a) {
    return a.equals("-h") || a.equals("--help");
  }

  private static boolean isDemo(String cmd) {
    return cmd.equals("loopback") || cmd.equals("loopback-mpa") || cmd.equals("idle-qp-memory");
  }

  /**
   * Why a command line is refused, or null when it is fine. The tools (iwarp-perf, iwarp-ping,
   * jmh) check their own arguments.
   *
   * @param cmd the command
   * @param rest its arguments
   * @return one line naming the problem, or null
   */
  static String refusal(String cmd, String[] rest) {
    switch (cmd) {
      case "iwarp-perf", "perf", "iwarp-ping", "jmh" -> {
        return null;
      }
      case "loopback", "loopback-mpa" -> {
        if (rest.length == 0 || (rest.length == 1 && isHelp(rest[0]))) {
          return null;
        }
        return cmd + " takes no arguments, not " + rest[0];
      }
      case "idle-qp-memory" -> {
        if (rest.length == 1 && isHelp(rest[0])) {
          return null;
        }
        if (rest.length > 2) {
          return "idle-qp-memory takes at most 2 arguments, not " + rest[2];
        }
        for (String a : rest) {
          if (!a.matches("[0-9]{1,6}")) {
            return "idle-qp-memory takes numbers (connections, seconds), not " + a;
          }
        }
        return null;
      }
      default -> {
        return "unknown command " + cmd;
      }
    }
  }

  private interface Demo {
    void run() throws Exception;
  }

  /** Runs a demo; exits 0 on success, 1 with one line naming the failure otherwise. */
  private static void demo(String name, Demo demo) {
    int status = 0;
    try {
      demo.run();
    } catch (Throwable t) {
      System.err.println(name + " demo FAILED: " + describe(t));
      status = 1;
    }
    System.out.flush();
    System.exit(status);
  }

  /** A throwable and its causes on one line, each message once. */
  static String describe(Throwable t) {
    StringBuilder b = new StringBuilder(String.valueOf(t));
    String last = t.getMessage();
    for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      String m = c.getMessage();
      if (m != null && last != null && last.contains(m)) {
        continue;
      }
      b.append(": ").append(c);
      last = m;
    }
    return b.toString();
  }
}
