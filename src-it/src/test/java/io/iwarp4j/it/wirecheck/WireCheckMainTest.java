package io.iwarp4j.it.wirecheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.wirecheck.Finding.Level;
import io.iwarp4j.it.wirecheck.Finding.Sender;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link WireCheckMain.bySender}: tshark's findings after its own failed assertion on a peer's
 * direction the own framer found clean are tshark's (the 00:05 interop run's port 7202: siw's
 * stream 16, a dissector assertion at frame 5565, then "bad CRCs" and impossible header fields
 * the own framer did not confirm); the same on our direction, or with an own-framer CRC error,
 * still count against the sender.
 */
class WireCheckMainTest {
  private static final int STREAM = 16;

  private static WireReport report(Sender desynced, boolean ownFramerCrcError) {
    return report(desynced, ownFramerCrcError, true);
  }

  /** {@code ownHeaderChecks}: the own framer checked that direction's headers (W_TSHARK_LIMIT). */
  private static WireReport report(Sender desynced, boolean ownFramerCrcError,
      boolean ownHeaderChecks) {
    List<Finding> f = new ArrayList<>();
    f.add(new Finding(Code.T_MALFORMED, Level.ERROR, STREAM, 5565, desynced, "assertion"));
    f.add(new Finding(Code.T_CRC_BAD, Level.ERROR, STREAM, 5749, desynced, "CRC check"));
    f.add(new Finding(Code.S_DDP_VERSION, Level.ERROR, STREAM, 5749, desynced, "DV=3"));
    // After the desync tshark frames "FPDUs" out of payload octets, some without a DDP header.
    f.add(new Finding(Code.T_UNDECODED, Level.ERROR, STREAM, 5801, desynced,
        "FPDU without a DDP/RDMAP decode"));
    if (ownFramerCrcError) {
      f.add(new Finding(Code.F_CRC_BAD, Level.ERROR, STREAM, 5749, desynced, "own framer"));
    }
    if (ownHeaderChecks) {
      f.add(new Finding(Code.W_TSHARK_LIMIT, Level.WARNING, STREAM, -1, desynced,
          "tshark left 9000 undecoded; own framer: 50 FPDUs, 0 framing errors"));
    }
    WireReport.Connection c = new WireReport.Connection(STREAM, 40000, null, null,
        new int[] {50, 50}, new int[] {50, 50}, new long[] {9000, 9000}, Set.of());
    return new WireReport("x.pcap", 7202, "tshark", List.of(c),
        new WireReport.Totals(100, 99, 1, 0, 0, 1), Map.of(), Map.of(), f, Set.of(5565));
  }

  @Test
  void aPeersFindingsAfterATsharkAssertionOnACleanDirectionAreTsharks() {
    Map<String, Map<Code, Integer>> by = WireCheckMain.bySender(report(Sender.INITIATOR, false),
        Sender.RESPONDER);
    assertTrue(by.get("peer").isEmpty(), by.toString());
    assertEquals(4, by.get("tshark dissector bug").values().stream().mapToInt(i -> i).sum(),
        by.toString());
  }

  @Test
  void withoutTheOwnFramersHeaderChecksThePeerKeepsTsharksFindings() {
    Map<String, Map<Code, Integer>> by = WireCheckMain.bySender(
        report(Sender.INITIATOR, false, false), Sender.RESPONDER);
    assertEquals(Map.of(Code.T_CRC_BAD, 1, Code.S_DDP_VERSION, 1, Code.T_UNDECODED, 1),
        by.get("peer"), by.toString());
  }

  @Test
  void ourDirectionIsNeverExcused() {
    Map<String, Map<Code, Integer>> by = WireCheckMain.bySender(report(Sender.RESPONDER, false),
        Sender.RESPONDER);
    assertEquals(Map.of(Code.T_CRC_BAD, 1, Code.S_DDP_VERSION, 1, Code.T_UNDECODED, 1),
        by.get("ours"), by.toString());
  }

  @Test
  void anOwnFramerCrcErrorKeepsThePeersFindings() {
    Map<String, Map<Code, Integer>> by = WireCheckMain.bySender(report(Sender.INITIATOR, true),
        Sender.RESPONDER);
    assertEquals(Map.of(Code.T_MALFORMED, 1, Code.T_CRC_BAD, 1, Code.S_DDP_VERSION, 1,
        Code.T_UNDECODED, 1, Code.F_CRC_BAD, 1),
        by.get("peer"), by.toString());
  }

  // ------------------------------------------------------------------------------------------
  // Issue 20: the verdict tightened.

  private static WireReport.Connection conn(int stream, long responderOctets, long[] holes,
      double start) {
    return new WireReport.Connection(stream, 40000, null, null, new int[] {5, 5},
        new int[] {5, 5}, new long[] {900, responderOctets}, Set.of(), 7174, start, holes);
  }

  private static WireReport report(List<WireReport.Connection> c, Finding... f) {
    return new WireReport("x.pcap", 7174, "tshark", c, new WireReport.Totals(10, 10, 0, 0, 0, 0),
        Map.of(), Map.of(), List.of(f), Set.of());
  }

  @Test
  void aSilentResponderIsExcusedOnlyWhenThePeerIsTheResponder() {
    WireReport r = report(List.of(conn(1, 0, new long[] {-1, -1}, 100)),
        new Finding(Code.T_NO_REPLY, Level.ERROR, 1, 7, Sender.RESPONDER, "no MPA Reply seen"));
    Map<String, Map<Code, Integer>> weInitiate = WireCheckMain.bySender(r, Sender.INITIATOR);
    assertEquals(Map.of(Code.T_NO_REPLY, 1), weInitiate.get("capture"), weInitiate.toString());
    assertTrue(WireCheckMain.passes(weInitiate));
    // Our own Responder that never answered is a hang of ours (the old rule passed it).
    Map<String, Map<Code, Integer>> weRespond = WireCheckMain.bySender(r, Sender.RESPONDER);
    assertEquals(Map.of(Code.T_NO_REPLY, 1), weRespond.get("ours"), weRespond.toString());
    assertFalse(WireCheckMain.passes(weRespond));
  }

  @Test
  void aHoleInOurDirectionFailsWhenItHidesMoreThanTheBound() {
    Finding hole = new Finding(Code.T_CAPTURE_HOLE, Level.ERROR, 1, 9, Sender.INITIATOR,
        "a hole");
    WireReport big = report(List.of(conn(1, 900, new long[] {WireCheckMain.HOLE_BOUND + 1, -1},
        100)), hole);
    Map<String, Map<Code, Integer>> ours = WireCheckMain.bySender(big, Sender.INITIATOR);
    assertEquals(Map.of(Code.T_CAPTURE_HOLE, 1), ours.get("ours"), ours.toString());
    assertFalse(WireCheckMain.passes(ours));
    assertTrue(WireCheckMain.details(big, Sender.INITIATOR, WireCheckMain.Expectations.NONE)
        .stream().anyMatch(l -> l.startsWith("Unchecked:") && l.contains("FAIL")));
    // The same hole in the peer's direction, or a small one in ours: printed, not failed.
    assertTrue(WireCheckMain.passes(WireCheckMain.bySender(big, Sender.RESPONDER)));
    WireReport small = report(List.of(conn(1, 900, new long[] {WireCheckMain.HOLE_BOUND, -1},
        100)), hole);
    assertTrue(WireCheckMain.passes(WireCheckMain.bySender(small, Sender.INITIATOR)));
  }

  private static final Finding SIW_TERMINATE = new Finding(Code.I_TERMINATE, Level.NOTE, 1, 12,
      Sender.RESPONDER, "Terminate 2/0/0x6 (Layer/Error Type/Error Code as RFC 5040 §4.8 lays"
      + " them out)");

  private static WireCheckMain.Expectations rows(String expect) {
    return new WireCheckMain.Expectations(List.of(
        new WireCheckMain.Row("h2g-crc", 7174, 90, 99),
        new WireCheckMain.Row("h2g-7306-imm", 7174, 99.5, 101)),
        expect == null ? Map.of() : Map.of("h2g-7306-imm", expect));
  }

  @Test
  void aTerminateFromThePeerFailsUnlessItsRowExpectsExactlyThatOne() {
    WireReport r = report(List.of(conn(1, 900, new long[] {-1, -1}, 100)), SIW_TERMINATE);
    // The old rule read errors only: a Terminate siw sent because of us never counted.
    Map<String, Map<Code, Integer>> none = WireCheckMain.bySender(r, Sender.INITIATOR);
    assertEquals(Map.of(Code.I_TERMINATE, 1), none.get("peer"), none.toString());
    assertFalse(WireCheckMain.passes(none));
    Map<String, Map<Code, Integer>> expected = WireCheckMain.bySender(r, Sender.INITIATOR,
        rows("terminate:2/0/0x6"));
    assertEquals(Map.of(Code.I_TERMINATE, 1), expected.get("expected"), expected.toString());
    assertTrue(WireCheckMain.passes(expected), expected.toString());
    // Another layer/type/code, or the same Terminate on another row's connection, fails.
    assertFalse(WireCheckMain.passes(WireCheckMain.bySender(r, Sender.INITIATOR,
        rows("terminate:0/2/0x6"))));
    WireReport other = report(List.of(conn(1, 900, new long[] {-1, -1}, 95)), SIW_TERMINATE);
    Map<String, Map<Code, Integer>> wrongRow = WireCheckMain.bySender(other, Sender.INITIATOR,
        rows("terminate:2/0/0x6"));
    assertEquals(Map.of(Code.I_TERMINATE, 1), wrongRow.get("peer"), wrongRow.toString());
    assertEquals(Map.of(Code.I_TERMINATE, 1), wrongRow.get("expected, not seen"),
        wrongRow.toString());
    assertFalse(WireCheckMain.passes(wrongRow));
  }

  @Test
  void aRejectIsAllowedOnlyOnTheRowThatExpectsIt() {
    Finding reject1 = new Finding(Code.T_MPA_REJECT, Level.ERROR, 1, 5, Sender.RESPONDER, "R=1");
    Finding reject2 = new Finding(Code.T_MPA_REJECT, Level.ERROR, 2, 15, Sender.RESPONDER,
        "R=1");
    WireCheckMain.Expectations markers = new WireCheckMain.Expectations(List.of(
        new WireCheckMain.Row("h2g-crc", 7174, 90, 99),
        new WireCheckMain.Row("h2g-markers", 7174, 99.5, 101)),
        Map.of("h2g-markers", "reject"));
    WireReport one = report(List.of(conn(1, 900, new long[] {-1, -1}, 100)), reject1);
    assertTrue(WireCheckMain.passes(WireCheckMain.bySender(one, Sender.INITIATOR, markers)));
    // The old --allow-reject covered all of port 7174: a reject on an rping row passed too.
    WireReport two = report(List.of(conn(1, 900, new long[] {-1, -1}, 100),
        conn(2, 900, new long[] {-1, -1}, 95)), reject1, reject2);
    Map<String, Map<Code, Integer>> by = WireCheckMain.bySender(two, Sender.INITIATOR, markers);
    assertEquals(Map.of(Code.T_MPA_REJECT, 1), by.get("peer"), by.toString());
    assertFalse(WireCheckMain.passes(by));
    // An expected reject that never came fails too.
    WireReport none = report(List.of(conn(1, 900, new long[] {-1, -1}, 100)));
    assertFalse(WireCheckMain.passes(WireCheckMain.bySender(none, Sender.INITIATOR, markers)));
  }

  @Test
  void ourTerminateCountsUnlessThePeersErrorOnThatConnectionCameFirst() {
    Finding ours = new Finding(Code.I_TERMINATE, Level.NOTE, 1, 30, Sender.INITIATOR,
        "Terminate 2/0/0x2 (...)");
    WireReport alone = report(List.of(conn(1, 900, new long[] {-1, -1}, 100)), ours);
    assertEquals(Map.of(Code.I_TERMINATE, 1),
        WireCheckMain.bySender(alone, Sender.INITIATOR).get("ours"));
    WireReport answering = report(List.of(conn(1, 900, new long[] {-1, -1}, 100)), ours,
        new Finding(Code.F_CRC_BAD, Level.ERROR, 1, 29, Sender.RESPONDER, "CRC"));
    Map<String, Map<Code, Integer>> by = WireCheckMain.bySender(answering, Sender.INITIATOR);
    assertTrue(by.get("ours").isEmpty(), by.toString());
    assertEquals(Map.of(Code.F_CRC_BAD, 1), by.get("peer"), by.toString());
  }

  @Test
  void aConnectionBelongsToTheRowWhoseWindowHoldsItsFirstFrame() {
    WireCheckMain.Expectations rows = new WireCheckMain.Expectations(List.of(
        new WireCheckMain.Row("h2g-markers", 7174, 90, 99),
        new WireCheckMain.Row("h2g-7306-fetchadd", 7174, 99, 101),
        new WireCheckMain.Row("g2h-crc", 7200, 99, 101)), Map.of());
    assertEquals("h2g-7306-fetchadd", rows.rowOf(conn(1, 900, new long[] {-1, -1}, 99.4)));
    assertEquals("h2g-markers", rows.rowOf(conn(1, 900, new long[] {-1, -1}, 98.9)));
    // Whole-second windows: half a second outside still maps, to the nearest; more does not.
    assertEquals("h2g-7306-fetchadd", rows.rowOf(conn(1, 900, new long[] {-1, -1}, 101.3)));
    assertEquals(null, rows.rowOf(conn(1, 900, new long[] {-1, -1}, 102)));
  }

  /** The 05:27 run's stream 61: a lost segment in the capture, no assertion, then tshark's junk. */
  private static WireReport lostSegment(Sender desynced, boolean ownFramerCrcError,
      String capture) {
    List<Finding> f = new ArrayList<>();
    f.add(new Finding(Code.T_CAPTURE, Level.ERROR, STREAM, 45733, desynced, capture));
    f.add(new Finding(Code.T_CRC_BAD, Level.ERROR, STREAM, 45800, desynced, "CRC check"));
    f.add(new Finding(Code.S_DDP_VERSION, Level.ERROR, STREAM, 45800, desynced, "DV=0"));
    if (ownFramerCrcError) {
      f.add(new Finding(Code.F_CRC_BAD, Level.ERROR, STREAM, 45800, desynced, "own framer"));
    }
    f.add(new Finding(Code.W_TSHARK_LIMIT, Level.WARNING, STREAM, -1, desynced,
        "tshark left 1371000 undecoded; own framer: 9200 FPDUs, 0 framing errors"));
    WireReport.Connection c = new WireReport.Connection(STREAM, 40000, null, null,
        new int[] {200, 8258}, new int[] {200, 9200}, new long[] {9000, 9000}, Set.of());
    return new WireReport("x.pcap", 7210, "tshark", List.of(c),
        new WireReport.Totals(100, 99, 1, 0, 0, 1), Map.of(), Map.of(), f, Set.of());
  }

  @Test
  void aPeersFindingsAfterASegmentTheCaptureLostOnACleanDirectionAreTheCaptures() {
    Map<String, Map<Code, Integer>> by = WireCheckMain.bySender(lostSegment(Sender.RESPONDER,
        false, "tcp.analysis.lost_segment"), Sender.INITIATOR);
    assertTrue(by.get("peer").isEmpty(), by.toString());
    assertEquals(Map.of(Code.T_CAPTURE, 1, Code.T_CRC_BAD, 1, Code.S_DDP_VERSION, 1),
        by.get("capture"), by.toString());
    // Ours never; an own-framer CRC error keeps them the peer's; a mere retransmission is no
    // lost segment.
    assertEquals(Map.of(Code.T_CRC_BAD, 1, Code.S_DDP_VERSION, 1), WireCheckMain.bySender(
        lostSegment(Sender.INITIATOR, false, "tcp.analysis.lost_segment"), Sender.INITIATOR)
        .get("ours"));
    assertEquals(Map.of(Code.T_CRC_BAD, 1, Code.S_DDP_VERSION, 1, Code.F_CRC_BAD, 1),
        WireCheckMain.bySender(lostSegment(Sender.RESPONDER, true, "tcp.analysis.lost_segment"),
        Sender.INITIATOR).get("peer"));
    assertEquals(Map.of(Code.T_CRC_BAD, 1, Code.S_DDP_VERSION, 1), WireCheckMain.bySender(
        lostSegment(Sender.RESPONDER, false, "tcp.analysis.retransmission"), Sender.INITIATOR)
        .get("peer"));
  }
}
