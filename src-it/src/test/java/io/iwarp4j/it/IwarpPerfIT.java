package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.wirecheck.LoopbackCapture;
import io.iwarp4j.it.wirecheck.WireReport;
import io.iwarp4j.tools.perf.IwarpPerf;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * iwarp-perf end to end over 127.0.0.1: every test in loopback mode (server and client in this
 * JVM), write_bw and send_lat with the server in a separate JVM, and an unreachable server.
 * Each run checks the exit status, perftest's result columns, a result line with sane numbers
 * and the JSON file.
 */
@Timeout(180)
class IwarpPerfIT {
  private static final Pattern BW_LINE = Pattern.compile(
      "^ (\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$", Pattern.MULTILINE);
  private static final Pattern LAT_LINE = Pattern.compile(
      "^ (\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)"
          + "\\s+([0-9.]+)\\s+([0-9.]+)\\s*$", Pattern.MULTILINE);

  @TempDir
  Path dir;

  private record Run(int status, String out, String err) {
  }

  private static Run perf(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = IwarpPerf.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(status, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }

  private static void assertBandwidth(Run r, long size, long iters) {
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("#bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]"
        + "   MsgRate[Mpps]"), r.out());
    var m = BW_LINE.matcher(r.out());
    assertTrue(m.find(), "no result line: " + r.out());
    assertEquals(size, Long.parseLong(m.group(1)));
    assertEquals(iters, Long.parseLong(m.group(2)));
    double peak = Double.parseDouble(m.group(3));
    double avg = Double.parseDouble(m.group(4));
    // Two decimals of MB/s: 8-octet atomics may print 0.00; their message rate shows progress.
    assertTrue((avg > 0 || size < 1024) && peak >= avg, "peak " + peak + " avg " + avg);
    assertTrue(Double.parseDouble(m.group(5)) > 0, r.out());
  }

  private static void assertLatency(Run r, long size, long iters) {
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("t_typical[usec]"), r.out());
    var m = LAT_LINE.matcher(r.out());
    assertTrue(m.find(), "no result line: " + r.out());
    assertEquals(size, Long.parseLong(m.group(1)));
    assertEquals(iters, Long.parseLong(m.group(2)));
    double min = Double.parseDouble(m.group(3));
    double max = Double.parseDouble(m.group(4));
    double typical = Double.parseDouble(m.group(5));
    assertTrue(min > 0 && min <= typical && typical <= max, m.group());
  }

  private void assertJson(Path json, String test, String role, long size) throws Exception {
    String j = Files.readString(json);
    assertTrue(j.contains("\"test\": \"" + test + "\""), j);
    assertTrue(j.contains("\"role\": \"" + role + "\""), j);
    assertTrue(j.contains("\"peer_version\": \"6.06\""), j);
    assertTrue(j.contains("{\"MsgSize\": " + size + ","), j);
  }

  @ParameterizedTest
  @ValueSource(strings = {"write_bw", "read_bw", "send_bw", "atomic_bw"})
  void bandwidthTestsInLoopback(String test) throws Exception {
    Path json = dir.resolve(test + ".json");
    long size = test.equals("atomic_bw") ? 8 : 16384;
    List<String> args = new ArrayList<>(List.of("loopback", test, "-n", "300", "--no-progress",
        "--json", json.toString()));
    if (!test.equals("atomic_bw")) {
      args.addAll(List.of("-s", Long.toString(size)));
    }
    Run r = perf(args.toArray(String[]::new));
    assertBandwidth(r, size, 300);
    assertTrue(r.out().contains("Transport type : IW"), r.out());
    assertJson(json, test, "client", size);
  }

  @ParameterizedTest
  @ValueSource(strings = {"write_lat", "send_lat"})
  void latencyTestsInLoopback(String test) throws Exception {
    Path json = dir.resolve(test + ".json");
    Run r = perf("loopback", test, "-n", "200", "-s", "64", "--no-progress", "--json",
        json.toString());
    assertLatency(r, 64, 200);
    assertJson(json, test, "client", 64);
  }

  /**
   * write_lat's server writes first (as perftest's). Without the option our client opens the
   * data connection in peer-to-peer mode (its Write RTR lets the server go, RFC 6581); with
   * {@code --responder-sends-first} the client connects client-server like siw's
   * {@code ib_write_lat}, and only the server's non-conformant opt-in (send right after the MPA
   * Reply) lets it start: without it the server would wait for a first FPDU that never comes.
   */
  @ParameterizedTest(name = "-s {0} {1}")
  @CsvSource({"64, ''", "65536, ''", "64, --responder-sends-first",
      "65536, --responder-sends-first"})
  void writeLatWithAndWithoutTheResponderSendingFirst(long size, String option) {
    List<String> args = new ArrayList<>(List.of("loopback", "write_lat", "-n", "200", "-s",
        Long.toString(size), "--no-progress"));
    if (!option.isEmpty()) {
      args.add(option);
    }
    assertLatency(perf(args.toArray(String[]::new)), size, 200);
  }

  /**
   * The opt-in's wire: a client-server write_lat whose server writes first right after the MPA
   * Reply (RFC 5044 §7.1.2 rule 4 departed from on purpose) passes the wire check, and no RTR
   * is sent.
   */
  @Test
  void responderSendsFirstPassesTheWireCheck() throws Exception {
    WireCheck.requireAvailable();
    Path capDir = Path.of("target", "wirecheck");
    Files.createDirectories(capDir);
    WireReport result = WireCheck.withCaptureRetries(3, () -> {
      int port = WireCheck.freePort();
      Path pcap = capDir.resolve("iwarp-perf-write_lat-sends-first-" + port + ".pcap")
          .toAbsolutePath();
      try (LoopbackCapture capture = WireCheck.startCapture(port, 120, pcap)) {
        Run[] server = new Run[1];
        Thread t = new Thread(() -> server[0] = perf("write_lat", "-p", Integer.toString(port),
            "-n", "50", "-s", "64", "--no-progress", "--responder-sends-first"),
            "iwarp-perf-sends-first-server");
        t.start();
        Run client = null;
        for (int attempt = 0; attempt < 50; attempt++) { // until the server listens
          client = perf("write_lat", "-p", Integer.toString(port), "-n", "50", "-s", "64",
              "--no-progress", "--responder-sends-first", "127.0.0.1");
          if (client.status() == 0 || !client.err().contains("unreachable")) {
            break;
          }
          Thread.sleep(100);
        }
        t.join(60_000);
        assertLatency(client, 64, 50);
        assertEquals(0, server[0].status(), server[0].out() + server[0].err());
        capture.stop();
      }
      return WireCheck.check(pcap, port);
    });
    String out = result.summary();
    System.out.println(out);
    assertTrue(result.passed(), "the wire check found errors:\n" + out);
    assertEquals(0, result.totals().crcBad(), "bad CRCs: " + out);
    Map<Integer, Integer> messages = result.messages();
    assertEquals(100, messages.get(0), "50 RDMA Writes each way, no RTR: " + out);
  }

  /**
   * Fewer receives than messages: receives are reposted as they complete and, for send_bw, the
   * sender waits for the receiver's credit Writes; no Send may find no receive (that would be a
   * Terminate).
   */
  /**
   * {@code --use_srq} (issue 16): the server's receives come from one shared receive queue for
   * two data queue pairs, fewer than the messages, so they are reposted to it and each
   * completion is counted for the queue pair it names; the server ends only when it counted
   * {@code -n} messages on each (and a Send that found the queue empty would be a Terminate).
   */
  @Test
  void sendBwWithASharedReceiveQueueOnTheServer() {
    Run r = perf("loopback", "send_bw", "--use_srq", "-q", "2", "-n", "600", "-r", "12", "-s",
        "1024", "--no-progress");
    // perftest's report counts the messages of every queue pair: 2 x 600.
    assertBandwidth(r, 1024, 1200);
  }

  @ParameterizedTest
  @ValueSource(strings = {"send_bw", "send_lat"})
  void sendTestsWithASmallRxDepthRepostAndUseCredits(String test) {
    Run r = perf("loopback", test, "-n", "600", "-r", "12", "-s", "1024", "--no-progress");
    if (test.equals("send_bw")) {
      assertBandwidth(r, 1024, 600);
    } else {
      assertLatency(r, 1024, 600);
    }
  }

  /** --tls in loopback: both roles over TLS 1.3 with a key pair generated by keytool. */
  @ParameterizedTest
  @ValueSource(strings = {"write_bw", "send_bw"})
  void tlsInLoopback(String test) {
    assertBandwidth(perf("loopback", test, "--tls", "-n", "300", "-s", "4096", "--no-progress"),
        4096, 300);
  }

  @Test
  void sizeSweepRunsEverySizeWithoutCrc() {
    Run r = perf("loopback", "write_bw", "-a", "-n", "20", "--no-crc", "--no-progress");
    assertEquals(0, r.status(), r.out() + r.err());
    var m = BW_LINE.matcher(r.out());
    int lines = 0;
    while (m.find()) {
      assertEquals(2L << lines, Long.parseLong(m.group(1)));
      lines++;
    }
    assertEquals(23, lines, r.out());
    assertTrue(r.out().contains("CRC off"), r.out());
  }

  @Test
  void progressLinesGoToStderr() {
    Run r = perf("loopback", "write_bw", "-D", "2", "-s", "4096");
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.err().contains("iwarp-perf: write_bw 4096 B:"), r.err());
    assertTrue(BW_LINE.matcher(r.out()).find(), r.out());
  }

  @ParameterizedTest
  @CsvSource({"write_bw, ''", "send_lat, ''", "read_bw, ''", "send_bw, --use_srq"})
  void serverInASeparateJvm(String test, String serverOption) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String leak = System.getProperty("io.netty.leakDetection.level");
    if (leak != null) {
      cmd.add("-Dio.netty.leakDetection.level=" + leak);
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(IwarpPerf.class.getName());
    Path serverJson = dir.resolve("server-" + test + ".json");
    cmd.addAll(List.of(test, "-p", "0", "-n", "200", "-s", "2048", "--no-progress", "--json",
        serverJson.toString()));
    if (!serverOption.isEmpty()) {
      cmd.add(serverOption);
    }
    Process server = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    ProcessOutput out = ProcessOutput.follow(server, "iwarp-perf-server-output");
    try {
      String listening = out.await(l -> l.contains("listening on port "),
          "'listening on port' line", 60, TimeUnit.SECONDS);
      int port = Integer.parseInt(listening.substring(listening.indexOf("listening on port ")
          + "listening on port ".length()).trim());
      Path json = dir.resolve("client-" + test + ".json");
      Run r = perf(test, "-p", Integer.toString(port), "-n", "200", "-s", "2048",
          "--no-progress", "--json", json.toString(), "127.0.0.1");
      if (test.endsWith("_lat")) {
        assertLatency(r, 2048, 200);
      } else {
        assertBandwidth(r, 2048, 200);
      }
      assertJson(json, test, "client", 2048);
      assertTrue(server.waitFor(60, TimeUnit.SECONDS), () -> "server did not exit: " + out);
      out.awaitEnd(5, TimeUnit.SECONDS);
      String serverOut = out.text();
      assertEquals(0, server.exitValue(), serverOut);
      assertTrue(serverOut.contains("Waiting for client to connect"), serverOut);
      assertTrue(serverOut.contains("Using SRQ      : " + (serverOption.equals("--use_srq")
          ? "ON" : "OFF")), serverOut);
      // The server prints the client's report (bw) or its own (lat), like perftest.
      if (test.endsWith("_lat")) {
        assertTrue(LAT_LINE.matcher(serverOut).find(), serverOut);
      } else {
        assertTrue(BW_LINE.matcher(serverOut).find(), serverOut);
      }
      assertJson(serverJson, test, "server", 2048);
    } finally {
      server.destroyForcibly();
    }
  }

  /**
   * The wire check on whole runs: two MPA connections (control, data), every CRC good, no
   * Terminate, and exactly the messages perftest 4.5-0.17's rdma_cm mode exchanges.
   *
   * <p>write_bw: 16 Sends from each end on the control connection (version, cycle buffer, cache
   * line, MTU, two syncs around the data connection, three handshakes with the QP's rkey and
   * vaddr, the end-of-test sync, five report messages, the closing sync) and one RDMA Write per
   * iteration. send_bw: 11 control Sends per end (the same up to the handshakes, which are
   * Q + 1 + Q, then the sync after the receives are posted and the closing sync; no reports),
   * one Send per iteration, and the receiver's credit RDMA Writes at receive counts 16, 32, 48
   * and 50 ({@code (rcnt % rx_depth) % (rx_depth / 3) == 0} with rx_depth = min(512, 50)).
   */
  @ParameterizedTest
  @CsvSource({"write_bw, 50, 32", "send_bw, 4, 72"})
  void wholeRunsPassTheWireCheck(String test, int writes, int sends) throws Exception {
    WireCheck.requireAvailable();
    Path capDir = Path.of("target", "wirecheck");
    Files.createDirectories(capDir);
    WireReport result = WireCheck.withCaptureRetries(3, () -> {
      int port = WireCheck.freePort();
      Path pcap = capDir.resolve("iwarp-perf-" + test + "-" + port + ".pcap").toAbsolutePath();
      try (LoopbackCapture capture = WireCheck.startCapture(port, 120, pcap)) {
        Run[] server = new Run[1];
        Thread t = new Thread(() -> server[0] = perf(test, "-p", Integer.toString(port),
            "-n", "50", "-s", "4096", "--no-progress"), "iwarp-perf-wirecheck-server");
        t.start();
        Run client = null;
        for (int attempt = 0; attempt < 50; attempt++) { // until the server listens
          client = perf(test, "-p", Integer.toString(port), "-n", "50", "-s", "4096",
              "--no-progress", "127.0.0.1");
          if (client.status() == 0 || !client.err().contains("unreachable")) {
            break;
          }
          Thread.sleep(100);
        }
        t.join(60_000);
        assertBandwidth(client, 4096, 50);
        assertEquals(0, server[0].status(), server[0].out() + server[0].err());
        capture.stop();
      }
      return WireCheck.check(pcap, port);
    });
    String out = result.summary();
    System.out.println(out);
    assertTrue(result.passed(), "the wire check found errors:\n" + out);
    // A client attempt made before the server listened shows up as a TCP stream without MPA.
    assertEquals(2, result.mpaConnections(), out);
    assertEquals(0, result.totals().crcBad(), "bad CRCs: " + out);
    Map<Integer, Integer> messages = result.messages();
    assertEquals(writes, messages.get(0), "RDMA Writes: " + out);
    assertEquals(sends, messages.get(3), "Sends: " + out);
    assertEquals(null, messages.get(7), "no Terminate: " + out);
  }

  /**
   * The client's bandwidth loop allocates nothing per operation: two loopback runs that differ
   * only in their iteration count differ in the calling thread's allocation by little more than
   * the timestamp arrays (two longs per iteration, preallocated once per run). Measured with
   * the JVM's per-thread allocation counter, not timed.
   */
  @Test
  void bandwidthLoopAllocatesNothingPerOperation() {
    var threads = (com.sun.management.ThreadMXBean)
        java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported(),
        "this JVM cannot count allocated bytes per thread");
    long tid = Thread.currentThread().getId();
    perf("loopback", "write_bw", "-n", "2000", "-s", "1024", "--no-progress"); // warm up
    long[] bytes = new long[2];
    int[] iters = {2000, 20000};
    for (int k = 0; k < 2; k++) {
      long before = threads.getThreadAllocatedBytes(tid);
      Run r = perf("loopback", "write_bw", "-n", Integer.toString(iters[k]), "-s", "1024",
          "--no-progress");
      bytes[k] = threads.getThreadAllocatedBytes(tid) - before;
      assertEquals(0, r.status(), r.out() + r.err());
    }
    double perOp = (double) (bytes[1] - bytes[0]) / (iters[1] - iters[0]);
    System.out.printf("iwarp-perf write_bw client thread: %d B for %d ops, %d B for %d ops:"
        + " %.2f B/op (16 B/op are the preallocated timestamp arrays)%n", bytes[0], iters[0],
        bytes[1], iters[1], perOp);
    assertTrue(perOp < 16 + 4, "allocation per operation: " + perOp + " B");
  }

  /**
   * Regression: with more Reads posted than the ORD and 1 MiB responses, the responder used to
   * receive a Read Request while it still counted IRD requests outstanding, and terminated the
   * stream (1/2/0x02). The requester frees an ORD slot when a response's last octet is placed;
   * the responder freed its IRD slot only when the barrier behind a whole batch of responses
   * came back. Now every response has its own barrier (TransmitOrder#responseWritten).
   */
  @Test
  void readBwWithLargeResponsesAndATxDepthAboveTheOrd() {
    for (int round = 0; round < 3; round++) {
      assertBandwidth(perf("loopback", "read_bw", "-s", "1048576", "-n", "40", "-t", "32",
          "--no-progress"), 1048576, 40);
    }
  }

  @Test
  void unreachableServerExitsNonZeroWithOneLineAndNoStackTrace() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    Run r = perf("write_bw", "-p", Integer.toString(port), "--timeout", "5", "127.0.0.1");
    assertEquals(IwarpPerf.FAILED, r.status());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith("iwarp-perf: "), r.err());
    assertTrue(r.err().contains("unreachable") || r.err().contains("refused"), r.err());
    assertFalse(r.err().contains("\tat "), r.err());
    assertFalse(r.out().contains("#bytes"), r.out());
  }

  @Test
  void debugAddsTheStackTrace() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Run r = perf("write_bw", "-p", Integer.toString(port), "--timeout", "5", "-v", "127.0.0.1");
    assertEquals(IwarpPerf.FAILED, r.status());
    assertTrue(r.err().contains("\tat "), r.err());
  }
}
