package io.iwarp4j.it.example.nvmeof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.examples.nvmeof.cli.NvmeofMain;
import io.iwarp4j.examples.nvmeof.server.NvmeTarget;
import io.iwarp4j.examples.nvmeof.server.TargetConfig;
import io.iwarp4j.verbs.DeviceConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The nvmeof command line against a target in this JVM: connect, identify, write a pattern,
 * verify it (and see a wrong seed fail), read, and a one-second bench whose every command
 * succeeds (its figures are printed, not checked); {@code exercise} (the Linux interop's host
 * step, src-it/interop/nvmeof) passing, and failing when no Keep Alive runs in the idle period.
 */
@Timeout(120)
class NvmeofCommandLineIT {
  private static String run(int expectedStatus, String... args) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = NvmeofMain.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(expectedStatus, status, out);
    return out;
  }

  @Test
  void everyHostCommandAgainstAnInProcessTarget() throws Exception {
    String nqn = NvmeofMain.DEFAULT_NQN;
    try (NvmeTarget target = NvmeTarget.start(DeviceConfig.defaults(),
        new InetSocketAddress("127.0.0.1", 0), TargetConfig.of(nqn, 16L << 20))) {
      String host = "127.0.0.1";
      String port = Integer.toString(target.address().getPort());
      assertTrue(run(0, "connect", host, port).matches("(?s)connected to " + Pattern.quote(nqn)
          + " at .*: controller \\d+, 1 I/O queue\\(s\\) of 32 entries, namespace 1: 32768 blocks"
          + " of 512 octets\n"));
      String identify = run(0, "identify", host, port);
      assertTrue(identify.contains("MDTS 5 (128 KiB)"), identify);
      assertTrue(identify.contains("IOCCSZ 260 (4096 octets in-capsule), IORCSZ 1"), identify);
      assertTrue(identify.contains("namespace 1: NSZE 32768, NCAP 32768, LBA format 0: 512"
          + " octets, 16 MiB"), identify);

      assertEquals("wrote 1000 blocks at LBA 77 (pattern seed 5)\n",
          run(0, "write", host, port, "77", "1000", "--seed", "5"));
      assertEquals("verified 1000 blocks at LBA 77 (seed 5): 0 mismatched\n",
          run(0, "verify", host, port, "77", "1000", "--seed", "5", "--pool"));
      assertEquals("verified 10 blocks at LBA 70 (seed 5): 7 mismatched, first at LBA 70\n",
          run(1, "verify", host, port, "70", "10", "--seed", "5"));
      assertTrue(run(0, "read", host, port, "77", "1000").startsWith(
          "read 1000 blocks at LBA 77: CRC32C "));

      String bench = run(0, "bench", host, port, "--seconds", "1");
      assertTrue(bench.startsWith("machine: "), bench);
      assertTrue(bench.contains("4 KiB random read"), bench);
      assertTrue(bench.contains("128 KiB sequential read"), bench);
      assertEquals(2, bench.split(", 0 failed\\)").length - 1, bench);

      assertThrows(IllegalArgumentException.class, () -> run(0, "connect", host));
      assertEquals(0, target.keepAliveExpirations());
    }
  }

  @Test
  void exerciseWritesRandomDataReadsItBackAndOutlivesAnIdlePeriod() throws Exception {
    String nqn = NvmeofMain.DEFAULT_NQN;
    try (NvmeTarget target = NvmeTarget.start(DeviceConfig.defaults(),
        new InetSocketAddress("127.0.0.1", 0), TargetConfig.of(nqn, 16L << 20))) {
      String host = "127.0.0.1";
      String port = Integer.toString(target.address().getPort());
      String out = run(0, "exercise", host, port, "--bytes", "1M", "--window", "4M", "--idle",
          "1", "--kato", "600", "--seed", "3");
      assertTrue(out.contains("namespace 1: NSZE 32768"), out);
      assertTrue(Pattern.compile("wrote 1048576 octets of random data in \\d+ writes of 1 to 256"
          + " blocks at random LBAs below 8192").matcher(out).find(), out);
      assertTrue(Pattern.compile("read back \\d+ written blocks: 0 mismatched octets")
          .matcher(out).find(), out);
      assertTrue(Pattern.compile("idle 1 s: [1-9]\\d* Keep Alive completed, 0 failed,"
          + " association connected").matcher(out).find(), out);
      assertTrue(out.contains("read back after the idle period: 0 mismatched octets"), out);
      assertTrue(out.endsWith("disconnected: shutdown complete (CSTS.SHST), 0 work requests"
          + " outstanding\n"), out);

      // KATO 0: no Keep Alive in the idle period, which exercise must call a failure.
      String silent = run(1, "exercise", host, port, "--bytes", "64K", "--idle", "1", "--kato",
          "0");
      assertTrue(silent.contains("idle 1 s: 0 Keep Alive completed"), silent);
      assertEquals(0, target.keepAliveExpirations());
    }
  }
}
