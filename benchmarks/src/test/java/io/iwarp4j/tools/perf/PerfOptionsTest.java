package io.iwarp4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Command-line parsing: perftest's names and defaults, and clean errors for bad input. */
class PerfOptionsTest {
  @Test
  void perftestDefaultsForABandwidthServer() throws UsageException {
    PerfOptions o = PerfOptions.parse(new String[] {"write_bw"});
    assertEquals(PerfMode.WRITE_BW, o.mode());
    assertNull(o.server());
    assertFalse(o.isClient());
    assertEquals(18515, o.port());
    assertEquals(65536, o.size());
    assertEquals(5000, o.iterations());
    assertEquals(128, o.txDepth());
    assertEquals(100, o.cqMod());
    assertEquals(1, o.qps());
    assertTrue(o.crc());
    assertFalse(o.markers());
    assertFalse(o.responderSendsFirst(), "the RFC 5044 rule 4 departure is opt-in");
    assertTrue(o.progress());
  }

  @Test
  void responderSendsFirstIsOptInAndReachesBothLoopbackRoles() throws UsageException {
    PerfOptions o = PerfOptions.parse(new String[] {"loopback", "write_lat",
        "--responder-sends-first"});
    assertTrue(o.responderSendsFirst());
    assertTrue(o.loopbackServer().responderSendsFirst());
    assertTrue(o.loopbackClient(7000).responderSendsFirst());
    assertTrue(PerfOptions.USAGE.contains("--responder-sends-first"), PerfOptions.USAGE);
    assertTrue(PerfOptions.USAGE.contains("NOT RFC 5044"), PerfOptions.USAGE);
  }

  @Test
  void perftestOptionsForAClient() throws UsageException {
    PerfOptions o = PerfOptions.parse(new String[] {"ib_read_bw", "-R", "-F", "-d", "siw0",
        "-s", "4096", "-n", "2000", "-t", "64", "-q", "2", "-p", "7175", "-o", "8",
        "--report_gbits", "--no-crc", "--markers", "--json", "out.json", "--no-progress",
        "10.0.2.15"});
    assertEquals(PerfMode.READ_BW, o.mode());
    assertEquals("10.0.2.15", o.server());
    assertTrue(o.isClient());
    assertEquals(4096, o.size());
    assertEquals(2000, o.iterations());
    assertEquals(64, o.txDepth());
    assertEquals(64, o.cqMod()); // moderation never exceeds the TX depth
    assertEquals(2, o.qps());
    assertEquals(7175, o.port());
    assertEquals(8, o.outReads());
    assertTrue(o.reportGbits());
    assertFalse(o.crc());
    assertTrue(o.markers());
    assertEquals(Path.of("out.json"), o.json());
    assertFalse(o.progress());
  }

  @Test
  void latencyDefaultsAndSweep() throws UsageException {
    PerfOptions o = PerfOptions.parse(new String[] {"write_lat", "-a"});
    assertEquals(1000, o.iterations());
    assertEquals(1, o.txDepth());
    long[] sizes = o.sizes();
    assertEquals(23, sizes.length);
    assertEquals(2, sizes[0]);
    assertEquals(1 << 23, sizes[22]);
    assertEquals(1 << 23, o.size()); // buffers sized for the largest
  }

  @Test
  void loopbackAsWordOrFlag() throws UsageException {
    PerfOptions a = PerfOptions.parse(new String[] {"loopback", "send_lat", "-n", "100"});
    PerfOptions b = PerfOptions.parse(new String[] {"--loopback", "send_lat", "--iters=100"});
    assertTrue(a.loopback());
    assertTrue(b.loopback());
    assertEquals(PerfMode.SEND_LAT, b.mode());
    assertArrayEquals(new long[] {2}, a.sizes());
    assertEquals(100, b.iterations());
  }

  @Test
  void oneSidedBandwidthClientsWarmUpByDefaultOthersNever() throws UsageException {
    assertEquals(PerfOptions.DEFAULT_WARMUP_SECONDS,
        PerfOptions.parse(new String[] {"loopback", "write_bw", "-a", "-n", "200"})
            .warmupSeconds());
    assertEquals(PerfOptions.DEFAULT_WARMUP_SECONDS,
        PerfOptions.parse(new String[] {"write_bw", "-s", "65536", "-D", "10"}).warmupSeconds());
    // -n alone sends exactly n messages, as perftest's does (the wire checks count them).
    assertEquals(0, PerfOptions.parse(new String[] {"write_bw", "-n", "50"}).warmupSeconds());
    assertEquals(0, PerfOptions.parse(new String[] {"read_bw", "--warmup", "0"})
        .warmupSeconds());
    assertEquals(3, PerfOptions.parse(new String[] {"atomic_bw", "--warmup=3"}).warmupSeconds());
    assertEquals(3, PerfOptions.parse(new String[] {"loopback", "write_bw", "--warmup", "3"})
        .loopbackClient(7000).warmupSeconds());
    // Their peers count every message: a warm-up would be counted as the test.
    assertEquals(0, PerfOptions.parse(new String[] {"send_bw", "--warmup", "3"}).warmupSeconds());
    assertEquals(0, PerfOptions.parse(new String[] {"write_lat"}).warmupSeconds());
    assertEquals(0, PerfOptions.parse(new String[] {"send_lat"}).warmupSeconds());
    // perftest's flag for the same thing
    assertEquals(PerfOptions.DEFAULT_WARMUP_SECONDS,
        PerfOptions.parse(new String[] {"write_bw", "--perform_warm_up"}).warmupSeconds());
  }

  @Test
  void bandwidthDepthKeepsAtMost64MibInFlight() {
    assertEquals(128, BandwidthRunner.depth(128, 65536));
    assertEquals(128, BandwidthRunner.depth(128, 512 * 1024));
    assertEquals(64, BandwidthRunner.depth(128, 1 << 20));
    assertEquals(8, BandwidthRunner.depth(128, 8 << 20));
    assertEquals(1, BandwidthRunner.depth(128, 256L << 20));
    assertEquals(4, BandwidthRunner.depth(4, 2));
  }

  @Test
  void aSweepMayRunEachSizeForADuration() throws UsageException {
    PerfOptions o = PerfOptions.parse(new String[] {"loopback", "write_bw", "-a", "-D", "1"});
    assertTrue(o.sweep());
    assertTrue(o.byDuration());
    assertEquals(1, o.durationSeconds());
    assertEquals(23, o.sizes().length);
  }

  @Test
  void atomicIsEightOctets() throws UsageException {
    assertEquals(8, PerfOptions.parse(new String[] {"atomic_bw"}).size());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "''|no test given",
      "fly_bw|unknown test fly_bw",
      "write_bw --bogus|unknown option --bogus",
      "write_bw -s|option -s needs a value",
      "write_bw -s abc|option -s needs a number, not \"abc\"",
      "write_bw -s 0|option -s must be in 1..",
      "write_bw -p 70000|option -p must be in 0..65535",
      "write_bw -q 0|option -q must be in 1..64",
      "write_bw -s 536870912|option -s must be in 1..268435456",
      "write_bw -n 20000000 -q 2|keeps more than 20000000 timestamps",
      "write_lat -q 2|latency tests use one queue pair",
      "write_lat -D 5|-D is for bandwidth tests",
      "write_bw --warmup -1|option --warmup must be in 0..600",
      "send_bw -D 5|-D is not offered for send_bw",
      "atomic_bw -s 16|-s must be 8",
      "atomic_bw -a|-a does not apply to atomic_bw",
      "loopback|loopback needs a test",
      "loopback write_bw 1.2.3.4|--loopback takes no server address",
      "write_bw a b|unexpected argument b",
      "write_bw --use_srq|--use_srq applies to send_bw",
      "write_bw --tls|--tls needs --tls-keystore",
      "write_bw --tls 10.0.0.1|--tls needs --tls-keystore",
      "write_bw --tls-keystore k.p12|--tls-keystore and --tls-truststore need --tls"})
  void badCommandLinesNameTheProblem(String line, String expected) {
    String[] args = line.isEmpty() ? new String[0] : line.split(" ");
    UsageException e = assertThrows(UsageException.class, () -> PerfOptions.parse(args));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void tlsIsAnOptionOfBothRolesAndOfLoopback() throws UsageException {
    PerfOptions server = PerfOptions.parse(new String[] {"write_bw", "--tls", "--tls-keystore",
        "k.p12", "--tls-password", "pw"});
    assertTrue(server.tls());
    assertEquals(java.nio.file.Path.of("k.p12"), server.tlsKeystore);
    PerfOptions client = PerfOptions.parse(new String[] {"send_bw", "--tls", "--tls-keystore",
        "k.p12", "--tls-truststore", "t.p12", "10.0.0.1"});
    assertTrue(client.tls());
    assertEquals(java.nio.file.Path.of("t.p12"), client.tlsTruststore);
    PerfOptions loopback = PerfOptions.parse(new String[] {"loopback", "write_bw", "--tls"});
    assertTrue(loopback.tls());
    assertTrue(loopback.loopbackServer().tls() && loopback.loopbackClient(1).tls());
    assertFalse(PerfOptions.parse(new String[] {"write_bw"}).tls());
  }

  @Test
  void useSrqIsAcceptedForSendBwInBothRoles() throws UsageException {
    assertTrue(PerfOptions.parse(new String[] {"send_bw", "--use_srq"}).useSrq());
    assertTrue(PerfOptions.parse(new String[] {"send_bw", "--use-srq", "10.0.0.1"}).useSrq());
    assertFalse(PerfOptions.parse(new String[] {"send_bw"}).useSrq());
  }

  @Test
  void badOptionExitsWithStatus2AndOneLineNoStackTrace() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = IwarpPerf.run(new String[] {"write_bw", "-n", "x"},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(IwarpPerf.USAGE, status);
    String e = err.toString(StandardCharsets.UTF_8);
    assertEquals(1, e.lines().count(), e);
    assertTrue(e.startsWith("iwarp-perf: option -n needs a number"), e);
    assertFalse(e.contains("Exception"), e);
    assertEquals("", out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void helpGoesToStdoutWithStatus0() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int status = IwarpPerf.run(new String[] {"--help"},
        new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    assertEquals(IwarpPerf.OK, status);
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("usage: iwarp-perf"));
  }
}
