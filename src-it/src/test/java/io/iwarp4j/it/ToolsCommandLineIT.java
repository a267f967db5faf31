package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The benchmarks jar's tools behave alike, run as a user runs them ({@code java -jar}, a process
 * each): {@code --help} on stdout with status 0; an unknown command, option or argument refused
 * with status 2 and one line on stderr naming it; a failed connect one line on stderr and
 * status 1. On JDK 24+ no JVM warning appears (the jar restarts itself with the flags).
 */
@Timeout(300)
class ToolsCommandLineIT {
  private static final Path JAR = Paths.get("").toAbsolutePath().getParent()
      .resolve("benchmarks/target/iwarp4j-benchmarks.jar");

  private record Run(int status, String out, String err) {
    List<String> errLines() {
      return err.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  private static Run jar(String... args) throws Exception {
    assertTrue(Files.isRegularFile(JAR), JAR + " is missing: build with mvn package");
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-jar");
    cmd.add(JAR.toString());
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("tool", ".out");
    Path err = Files.createTempFile("tool", ".err");
    try {
      Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
          .start();
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "did not finish: " + cmd);
      return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void assertHelp(Run r, String usage) {
    assertEquals(0, r.status(), r.toString());
    assertTrue(r.out().startsWith(usage), r.toString());
    assertEquals("", r.err(), r.toString());
  }

  private static void assertRefused(Run r, String named) {
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), "one line: " + r);
    assertTrue(r.err().contains(named), r.toString());
    assertEquals("", r.out(), r.toString());
  }

  private static void assertOneLineFailure(Run r, String prefix) {
    assertEquals(1, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), "one line per failure: " + r);
    assertTrue(r.err().startsWith(prefix), r.toString());
    assertFalse(r.err().contains("finishConnect"), "Netty's wording: " + r);
    assertTrue(r.err().contains("Connection refused"), r.toString());
  }

  @Test
  void helpGoesToStdoutWithStatusZero() throws Exception {
    assertHelp(jar("--help"), "usage: java -jar iwarp4j-benchmarks.jar");
    assertHelp(jar("loopback", "--help"), "usage: java -jar iwarp4j-benchmarks.jar");
    assertHelp(jar("iwarp-perf", "--help"), "usage: iwarp-perf");
    assertHelp(jar("iwarp-ping", "--help"), "usage: iwarp-ping");
  }

  @Test
  void unknownCommandsOptionsAndArgumentsAreRefusedByNameWithStatusTwo() throws Exception {
    assertRefused(jar("bogus"), "unknown command bogus");
    assertRefused(jar("loopback", "--bogus"), "--bogus");
    assertRefused(jar("iwarp-perf", "loopback", "write_bw", "--bogus"), "--bogus");
    assertRefused(jar("iwarp-perf", "loopback", "fly_bw"), "fly_bw");
    assertRefused(jar("iwarp-ping", "-s", "--bogus"), "--bogus");
    assertRefused(jar("iwarp-ping", "-c", "-a", "127.0.0.1", "extra"), "extra");
  }

  @Test
  void aRefusedConnectIsOneLineAndStatusOne() throws Exception {
    String port = Integer.toString(closedPort());
    assertOneLineFailure(jar("iwarp-ping", "-c", "-a", "127.0.0.1", "-p", port, "-C", "1"),
        "iwarp-ping: connect to /127.0.0.1:" + port + " failed");
    assertOneLineFailure(jar("iwarp-perf", "write_bw", "-p", port, "127.0.0.1"),
        "iwarp-perf: cannot connect control to 127.0.0.1:" + port);
  }

  @Test
  void theLoopbackTourRunsWithoutWarnings() throws Exception {
    Run r = jar("iwarp-perf", "loopback", "write_bw", "-s", "4096", "-n", "200", "--warmup", "0",
        "--no-progress");
    assertEquals(0, r.status(), r.toString());
    assertFalse(r.err().contains("WARNING"), "JVM warnings: " + r.err());
    assertTrue(r.out().contains("BW average[MB/sec]"), r.out());
  }
}
