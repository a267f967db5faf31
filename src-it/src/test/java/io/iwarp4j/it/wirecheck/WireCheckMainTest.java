package io.iwarp4j.it.wirecheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
