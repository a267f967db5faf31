package io.iwarp4j.it.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SiwInteropIT#onlyAttributedTerminates}: a wire check that failed only on siw's
 * CRC-error Terminates is accepted when every one is on a row the judge attributed to siw's
 * split-trailer bug, and on nothing else; one that failed on siw's bad CRCs only when every one
 * is an FPDU the judge attributed to siw's double CRC over a payload (the 2026-11-26 23:47
 * run's report lines, issue22-run5-...-wirecheck-7231.txt).
 */
class AttributedTerminatesTest {
  private static final String T1 = "Terminate from the peer on stream 135 (row"
      + " perf-h2g-send_bw-65536): Terminate 0/2/0x2 (Layer/Error Type/Error Code as RFC 5040"
      + " §4.8 lays them out)";

  private static String judge(Path dir, String by, Set<String> attributed, String... lines)
      throws Exception {
    return judge(dir, by, attributed, List.of(), lines);
  }

  private static String judge(Path dir, String by, Set<String> attributed,
      List<long[]> doubleCrcs, String... lines) throws Exception {
    StringBuilder s = new StringBuilder("wirecheck: x port 7210\n");
    for (String l : lines) {
      s.append(l).append('\n');
    }
    s.append("By sender: ").append(by).append('\n');
    Files.writeString(dir.resolve("wirecheck-7210-7249.txt"), s);
    return SiwInteropIT.onlyAttributedTerminates(dir, "port 7210-7249", attributed, doubleCrcs);
  }

  private static final String BY = "ours 0 | peer 5 {S_PAD_NONZERO=2, F_PAD_NONZERO=2,"
      + " I_TERMINATE=1} | capture 3 {T_CAPTURE=3} | cut by a reset 0 | tshark dissector bug 0 |"
      + " expected 0 | expected, not seen 0 | unattributed 0 | verdict FAIL";

  @Test
  void siwsCrcTerminateOnAnAttributedRowIsAccepted(@TempDir Path dir) throws Exception {
    String v = judge(dir, BY, Set.of("perf-h2g-send_bw-65536"), T1);
    assertTrue(v.startsWith("accepted"), v);
  }

  @Test
  void anythingElseIsRefused(@TempDir Path dir) throws Exception {
    assertTrue(judge(dir, BY, Set.of(), T1).startsWith("a Terminate"), "row not attributed");
    assertTrue(judge(dir, BY, Set.of("perf-h2g-send_bw-65536"),
        T1.replace("0/2/0x2", "0/2/0x6")).startsWith("a Terminate"), "another code");
    assertTrue(judge(dir, BY.replace("ours 0", "ours 1 {F_CRC_BAD=1}"),
        Set.of("perf-h2g-send_bw-65536"), T1).startsWith("not only"), "a fault of ours");
    assertTrue(judge(dir, BY.replace("I_TERMINATE=1", "I_TERMINATE=1, S_MSN=1")
        .replace("peer 5", "peer 6"), Set.of("perf-h2g-send_bw-65536"), T1)
        .startsWith("the peer sent S_MSN"), "another peer error");
    assertTrue(judge(dir, BY.replace("expected, not seen 0", "expected, not seen 1"
        + " {I_TERMINATE=1}"), Set.of("perf-h2g-send_bw-65536"), T1).startsWith("not only"),
        "an unmet expectation");
  }

  private static final String BY_CRC = "ours 0 | peer 4 {T_CRC_BAD=1, S_PAD_NONZERO=1,"
      + " F_CRC_BAD=1, F_PAD_NONZERO=1} | capture 1 {T_NO_REPLY=1} | cut by a reset 0 | tshark"
      + " dissector bug 0 | unattributed 0 | verdict FAIL";
  private static final String T_CRC = "  [error] T_CRC_BAD stream=99 frame=68057 r->i: CRC check:"
      + " 0xffc38b8f (Bad CRC32, should be 0xe1853eb3)";
  private static final String F_CRC = "  [error] F_CRC_BAD stream=99 frame=68057 r->i: CRC32c"
      + " 0x8f8bc3ff on the wire, 0xb33e85e1 computed (ULPDU length 1450)";
  private static final long[] RUN5 = {0x8f8bc3ffL, 0xb33e85e1L};

  @Test
  void siwsBadCrcsOnFpdusAttributedToItsDoubleCrcAreAccepted(@TempDir Path dir)
      throws Exception {
    String v = judge(dir, BY_CRC, Set.of(), List.of(RUN5), T_CRC, F_CRC);
    assertTrue(v.startsWith("accepted: siw's bad CRCs only on FPDUs attributed"), v);
  }

  @Test
  void aBadCrcNotAttributedIsRefused(@TempDir Path dir) throws Exception {
    assertTrue(judge(dir, BY_CRC, Set.of(), List.of(), T_CRC, F_CRC)
        .startsWith("a bad CRC from siw not attributed"), "nothing attributed");
    assertTrue(judge(dir, BY_CRC, Set.of(), List.of(new long[] {0x8f8bc3ffL, 0xb33e85e0L}),
        T_CRC, F_CRC).startsWith("a bad CRC from siw not attributed"), "one bit off");
    assertTrue(judge(dir, BY_CRC, Set.of(), List.of(RUN5), F_CRC).startsWith("tshark saw 1"),
        "tshark's bad CRC line missing from the report");
    assertTrue(judge(dir, BY_CRC, Set.of(), List.of(RUN5), T_CRC).startsWith("not only"),
        "the own framer's bad CRC line missing from the report");
    assertTrue(judge(dir, BY_CRC.replace("ours 0", "ours 1 {F_CRC_BAD=1}"), Set.of(),
        List.of(RUN5), T_CRC, F_CRC).startsWith("not only"), "a bad CRC of ours");
  }

  @Test
  void tsharksOwnBadCrcsBesideAnAttributedTerminateAreNotThePeers(@TempDir Path dir)
      throws Exception {
    // Run 1 of 2026-11-27 05:14, port 7202: the verdict gave tshark's two T_CRC_BAD to its
    // desynchronisation; the first version of the double-CRC rule counted them as the peer's.
    String v = judge(dir, "ours 0 | peer 53 {S_PAD_NONZERO=26, F_PAD_NONZERO=26, I_TERMINATE=1}"
        + " | capture 28 {T_CAPTURE=28} | cut by a reset 0 | tshark dissector bug 21"
        + " {T_CRC_BAD=2, T_MALFORMED=4, T_UNDECODED=4, S_RDMAP_VERSION=2, S_DDP_RSVD=1,"
        + " S_RDMAP_RSV=2, S_OPCODE_RESERVED=1, S_TAGGED_MISMATCH=1, S_PAD_NONZERO=4} | expected 0"
        + " | expected, not seen 0 | unattributed 0 | verdict FAIL",
        Set.of("perf-g2h-read_bw-65536"), List.of(),
        "  [error] T_CRC_BAD stream=17 frame=5412 i->r: CRC check: 0xfc6791d0 (Bad CRC32, should"
            + " be 0xcdc583c7)",
        "  [error] T_CRC_BAD stream=17 frame=5414 i->r: CRC check: 0x107cddaa (Bad CRC32, should"
            + " be 0x41a8f50e)",
        "Terminate from the peer on stream 61 (row perf-g2h-read_bw-65536): Terminate 0/2/0x2"
            + " (Layer/Error Type/Error Code as RFC 5040 §4.8 lays them out)");
    assertTrue(v.startsWith("accepted: siw's CRC-error Terminates"), v);
  }

  @Test
  void aPeersTsharkBadCrcMustBeAttributedToo(@TempDir Path dir) throws Exception {
    String by = BY_CRC.replace("F_CRC_BAD=1, ", "").replace("peer 4", "peer 3");
    assertTrue(judge(dir, by, Set.of(), List.of(RUN5), T_CRC).startsWith("accepted"), by);
    assertTrue(judge(dir, by, Set.of(), List.of(), T_CRC).startsWith("tshark saw 1"), by);
  }
}
