package io.iwarp4j.it.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.interop.SplitTrailerEvidence.Segment;
import io.iwarp4j.it.interop.SplitTrailerEvidence.Verdict;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link SplitTrailerEvidence} on a hand-built stream toward siw: an MPA Request with C=1, then
 * three FPDUs with right CRCs, cut into TCP segments so that the trailer of FPDU #1 is split 3+1
 * (as in the guest capture of docs/interop.md's bug 1) while the others are whole.
 */
class SplitTrailerEvidenceTest {
  private static final String WARN = "kern  :warn  : [  812.345678] ";

  private final ByteArrayOutputStream stream = new ByteArrayOutputStream();
  private final List<Integer> fpduEnds = new ArrayList<>();
  private final List<Long> crcs = new ArrayList<>();

  SplitTrailerEvidenceTest() {
    stream.writeBytes("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
    stream.writeBytes(new byte[] {0x50, 0x02, 0x00, 0x04, 0x00, 0x01, 0x00, 0x01});
    fpdu(40); // no pad
    fpdu(61); // pad 1
    fpdu(1024); // pad 2
  }

  private void fpdu(int ulpduLength) {
    byte[] ulpdu = new byte[ulpduLength];
    for (int i = 0; i < ulpduLength; i++) {
      ulpdu[i] = (byte) (i * 7 + ulpduLength);
    }
    byte[] f = TestFpdus.frame(ulpdu);
    stream.writeBytes(f);
    fpduEnds.add(stream.size());
    int at = f.length - 4;
    crcs.add((f[at] & 0xffL) | (f[at + 1] & 0xffL) << 8 | (f[at + 2] & 0xffL) << 16
        | (f[at + 3] & 0xffL) << 24);
  }

  /** The stream cut at these offsets into segments of TCP stream 3 (relative seq from 1). */
  private List<Segment> cut(int... at) {
    return segments(stream.toByteArray(), at);
  }

  /** {@code d} cut at these offsets into segments of TCP stream 3 (relative seq from 1). */
  private static List<Segment> segments(byte[] d, int... at) {
    List<Segment> out = new ArrayList<>();
    int from = 0;
    for (int i = 0; i <= at.length; i++) {
      int to = i < at.length ? at[i] : d.length;
      byte[] p = new byte[to - from];
      System.arraycopy(d, from, p, 0, p.length);
      out.add(new Segment(3, 1 + from, p));
      from = to;
    }
    return out;
  }

  private static String crcLine(long in, long own) {
    return WARN + String.format("siw: crc error. in: %08x, own %08x, op 0", in, own);
  }

  @Test
  void aLoggedOwnCrcOnAnFpduWhoseTrailerIsSplitIsAttributed() {
    long own = crcs.get(1);
    // Trailer of FPDU #1 (pad 1 + CRC 4) cut 3+2, and a duplicate retransmitted segment.
    List<Segment> segs = cut(fpduEnds.get(0) + 10, fpduEnds.get(1) - 2);
    segs.add(segs.get(1));
    Verdict v = SplitTrailerEvidence.judge(List.of("kern  :info  : [  800.1] unrelated",
        crcLine(0x12345678L, own)), segs);
    assertTrue(v.attributed(), v.text());
    assertTrue(v.text().contains("FPDU #1 of TCP stream 3"), v.text());
    assertTrue(v.text().contains("trailer split across two TCP segments 3+2 octets"), v.text());
    assertTrue(v.text().contains("CRC32c over the FPDU matches it"), v.text());
  }

  /**
   * The logged 'in' pins the FPDU: the 6-octet trailer of FPDU #0 (pad 2, CRC c0..c3) split 5+1
   * is copied as 00 00 c0 c1 c2 to the start (pad position 0), then c3 again to the start, so the
   * CRC field holds c0 c1 c2 and the previous trailer's last octet (none: zero).
   */
  @Test
  void theLoggedInIsTheSplitCopyOfTheWireOctets() {
    long own = crcs.get(0);
    long in = own & 0x00ffffffL;
    List<Segment> segs = cut(fpduEnds.get(0) - 1);
    Verdict v = SplitTrailerEvidence.judge(List.of(crcLine(in, own)), segs);
    assertTrue(v.attributed(), v.text());
    assertTrue(v.text().contains("gives exactly the logged 'in'"), v.text());
    Verdict other = SplitTrailerEvidence.judge(List.of(crcLine(in ^ 1, own)), segs);
    assertTrue(other.attributed(), other.text());
    assertTrue(other.text().contains("would give in "), other.text());
  }

  @Test
  void theBenignEthSpeedLineIsNotAnotherWarning() {
    Verdict v = SplitTrailerEvidence.judge(List.of(
        "kern  :warn  : [  305.276415] eth0 speed is unknown, defaulting to 1000",
        crcLine(1, crcs.get(1))), cut(fpduEnds.get(1) - 2));
    assertTrue(v.attributed(), v.text());
  }

  @Test
  void anUnsplitTrailerIsNotAttributed() {
    Verdict v = SplitTrailerEvidence.judge(List.of(crcLine(1, crcs.get(1))),
        cut(fpduEnds.get(0) + 10, fpduEnds.get(1)));
    assertFalse(v.attributed(), v.text());
    assertTrue(v.text().contains("trailer NOT split"), v.text());
  }

  @Test
  void anOwnCrcThatIsOnNoFpduIsNotAttributed() {
    Verdict v = SplitTrailerEvidence.judge(List.of(crcLine(1, 0xdeadbeefL)),
        cut(fpduEnds.get(1) - 2));
    assertFalse(v.attributed(), v.text());
    assertTrue(v.text().contains("no FPDU toward siw in the capture (3 FPDUs with CRC on)"),
        v.text());
  }

  /**
   * docs/interop.md's send_bw case, bug 1's 2+2 form: 'in' is the split copy of a trailer, and
   * 'own' is CRC32c over the FPDU followed by the first part's trailer octets. Attributed on
   * exactly those two values (before 2026-11-27 it was explained but not attributed); one bit
   * off in either is not. FPDU #0 (octets 24..72: pad 2 from 66, CRC from 68) cut 4+2: the
   * first copy leaves 00 00 c0 c1 at the start, the second c2 c3, so 'in' reads c0 c1 and two
   * octets no FPDU reached (zero).
   */
  @Test
  void anOwnOverTheFpduAndTheFirstPartOfItsSplitTrailerIsAttributedOnExactValuesOnly() {
    byte[] d = stream.toByteArray();
    assertTrue(fpduEnds.get(0) == 72, "layout: " + fpduEnds);
    CRC32C c = new CRC32C();
    c.update(d, 24, 70 - 24);
    long own = c.getValue();
    long in = crcs.get(0) & 0xffffL;
    Verdict v = SplitTrailerEvidence.judge(List.of(crcLine(in, own)), cut(70));
    assertTrue(v.attributed(), v.text());
    assertTrue(v.text().contains("'in' is exactly the split copy of the trailer of FPDU #0 of"
        + " TCP stream 3"), v.text());
    assertTrue(v.text().contains("'own' is CRC32c over that FPDU followed by the trailer octets"
        + " of the split's first part (bug 1's 2+2 form: attributed)"), v.text());
    assertFalse(SplitTrailerEvidence.judge(List.of(crcLine(in, own ^ 1)), cut(70)).attributed(),
        "own one bit off");
    assertFalse(SplitTrailerEvidence.judge(List.of(crcLine(in ^ 0x100, own)), cut(70))
        .attributed(), "in one bit off");
    assertFalse(SplitTrailerEvidence.judge(List.of(crcLine(in, own), WARN
        + "siw: something else"), cut(70)).attributed(), "another kernel warning");
  }

  @Test
  void aWrongCrcOnTheWireIsNotAttributed() {
    byte[] d = stream.toByteArray();
    d[fpduEnds.get(1) - 10] ^= 1; // payload of FPDU #1: its CRC no longer checks
    int cutAt = fpduEnds.get(1) - 2;
    List<Segment> segs = List.of(new Segment(0, 1, java.util.Arrays.copyOf(d, cutAt)),
        new Segment(0, 1 + cutAt, java.util.Arrays.copyOfRange(d, cutAt, d.length)));
    Verdict v = SplitTrailerEvidence.judge(List.of(crcLine(1, crcs.get(1))), segs);
    assertFalse(v.attributed(), v.text());
    assertTrue(v.text().contains("but CRC32c over the FPDU is"), v.text());
  }

  @Test
  void withoutACrcLineOrWithAnotherWarningNothingIsAttributed() {
    List<Segment> segs = cut(fpduEnds.get(1) - 2);
    Verdict none = SplitTrailerEvidence.judge(List.of(WARN + "siw: something else"), segs);
    assertFalse(none.attributed(), none.text());
    assertTrue(none.text().contains("no 'siw: crc error' line"), none.text());
    Verdict other = SplitTrailerEvidence.judge(List.of(crcLine(1, crcs.get(1)),
        "kern  :err   : [  813.000000] BUG: kernel NULL pointer dereference"), segs);
    assertFalse(other.attributed(), other.text());
    assertTrue(other.text().contains("another kernel warning: kern  :err"), other.text());
  }

  /**
   * A stream toward siw for bug 4's tests: the MPA Request with C=1, then FPDUs with real
   * DDP/RDMAP headers and right CRCs.
   */
  private static final class Wire {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final List<Integer> starts = new ArrayList<>();
    private final List<Integer> lengths = new ArrayList<>();

    Wire() {
      out.writeBytes("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(new byte[] {0x50, 0x02, 0x00, 0x04, 0x00, 0x01, 0x00, 0x01});
    }

    /** An untagged Send-type FPDU (QN 0), not the last of its message. */
    Wire send(int opcode, long msn, long mo, byte[] payload) {
      return fpdu(new byte[] {0x01, (byte) (0x40 | opcode), 0, 0, 0, 0, 0, 0, 0, 0,
          (byte) (msn >> 24), (byte) (msn >> 16), (byte) (msn >> 8), (byte) msn,
          (byte) (mo >> 24), (byte) (mo >> 16), (byte) (mo >> 8), (byte) mo}, payload);
    }

    /** A tagged RDMA Write FPDU, the last of its message. */
    Wire write(int stag, byte[] payload) {
      return fpdu(new byte[] {(byte) 0xc1, 0x40, (byte) (stag >> 24), (byte) (stag >> 16),
          (byte) (stag >> 8), (byte) stag, 0, 0, 0, 0, 0, 0, 0x10, 0}, payload);
    }

    /** An RDMA Read Request (QN 1): 46 octets of ULPDU, no payload. */
    Wire readRequest(long msn) {
      byte[] h = new byte[46];
      h[0] = 0x41;
      h[1] = 0x41;
      h[9] = 1;
      h[13] = (byte) msn;
      h[20] = 0x12; // a sink STag, a Read size and a source STag that are not zero
      h[32] = 0x10;
      h[36] = 0x34;
      return fpdu(h, new byte[0]);
    }

    private Wire fpdu(byte[] header, byte[] payload) {
      byte[] ulpdu = new byte[header.length + payload.length];
      System.arraycopy(header, 0, ulpdu, 0, header.length);
      System.arraycopy(payload, 0, ulpdu, header.length, payload.length);
      starts.add(out.size());
      lengths.add(ulpdu.length);
      out.writeBytes(TestFpdus.frame(ulpdu));
      return this;
    }

    byte[] bytes() {
      return out.toByteArray();
    }

    int start(int i) {
      return starts.get(i);
    }

    /** Where FPDU i's trailer (pad, then CRC) begins: 2 + ULPDU_Length octets in. */
    int trailer(int i) {
      return start(i) + 2 + lengths.get(i);
    }

    int crcAt(int i) {
      return trailer(i) + (-(2 + lengths.get(i)) & 3);
    }

    /** FPDU i's 4 CRC octets as on the wire. */
    byte[] crc(int i) {
      return java.util.Arrays.copyOfRange(bytes(), crcAt(i), crcAt(i) + 4);
    }
  }

  /** A payload whose octets differ from each other's neighbours. */
  private static byte[] payload(int n, int seed) {
    byte[] p = new byte[n];
    for (int i = 0; i < n; i++) {
      p[i] = (byte) (i * 31 + seed);
    }
    return p;
  }

  /** CRC32c over d[from..to) and then {@code more}: how siw computes 'own'. */
  private static long crc(byte[] d, int from, int to, byte... more) {
    CRC32C c = new CRC32C();
    c.update(d, from, to - from);
    c.update(more);
    return c.getValue();
  }

  /** Four octets in wire order as siw prints them (a little-endian u32). */
  private static long printed(int b0, int b1, int b2, int b3) {
    return (b0 & 0xffL) | (b1 & 0xffL) << 8 | (b2 & 0xffL) << 16 | (b3 & 0xffL) << 24;
  }

  private static String opLine(long in, long own, int op) {
    return WARN + String.format("siw: crc error. in: %08x, own %08x, op %d", in, own, op);
  }

  /**
   * The 06:35 failure (docs/interop.md, "The fifth run"), rebuilt from the capture's octets:
   * Send MSN 193 in FPDUs of 32762 octets of ULPDU with zero payload, the second's header (MO
   * 32744) cut after octet 18 on the guest's link. siw takes 22 octets as header, so its pad is
   * 2 where the real pad is 0: own is CRC32c over the FPDU and the first two CRC octets (db
   * e0), in the last two CRC octets (b6 ae) and the previous trailer's last two (69 ac).
   */
  @Test
  void theSplitHeaderOfThe0635FailureIsAttributedAsBug4() {
    Wire w = new Wire().send(3, 193, 0, new byte[32744]).send(3, 193, 32744, new byte[32744]);
    byte[] d = w.bytes();
    HexFormat hex = HexFormat.ofDelimiter(" ");
    assertEquals("ce 04 69 ac", hex.formatHex(w.crc(0)), "FPDU #576's CRC in the capture");
    assertEquals("db e0 b6 ae", hex.formatHex(w.crc(1)), "FPDU #577's CRC in the capture");
    assertEquals("7f fa 01 43 00 00 00 00 00 00 00 00 00 00 00 c1 00 00 7f e8",
        hex.formatHex(d, w.start(1), w.start(1) + 20), "FPDU #577's header in the capture");
    List<Segment> segs = segments(d, w.start(0) + 1448, w.start(0) + 2 * 1448,
        w.start(1) + 18, w.start(1) + 18 + 1448);
    Verdict v = SplitTrailerEvidence.judge(List.of(
        WARN + "siw: crc error. in: ac69aeb6, own f161d964, op 3"), segs);
    assertTrue(v.attributed(), v.text());
    assertEquals(List.of(SplitTrailerEvidence.BUG4), v.forms(), v.text());
    assertTrue(v.text().startsWith("ATTRIBUTED to siw's split-header form of the same change"
        + " (bug 4): "), v.text());
    assertTrue(v.text().contains("FPDU #1 of TCP stream 3 (stream offset " + w.start(1)
        + ", opcode 3 Send, MSN 193, MO 32744, ULPDU_Length 32762, trailer db e0 b6 ae): header"
        + " cut 18+2 on the guest's link, so siw_get_hdr() took R = 22 octets as its 20-octet"
        + " header, swallowing 2 payload octet(s) (00 00), so srx->pad is 2 where the real pad"
        + " is 0, and both 'in' and 'own' are predicted exactly"), v.text());
    assertTrue(v.text().contains("its CRC on the wire, aeb6e0db, is right"), v.text());
  }

  /**
   * FPDU #1 (Send, ULPDU_Length 118, no pad) with its header cut after octet {@code at}: siw
   * takes R = at + 4 octets (16 + (at - 16), then 4 more), so srx->pad = (R - 20) mod 4.
   */
  private static Verdict judgeCutSend(int at, int padOctets, long in, Wire w) {
    byte[] d = w.bytes();
    long own = crc(d, w.start(1), w.trailer(1),
        java.util.Arrays.copyOf(w.crc(1), padOctets));
    return SplitTrailerEvidence.judge(List.of(opLine(in, own, 3)),
        segments(d, w.start(1) - 7, w.start(1) + at));
  }

  @Test
  void sendHeadersCutAfterOctets17And19ArePredictedExactly() {
    Wire w = new Wire().send(3, 1, 0, payload(100, 1)).send(3, 2, 0, payload(100, 2));
    byte[] c = w.crc(1);
    byte[] p = w.crc(0);
    // Cut 17: R = 21, pad 1: tbuf = CRC field - 1 takes c0..c3, the field holds c1 c2 c3 p3.
    Verdict v17 = judgeCutSend(17, 1, printed(c[1], c[2], c[3], p[3]), w);
    assertTrue(v17.attributed(), v17.text());
    assertTrue(v17.text().contains("header cut 17+3 on the guest's link, so siw_get_hdr() took"
        + " R = 21 octets"), v17.text());
    assertTrue(v17.text().contains("srx->pad is 1 where the real pad is 0"), v17.text());
    // Cut 19: R = 23, pad 3: the field holds c3 p1 p2 p3.
    Verdict v19 = judgeCutSend(19, 3, printed(c[3], p[1], p[2], p[3]), w);
    assertTrue(v19.attributed(), v19.text());
    assertTrue(v19.text().contains("header cut 19+1 on the guest's link, so siw_get_hdr() took"
        + " R = 23 octets"), v19.text());
    assertTrue(v19.text().contains("srx->pad is 3 where the real pad is 0"), v19.text());
  }

  /** Cuts 17, 18: the second step copies 1, then 1, then 4 octets: R = 22, pad 2. */
  @Test
  void aHeaderCut17Plus1Plus2IsPredictedExactly() {
    Wire w = new Wire().send(5, 7, 0, payload(100, 3)).send(5, 7, 100, payload(100, 4));
    byte[] d = w.bytes();
    byte[] c = w.crc(1);
    byte[] p = w.crc(0);
    long own = crc(d, w.start(1), w.trailer(1), c[0], c[1]);
    Verdict v = SplitTrailerEvidence.judge(List.of(opLine(printed(c[2], c[3], p[2], p[3]), own,
        5)), segments(d, w.start(1) + 17, w.start(1) + 18));
    assertTrue(v.attributed(), v.text());
    assertTrue(v.text().contains("opcode 5 Send with Solicited Event, MSN 7, MO 100"), v.text());
    assertTrue(v.text().contains("header cut 17+1+2 on the guest's link, so siw_get_hdr() took"
        + " R = 22 octets"), v.text());
    // The same cuts with the header's last two octets in a segment of their own: R = 20.
    Verdict whole = SplitTrailerEvidence.judge(List.of(opLine(printed(c[2], c[3], p[2], p[3]),
        own, 5)), segments(d, w.start(1) + 17, w.start(1) + 18, w.start(1) + 20));
    assertFalse(whole.attributed(), whole.text());
    assertTrue(whole.text().contains("0 FPDU(s) toward siw had an untagged header"),
        whole.text());
  }

  /**
   * A 48-octet Read Request header cut at 30: the second step copies 14, then 32 octets: R =
   * 62 runs past the Read Request's 48 octets (it has no payload), so siw's data length is
   * negative: siw_proc_rreq() refuses it, no CRC error is predicted and nothing attributed.
   */
  @Test
  void aReadRequestHeaderCutAt30PredictsNoCrcError() {
    Wire w = new Wire().send(3, 1, 0, payload(100, 5)).readRequest(1)
        .send(3, 2, 0, payload(100, 6));
    byte[] d = w.bytes();
    Verdict v = SplitTrailerEvidence.judge(List.of(opLine(1, 2, 1)),
        segments(d, w.start(1) + 30));
    assertFalse(v.attributed(), v.text());
    assertTrue(v.text().contains("opcode 1 RDMA Read Request, MSN 1, MO 0, ULPDU_Length 46"),
        v.text());
    assertTrue(v.text().contains("header cut 30+18 on the guest's link, so siw_get_hdr() took"
        + " R = 62 octets as its 48-octet header"), v.text());
    assertTrue(v.text().contains("no CRC error is predicted (siw_proc_rreq() warns 'rreq with"
        + " mpa len'"), v.text());
  }

  /** A cut exactly after octet 16 is assembled right (the second step copies 4 octets). */
  @Test
  void aSendHeaderCutAt16AndAWriteHeaderCutAt12AreNotAffected() {
    Wire w = new Wire().send(3, 1, 0, payload(100, 7)).send(3, 2, 0, payload(100, 8))
        .write(0x1234, payload(100, 9));
    byte[] d = w.bytes();
    byte[] c = w.crc(1);
    byte[] p = w.crc(0);
    // What a cut at 18 would log: never predicted for a cut at 16.
    String line = opLine(printed(c[2], c[3], p[2], p[3]),
        crc(d, w.start(1), w.trailer(1), c[0], c[1]), 3);
    Verdict at16 = SplitTrailerEvidence.judge(List.of(line), segments(d, w.start(1) + 16));
    assertFalse(at16.attributed(), at16.text());
    assertTrue(at16.text().contains("0 FPDU(s) toward siw had an untagged header"), at16.text());
    Verdict at18 = SplitTrailerEvidence.judge(List.of(line), segments(d, w.start(1) + 18));
    assertTrue(at18.attributed(), at18.text());
    Verdict write = SplitTrailerEvidence.judge(List.of(opLine(1, 2, 0)),
        segments(d, w.start(2) + 12));
    assertFalse(write.attributed(), write.text());
    assertTrue(write.text().contains("0 FPDU(s) toward siw had an untagged header"),
        write.text());
  }

  @Test
  void aHeaderCutWhosePredictionIsNotTheLoggedPairIsNotAttributed() {
    Wire w = new Wire().send(3, 1, 0, payload(100, 10)).send(3, 2, 0, payload(100, 11));
    byte[] d = w.bytes();
    byte[] c = w.crc(1);
    byte[] p = w.crc(0);
    long in = printed(c[2], c[3], p[2], p[3]);
    long own = crc(d, w.start(1), w.trailer(1), c[0], c[1]);
    List<Segment> segs = segments(d, w.start(1) + 18);
    for (long[] pair : new long[][] {{in ^ 1, own}, {in, own ^ 0x100}}) {
      Verdict v = SplitTrailerEvidence.judge(List.of(opLine(pair[0], pair[1], 3)), segs);
      assertFalse(v.attributed(), v.text());
      assertTrue(v.text().contains("1 FPDU(s) toward siw had an untagged header whose tail after"
          + " octet 16 arrived in more than one TCP segment (bug 4's path), none predicting the"
          + " logged pair"), v.text());
      assertTrue(v.text().contains(String.format("predicting in %08x, own %08x", in, own)),
          v.text());
    }
  }

  @Test
  void aHeaderCutFpduWhoseCrcOnTheWireIsWrongIsNotAttributed() {
    Wire w = new Wire().send(3, 1, 0, payload(100, 12)).send(3, 2, 0, payload(100, 13));
    byte[] d = w.bytes();
    d[w.start(1) + 50] ^= 1; // payload of FPDU #1: its CRC no longer checks
    byte[] c = w.crc(1);
    byte[] p = w.crc(0);
    long in = printed(c[2], c[3], p[2], p[3]);
    long own = crc(d, w.start(1), w.trailer(1), c[0], c[1]);
    Verdict v = SplitTrailerEvidence.judge(List.of(opLine(in, own, 3)),
        segments(d, w.start(1) + 18));
    assertFalse(v.attributed(), v.text());
    assertTrue(v.text().contains("both 'in' and 'own' are predicted exactly, but its CRC on the"
        + " wire"), v.text());
    assertTrue(v.text().contains("is WRONG"), v.text());
  }

  /**
   * Header cut 18 (pad 2 for a real 0) and trailer split 3+1, composed with bug 1's copy rule:
   * c0 c1 c2 go to CRC field - 2, then c3 to CRC field - 2 again. The two pad octets siw feeds
   * its CRC are then c3 c1, and the field holds c2 and the previous trailer's last three.
   */
  @Test
  void aHeaderCutAndASplitTrailerComposeWithBug1sCopyRule() {
    Wire w = new Wire().send(3, 1, 0, payload(100, 14)).send(3, 2, 0, payload(100, 15));
    byte[] d = w.bytes();
    byte[] c = w.crc(1);
    byte[] p = w.crc(0);
    long in = printed(c[2], p[1], p[2], p[3]);
    long own = crc(d, w.start(1), w.trailer(1), c[3], c[1]);
    Verdict v = SplitTrailerEvidence.judge(List.of(opLine(in, own, 3)),
        segments(d, w.start(1) + 18, w.crcAt(1) + 3));
    assertTrue(v.attributed(), v.text());
    assertTrue(v.text().contains("split 3+1 octets): header cut 18+2"), v.text());
  }

  /**
   * ULPDU_Length 119 (real pad 3) cut at 18: R = 22, srx->pad = 1, so the 7 trailer octets
   * copied to CRC field - 1 run 2 octets past the field (clipped); the field holds 00 00 c0 c1
   * and siw's CRC runs over one pad octet (00).
   */
  @Test
  void aTrailerCopyRunningPastTheCrcFieldIsClippedAndSaidSo() {
    Wire w = new Wire().send(3, 1, 0, payload(100, 16)).send(3, 2, 0, payload(101, 17));
    byte[] d = w.bytes();
    byte[] c = w.crc(1);
    long own = crc(d, w.start(1), w.trailer(1), (byte) 0);
    Verdict v = SplitTrailerEvidence.judge(List.of(opLine(printed(0, 0, c[0], c[1]), own, 3)),
        segments(d, w.start(1) + 18));
    assertTrue(v.attributed(), v.text());
    assertTrue(v.text().contains("srx->pad is 1 where the real pad is 3 (its trailer copy runs 2"
        + " octet(s) past siw's CRC field, into srx->state: clipped)"), v.text());
  }
}
