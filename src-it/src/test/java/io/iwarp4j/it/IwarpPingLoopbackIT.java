package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.wirecheck.LoopbackCapture;
import io.iwarp4j.it.wirecheck.WireReport;
import io.iwarp4j.tools.ping.IwarpPing;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * iwarp-ping against itself over TCP on 127.0.0.1: our client and our server, {@code -C 100 -V},
 * in each MPA mode the siw matrix uses (CRC on and off, peer-to-peer with a Write and a Read
 * RTR), with the client's siw quiet period on, and every capture passes the wire check.
 */
@Timeout(180)
class IwarpPingLoopbackIT {
  private static final int COUNT = 100;

  @Test
  void hundredVerifiedPingsInEachModePassTheWireCheck() throws Exception {
    WireCheck.requireAvailable();
    Path dir = Paths.get("target", "wirecheck");
    Files.createDirectories(dir);
    WireReport result = WireCheck.withCaptureRetries(3, () -> {
      int port = WireCheck.freePort();
      Path pcap = dir.resolve("iwarp-ping-" + port + ".pcap").toAbsolutePath();
      try (LoopbackCapture capture = WireCheck.startCapture(port, 150, pcap)) {
        ping(port, List.of("--no-crc"), List.of("--no-crc"));
        ping(port, List.of("--crc"), List.of("--crc"));
        ping(port, List.of("--no-crc"), List.of("--crc", "--p2p=write"));
        ping(port, List.of("--no-crc"), List.of("--no-crc", "--p2p=read"));
        capture.stop();
      }
      return WireCheck.check(pcap, port);
    });
    assertTrue(result.passed(), result.summary());
    assertEquals(4, result.mpaConnections(), result.summary());
  }

  /**
   * {@code --stream-after-rtr}: 200 Sends each way posted right behind the RTR (Write and Read
   * RTR, CRC on), every message verified by both ends, and the captures pass the wire check.
   */
  @Test
  void streamAfterRtrCarriesEveryMessageBothWays() throws Exception {
    WireCheck.requireAvailable();
    Path dir = Paths.get("target", "wirecheck");
    Files.createDirectories(dir);
    WireReport result = WireCheck.withCaptureRetries(3, () -> {
      int port = WireCheck.freePort();
      Path pcap = dir.resolve("iwarp-ping-stream-" + port + ".pcap").toAbsolutePath();
      try (LoopbackCapture capture = WireCheck.startCapture(port, 150, pcap)) {
        for (String rtr : List.of("--p2p=write", "--p2p=read")) {
          stream(port, 200, rtr);
        }
        capture.stop();
      }
      return WireCheck.check(pcap, port);
    });
    assertTrue(result.passed(), result.summary());
    assertEquals(2, result.mpaConnections(), result.summary());
  }

  private static void stream(int port, int n, String rtr) throws Exception {
    ByteArrayOutputStream sout = new ByteArrayOutputStream();
    ByteArrayOutputStream serr = new ByteArrayOutputStream();
    CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
    String[] sargs = {"-s", "-a", "127.0.0.1", "-p", Integer.toString(port), "-V", "-S", "1000",
        "--crc", "--timeout=60", "--stream-after-rtr=" + n};
    CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> IwarpPing.run(sargs,
        new PrintStream(sout, true, StandardCharsets.UTF_8),
        new PrintStream(serr, true, StandardCharsets.UTF_8), listening::complete));
    listening.get(30, TimeUnit.SECONDS);
    ByteArrayOutputStream cout = new ByteArrayOutputStream();
    ByteArrayOutputStream cerr = new ByteArrayOutputStream();
    int crc = IwarpPing.run(new String[] {"-c", "-a", "127.0.0.1", "-p", Integer.toString(port),
        "-V", "-S", "1000", "--crc", "--timeout=60", rtr, "--stream-after-rtr=" + n},
        new PrintStream(cout, true, StandardCharsets.UTF_8),
        new PrintStream(cerr, true, StandardCharsets.UTF_8), a -> { });
    int src = server.get(60, TimeUnit.SECONDS);
    String what = rtr + ": client " + cout + cerr + ", server " + sout + serr;
    assertEquals(0, crc, what);
    assertEquals(0, src, what);
    String expected = "stream: " + n + " Sends of 1000 octets posted right after the connection"
        + " was established, " + n + "/" + n + " completed; " + n + "/" + n + " messages of 1000"
        + " octets received and verified";
    assertEquals(expected, cout.toString(StandardCharsets.UTF_8).strip(), what);
    assertEquals(expected, sout.toString(StandardCharsets.UTF_8).strip(), what);
    assertTrue(serr.toString(StandardCharsets.UTF_8).contains("server DISCONNECT EVENT..."),
        what);
  }

  @Test
  void aClientWithoutAServerFailsInOneLine() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int port;
    try {
      port = WireCheck.freePort();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    int rc = IwarpPing.run(new String[] {"-c", "-a", "127.0.0.1", "-p", Integer.toString(port),
        "-C", "1"}, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8), a -> { });
    String text = err.toString(StandardCharsets.UTF_8);
    assertEquals(1, rc, text);
    assertTrue(text.startsWith("iwarp-ping: connect to /127.0.0.1:" + port + " failed: "
        + "RdmaUnreachableException"), text);
    assertEquals(1, text.strip().lines().count(), "one line, no stack trace: " + text);
  }

  /** One single-shot server and one client; both must succeed and print every ping. */
  private static void ping(int port, List<String> serverOpts, List<String> clientOpts)
      throws Exception {
    ByteArrayOutputStream sout = new ByteArrayOutputStream();
    ByteArrayOutputStream serr = new ByteArrayOutputStream();
    CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
    List<String> sargs = new ArrayList<>(List.of("-s", "-a", "127.0.0.1", "-p",
        Integer.toString(port), "-v", "--timeout=60"));
    sargs.addAll(serverOpts);
    CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> IwarpPing.run(
        sargs.toArray(new String[0]), new PrintStream(sout, true, StandardCharsets.UTF_8),
        new PrintStream(serr, true, StandardCharsets.UTF_8), listening::complete));
    listening.get(30, TimeUnit.SECONDS);

    ByteArrayOutputStream cout = new ByteArrayOutputStream();
    ByteArrayOutputStream cerr = new ByteArrayOutputStream();
    List<String> cargs = new ArrayList<>(List.of("-c", "-a", "127.0.0.1", "-p",
        Integer.toString(port), "-C", Integer.toString(COUNT), "-vV", "--timeout=60"));
    cargs.addAll(clientOpts);
    int crc = IwarpPing.run(cargs.toArray(new String[0]),
        new PrintStream(cout, true, StandardCharsets.UTF_8),
        new PrintStream(cerr, true, StandardCharsets.UTF_8), a -> { });
    int src = server.get(60, TimeUnit.SECONDS);
    String client = cout.toString(StandardCharsets.UTF_8);
    String srv = sout.toString(StandardCharsets.UTF_8);
    String what = clientOpts + ": client stderr " + cerr.toString(StandardCharsets.UTF_8)
        + ", server stderr " + serr.toString(StandardCharsets.UTF_8);
    assertEquals(0, crc, what);
    assertEquals(0, src, what);
    List<String> lines = client.lines().toList();
    assertEquals(COUNT, lines.size(), what);
    for (int i = 0; i < COUNT; i++) {
      assertTrue(lines.get(i).startsWith("ping data: rdma-ping-" + i + ": "), lines.get(i));
      assertTrue(srv.contains("server " + lines.get(i) + "\n"), "server printed ping " + i);
    }
  }
}
