package io.iwarp4j.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The jar's command line: refusals name the argument; the JDK 24+ restart's command line. */
class MainTest {
  @Test
  void unknownCommandsAndArgumentsAreRefusedByName() {
    assertEquals("unknown command bogus", Main.refusal("bogus", new String[0]));
    assertEquals("loopback takes no arguments, not --bogus",
        Main.refusal("loopback", new String[] {"--bogus"}));
    assertEquals("loopback-mpa takes no arguments, not x",
        Main.refusal("loopback-mpa", new String[] {"x"}));
    assertEquals("idle-qp-memory takes numbers (connections, seconds), not -n",
        Main.refusal("idle-qp-memory", new String[] {"-n"}));
    assertEquals("idle-qp-memory takes at most 2 arguments, not 3",
        Main.refusal("idle-qp-memory", new String[] {"1", "2", "3"}));
  }

  @Test
  void knownCommandsPass() {
    assertNull(Main.refusal("loopback", new String[0]));
    assertNull(Main.refusal("loopback", new String[] {"--help"}));
    assertNull(Main.refusal("idle-qp-memory", new String[] {"10", "5"}));
    // the tools check their own arguments
    assertNull(Main.refusal("iwarp-perf", new String[] {"--bogus"}));
    assertNull(Main.refusal("iwarp-ping", new String[] {"--bogus"}));
    assertNull(Main.refusal("jmh", new String[] {"-l"}));
  }

  @Test
  void describeKeepsEachMessageOnce() {
    Exception e = new IllegalStateException("connect failed: refused",
        new java.io.IOException("refused"));
    assertEquals("java.lang.IllegalStateException: connect failed: refused", Main.describe(e));
    Exception f = new IllegalStateException("connect failed", new java.io.IOException("refused"));
    assertEquals("java.lang.IllegalStateException: connect failed: java.io.IOException: refused",
        Main.describe(f));
  }

  @Test
  void jdk24PlusRestartsWithTheUnsafeAndNativeAccessFlagsOnce() {
    String[] args = {"iwarp-perf", "loopback", "write_bw"};
    List<String> cmd = Relauncher.command(25, List.of("-Xmx1g"), null, "/jdk", "the.jar", args);
    assertEquals(List.of("/jdk/bin/java", "--sun-misc-unsafe-memory-access=allow",
        "--enable-native-access=ALL-UNNAMED", "-Xmx1g", "-cp", "the.jar",
        "io.iwarp4j.benchmarks.Main", "iwarp-perf", "loopback", "write_bw"), cmd);
    assertNull(Relauncher.command(17, List.of(), null, "/jdk", "the.jar", args), "JDK 17");
    assertNull(Relauncher.command(23, List.of(), null, "/jdk", "the.jar", args), "JDK 23");
    // the child (and benchmarks/bin's scripts) already give the flag: no second restart
    assertNull(Relauncher.command(25, List.of("--sun-misc-unsafe-memory-access=allow"), null,
        "/jdk", "the.jar", args));
    assertNull(Relauncher.command(25, List.of(), "1", "/jdk", "the.jar", args), "opt-out");
    assertNull(Relauncher.command(25, List.of("-agentlib:jdwp=transport=dt_socket"), null,
        "/jdk", "the.jar", args), "a debugger stays attached to this JVM");
    assertTrue(Main.USAGE.contains("IWARP4J_NO_RELAUNCH"), Main.USAGE);
  }
}
