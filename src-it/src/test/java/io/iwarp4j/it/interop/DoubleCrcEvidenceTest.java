package io.iwarp4j.it.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.interop.DoubleCrcEvidence.Verdict;
import io.iwarp4j.it.interop.SplitTrailerEvidence.Segment;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link DoubleCrcEvidence} on a hand-built stream from siw: an MPA Reply with C=1, then RDMA
 * Write FPDUs built octet by octet (MPA length, DDP/RDMAP control, STag, TO, payload, pad, CRC),
 * cut into TCP segments; one FPDU's CRC is replaced by what siw sent in the 2026-11-26 23:47 run
 * (CRC32c over the FPDU continued over its payload once more), or by something close to it.
 */
class DoubleCrcEvidenceTest {
  private static final String WARN = "kern  :warn  : [  288.371750] ";
  private static final String THEIR_VIEW_OF_OUR_TERMINATE =
      WARN + "siw: got TERMINATE. layer 0, type 2, code 2";
  private static final String ETH0 = WARN + "eth0 speed is unknown, defaulting to 1000";

  private final ByteArrayOutputStream stream = new ByteArrayOutputStream();
  /** Per FPDU: where its CRC is in the stream, its right CRC, where its payload begins. */
  private final List<int[]> fpdus = new ArrayList<>();
  private final List<Long> rightCrcs = new ArrayList<>();

  DoubleCrcEvidenceTest() {
    stream.writeBytes("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII));
    stream.writeBytes(new byte[] {0x40, 0x01, 0x00, 0x04, 0x00, 0x01, 0x00, 0x01});
    write(1436, false, 0); // a full 1450-octet ULPDU, as siw's in the lab: zeros
    write(1436, false, 0x5a); // the same with a pattern
    write(917, true, 0x33); // the last of the message: pad 1
  }

  private void write(int payload, boolean last, int fill) {
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    int len = 14 + payload;
    f.write(len >> 8);
    f.write(len);
    f.write(last ? 0xc1 : 0x81); // DDP: T=1, L, DV=1
    f.write(0x40); // RDMAP: RV=1, RDMA Write
    f.writeBytes(new byte[] {0x00, 0x00, 0x12, 0x34}); // STag
    f.writeBytes(new byte[] {0x00, 0x00, 0x7f, 0x3c, 0x21, 0x40, 0x10, 0x00}); // TO
    int payloadAt = stream.size() + f.size();
    for (int i = 0; i < payload; i++) {
      f.write(fill == 0 ? 0 : fill + i * 13);
    }
    while (f.size() % 4 != 0) {
      f.write(0);
    }
    CRC32C c = new CRC32C();
    c.update(f.toByteArray());
    long crc = c.getValue();
    int crcAt = stream.size() + f.size();
    for (int i = 0; i < 4; i++) {
      f.write((int) (crc >>> (8 * i)));
    }
    stream.writeBytes(f.toByteArray());
    fpdus.add(new int[] {crcAt, payloadAt});
    rightCrcs.add(crc);
  }

  /** The stream with FPDU {@code i}'s CRC replaced, cut into segments of TCP stream 99. */
  private List<Segment> withCrc(int i, LongUnaryOperator crc) {
    byte[] d = stream.toByteArray();
    if (i >= 0) {
      long v = crc.applyAsLong(rightCrcs.get(i));
      for (int k = 0; k < 4; k++) {
        d[fpdus.get(i)[0] + k] = (byte) (v >>> (8 * k));
      }
    }
    List<Segment> out = new ArrayList<>();
    for (int from = 0; from < d.length; from += 1000) {
      byte[] p = new byte[Math.min(1000, d.length - from)];
      System.arraycopy(d, from, p, 0, p.length);
      out.add(new Segment(99, 1 + from, p));
    }
    return out;
  }

  /** CRC32c over FPDU {@code i} continued over its octets from {@code from} to its CRC. */
  private long twice(int i, int from) {
    return DoubleCrcEvidence.continued(rightCrcs.get(i), stream.toByteArray(), from,
        fpdus.get(i)[0]);
  }

  @Test
  void continuedIsCrc32cOverTheConcatenation() {
    byte[] a = "MPA ID Rep Frame then some octets".getBytes(StandardCharsets.US_ASCII);
    CRC32C whole = new CRC32C();
    whole.update(a);
    CRC32C head = new CRC32C();
    head.update(a, 0, 11);
    assertEquals(whole.getValue(), DoubleCrcEvidence.continued(head.getValue(), a, 11, a.length));
    // The run of 2026-11-26 23:47: 0xb33e85e1 over the FPDU, 1436 zeros more give 0x8f8bc3ff.
    assertEquals(0x8f8bc3ffL, DoubleCrcEvidence.continued(0xb33e85e1L, new byte[1436], 0, 1436));
  }

  @Test
  void aCrcOverTheFpduAndItsPayloadOnceMoreIsAttributed() {
    for (int i = 0; i < 3; i++) {
      int fpdu = i;
      long bad = twice(fpdu, fpdus.get(fpdu)[1]);
      Verdict v = DoubleCrcEvidence.judge(List.of(ETH0, THEIR_VIEW_OF_OUR_TERMINATE),
          withCrc(fpdu, c -> bad));
      assertTrue(v.attributed(), v.text());
      assertTrue(v.text().contains("FPDU #" + fpdu + " of TCP stream 99"), v.text());
      assertTrue(v.text().contains("STag 00001234 TO 00007f3c21401000"), v.text());
      assertTrue(v.text().contains("exactly CRC32c over the FPDU continued over its "
          + (fpdus.get(fpdu)[0] - fpdus.get(fpdu)[1]) + " payload and pad octets"), v.text());
      assertEquals(1, v.crcs().size());
      assertEquals(bad, v.crcs().get(0)[0]);
      assertEquals(rightCrcs.get(fpdu), v.crcs().get(0)[1]);
    }
  }

  @Test
  void anUnexplainedWrongCrcIsNotAttributed() {
    long bad = twice(1, fpdus.get(1)[1]);
    Verdict offByOneBit = DoubleCrcEvidence.judge(List.of(), withCrc(1, c -> bad ^ 1));
    assertFalse(offByOneBit.attributed(), offByOneBit.text());
    assertTrue(offByOneBit.text().contains("NOT explained: not CRC32c over the FPDU continued"
        + " over any tail"), offByOneBit.text());
    // A shorter tail than the whole payload is a different event: said, not attributed.
    long tail = twice(1, fpdus.get(1)[1] + 100);
    Verdict shorter = DoubleCrcEvidence.judge(List.of(), withCrc(1, c -> tail));
    assertFalse(shorter.attributed(), shorter.text());
    assertTrue(shorter.text().contains("over its last 1336 payload and pad octets"),
        shorter.text());
    // The whole FPDU, header included, twice is not the form either.
    long header = twice(1, fpdus.get(1)[1] - 14);
    assertFalse(DoubleCrcEvidence.judge(List.of(), withCrc(1, c -> header)).attributed());
    // Another FPDU's right CRC.
    assertFalse(DoubleCrcEvidence.judge(List.of(), withCrc(1, c -> rightCrcs.get(0)))
        .attributed());
  }

  @Test
  void oneExplainedAndOneUnexplainedWrongCrcIsNotAttributed() {
    long first = twice(0, fpdus.get(0)[1]);
    List<Segment> segs = withCrc(0, c -> first);
    // FPDU #2's CRC off by one in the same segments.
    Segment last = segs.get(segs.size() - 1);
    int at = fpdus.get(2)[0] - (int) (last.seq() - 1);
    last.payload()[at] ^= 1;
    Verdict v = DoubleCrcEvidence.judge(List.of(), segs);
    assertFalse(v.attributed(), v.text());
    assertTrue(v.text().startsWith("NOT attributed: 2 of 3 FPDUs from the guest with a wrong"
        + " CRC"), v.text());
  }

  @Test
  void noWrongCrcOrAnotherKernelWarningIsNotAttributed() {
    Verdict none = DoubleCrcEvidence.judge(List.of(THEIR_VIEW_OF_OUR_TERMINATE),
        withCrc(-1, c -> c));
    assertFalse(none.attributed(), none.text());
    assertTrue(none.text().contains("no FPDU from the guest with a wrong CRC (3 FPDUs"),
        none.text());
    long bad = twice(0, fpdus.get(0)[1]);
    Verdict crcLine = DoubleCrcEvidence.judge(
        List.of(WARN + "siw: crc error. in: 64eae4d6, own d6eae40f, op 2"), withCrc(0, c -> bad));
    assertFalse(crcLine.attributed(), crcLine.text());
    Verdict otherTerminate = DoubleCrcEvidence.judge(
        List.of(WARN + "siw: got TERMINATE. layer 0, type 2, code 6"), withCrc(0, c -> bad));
    assertFalse(otherTerminate.attributed(), otherTerminate.text());
    assertTrue(otherTerminate.text().contains("another kernel warning"), otherTerminate.text());
  }
}
