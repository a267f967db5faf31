package io.iwarp4j.benchmarks;

/** Entry point of the benchmarks jar: the loopback demo, JMH, and later the perftest-style tool. */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) throws Exception {
    String cmd = args.length == 0 ? "loopback" : args[0];
    String[] rest = java.util.Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    switch (cmd) {
      case "loopback" -> LoopbackDemo.run(rest);
      case "jmh" -> org.openjdk.jmh.Main.main(rest);
      default -> {
        System.err.println("usage: java -jar iwarp4j-benchmarks.jar [loopback|jmh [JMH options]]");
        System.exit(2);
      }
    }
  }
}
