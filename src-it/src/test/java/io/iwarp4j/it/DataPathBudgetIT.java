package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.FpduFramer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The data-path budget of issue 6, end to end through two verbs devices over 127.0.0.1: RDMA
 * Write, RDMA Read and Send at 64 octets and 64 KiB, with CRC on and off and with Markers.
 *
 * <ul>
 *   <li><b>Copies</b> (counted, not timed): with {@code -Diwarp4j.debug.copyCount=true} every
 *       place that copies payload octets counts them. Writes and Sends copy nothing on send; a
 *       Read Response with CRC on is copied once by its responder (a snapshot, so that a Write
 *       racing the Read cannot make the octets sent differ from their CRC; see ReadResponder),
 *       with CRC off it copies nothing. Every received payload octet is copied exactly once,
 *       from the socket buffer into the region or posted receive buffer; the deframer never
 *       stages; the only other copies are the 28-octet Read Requests into the responder's own
 *       control buffers.
 *   <li><b>Allocation</b> (counted in octets by the JVM, not timed): after a warm-up, the octets
 *       allocated by every thread of the JVM (the posting thread and both devices' event loops)
 *       per operation, printed as a table and held under the bounds below (the goal of
 *       16 octets, except with Markers).
 * </ul>
 *
 * Each case runs {@link DataPathProbe} in a JVM of its own: the copy counters are switched on by
 * a constant read at class initialisation, and allocation is measured without Netty's leak
 * detector (which records a stack trace per buffer access at the PARANOID level tests run with).
 */
@Timeout(600)
class DataPathBudgetIT {
  /** Operations per measured case. */
  private static final int COPY_OPS = 300;
  private static final int ALLOC_OPS = 10_000;
  private static final int READ_REQUEST_OCTETS = 28;
  /**
   * Issue 6 asks for less than 16 octets per operation: held without Markers (with Netty's
   * Recycler batch raised, see {@link #probe}; 15-45 octets with Netty's default). With Markers a
   * 64 KiB Read Response still costs about 3.4 KiB (a pooled buffer and a slice per Marker),
   * bounded so that it cannot grow; see docs/benchmarks.md.
   */
  private static final double MAX_ALLOCATION_PER_OP = 16;
  /** Netty's Recycler batch size property (see where the probe JVM is started). */
  static final String RECYCLER_CHUNK_SIZE = "io.netty.recycler.chunkSize";
  private static final double MAX_ALLOCATION_PER_OP_WITH_MARKERS = 8 * 1024;

  @Test
  void largeSendsCopyNothingAndReceivesCopyEachPayloadOctetOnce() throws Exception {
    for (boolean[] crcMarkers : new boolean[][] {{true, false}, {false, true}}) {
      List<String[]> results = probe(crcMarkers[0], crcMarkers[1], COPY_OPS, true);
      for (String[] r : results) {
        String what = r[0] + " of " + r[1] + " octets, crc=" + crcMarkers[0] + " markers="
            + crcMarkers[1];
        long payload = Long.parseLong(r[1]) * Long.parseLong(r[2]);
        // Writes and Sends are zero-copy; a Read Response with CRC on is a snapshot (one copy).
        long sendCopies = r[0].equals("RDMA_READ") && crcMarkers[0] ? payload : 0;
        assertEquals(sendCopies, Long.parseLong(r[3]), what + ": payload octets copied on send");
        assertEquals(payload, Long.parseLong(r[4]),
            what + ": payload octets copied into registered memory (exactly once each)");
        assertEquals(0, Long.parseLong(r[5]), what + ": octets the deframer staged");
        long control = r[0].equals("RDMA_READ") ? READ_REQUEST_OCTETS * Long.parseLong(r[2]) : 0;
        assertEquals(control, Long.parseLong(r[6]), what + ": control-message octets copied");
        // Without Markers payloads of at most FpduFramer.INLINE_THRESHOLD octets per FPDU are
        // copied behind their header; a large message only its short last segment, if any. (The
        // Markers case asks for Markers in one direction only: its other direction inlines.)
        long inlined = Long.parseLong(r[8]);
        if (Long.parseLong(r[1]) > FpduFramer.INLINE_THRESHOLD) {
          assertTrue(inlined < payload / 100, what + ": " + inlined + " octets copied inline");
        } else if (!crcMarkers[1]) {
          assertEquals(payload, inlined, what + ": payload octets copied inline");
        } else {
          assertTrue(inlined <= payload, what + ": " + inlined + " octets copied inline");
        }
      }
    }
  }

  @Test
  void steadyStateAllocationPerOperationStaysBounded() throws Exception {
    for (boolean[] crcMarkers : new boolean[][] {{true, false}, {false, false}, {true, true}}) {
      List<String[]> results = probe(crcMarkers[0], crcMarkers[1], ALLOC_OPS, false);
      StringBuilder table = new StringBuilder();
      for (String[] r : results) {
        table.append(String.format("%n  %-10s %6s B  crc=%-5s markers=%-5s %8.2f B/op", r[0], r[1],
            crcMarkers[0], crcMarkers[1], Double.parseDouble(r[7])));
      }
      System.out.println("DataPathBudgetIT allocation (all threads):" + table);
      for (String[] r : results) {
        double perOp = Double.parseDouble(r[7]);
        double bound = crcMarkers[1] ? MAX_ALLOCATION_PER_OP_WITH_MARKERS : MAX_ALLOCATION_PER_OP;
        assertTrue(perOp < bound, r[0] + " of " + r[1] + " octets, crc="
            + crcMarkers[0] + " markers=" + crcMarkers[1] + ": " + perOp
            + " octets allocated per operation (all threads)" + table);
      }
    }
  }

  /** Runs the probe in its own JVM and returns its RESULT lines, split into fields (no tag). */
  private static List<String[]> probe(boolean crc, boolean markers, int ops, boolean countCopies)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Dio.netty.leakDetection.level=disabled");
    // Netty's Recycler keeps up to chunkSize (default 32) recycled objects per thread in a batch
    // and spills the rest into a chunked queue that allocates a chunk every 32 objects. A flush
    // of 64 operations recycles hundreds of outbound entries and buffers at once, so with the
    // default every operation pays ~15-25 octets for chunks; a batch above the burst pays none.
    // docs/benchmarks.md recommends this setting and quotes both.
    cmd.add("-D" + RECYCLER_CHUNK_SIZE + "=1024");
    cmd.add("-Diwarp4j.debug.copyCount=" + countCopies);
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    // The same JDK-specific options as this JVM (e.g. native access on JDK 24+).
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--enable-native-access") || arg.startsWith("--add-opens")
          || arg.startsWith("--sun-misc-unsafe-memory-access")) {
        cmd.add(arg);
      }
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(DataPathProbe.class.getName());
    cmd.add(Boolean.toString(crc));
    cmd.add(Boolean.toString(markers));
    cmd.add(Integer.toString(ops));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String[]> results = new ArrayList<>();
    List<String> all = new ArrayList<>();
    boolean done = false;
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        all.add(line);
        if (line.startsWith("RESULT ")) {
          results.add(line.substring("RESULT ".length()).split(" "));
        } else if (line.equals("DONE")) {
          done = true;
        }
      }
    } finally {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    assertTrue(done && p.exitValue() == 0, "the probe JVM failed (exit " + p.exitValue() + "):\n"
        + String.join("\n", all));
    assertEquals(DataPathProbe.OPS.length * DataPathProbe.SIZES.length, results.size(),
        String.join("\n", all));
    return results;
  }
}
