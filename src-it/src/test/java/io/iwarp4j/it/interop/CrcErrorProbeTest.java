package io.iwarp4j.it.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.interop.SplitTrailerEvidence.Segment;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link CrcErrorProbe} on a hand-built stream: 'in' placed at one offset, 'own' the CRC32c of
 * a known range right before it; the probe must name both, and find nothing for values that
 * are not there.
 */
class CrcErrorProbeTest {
  private static byte[] data() {
    byte[] d = new byte[5000];
    for (int i = 0; i < d.length; i++) {
      d[i] = (byte) (i * 31 + 7);
    }
    return d;
  }

  private static List<Segment> segments(byte[] d) {
    return List.of(new Segment(5, 1, Arrays.copyOfRange(d, 0, 3000)),
        new Segment(5, 3001, Arrays.copyOfRange(d, 3000, d.length)));
  }

  @Test
  void namesWhereInIsAndTheRangeWhoseCrcIsOwn() {
    byte[] d = data();
    CRC32C c = new CRC32C();
    c.update(d, 1200, 2996 - 1200);
    long own = c.getValue();
    long in = 0x56b6393bL;
    for (int i = 0; i < 4; i++) {
      d[2996 + i] = (byte) (in >>> (8 * i)); // read least significant octet first, as siw
    }
    List<String> found = CrcErrorProbe.probe(segments(d), in, own);
    assertTrue(found.contains("stream 5: in's octets are at offset 2996 (segment starts around"
        + " it: 3000)"), found.toString());
    assertTrue(found.stream().anyMatch(l -> l.startsWith(
        "stream 5: CRC32c over offsets 1200..2996 (1796 octets")), found.toString());
  }

  /**
   * The split model against a hand-built stream: an MPA Request with CRC, then two FPDUs, the
   * second with 2 octets of pad; the logged values of a 2+4 split of the second trailer are
   * worked out by hand here (the pad's two octets replaced by the CRC's first two, 'in' its last
   * two octets and the first trailer's last two).
   */
  @Test
  void theSplitModelPredictsInAndOwnOfAPaddedTrailer() {
    java.io.ByteArrayOutputStream s = new java.io.ByteArrayOutputStream();
    s.writeBytes("MPA ID Req Frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    s.writeBytes(new byte[] {0x40, 0x01, 0x00, 0x00});
    byte[] f1 = fpdu(26);
    byte[] f2 = fpdu(40); // 2 + 40 octets: pad 2
    s.writeBytes(f1);
    s.writeBytes(f2);
    byte[] d = s.toByteArray();
    int crc1 = f1.length - 4;
    int pad2 = 2 + 40;
    CRC32C c = new CRC32C();
    c.update(f2, 0, pad2);
    c.update(f2, pad2 + 2, 2); // the pad as siw's second copy leaves it: CRC octets 0 and 1
    long own = c.getValue();
    long in = (f2[pad2 + 4] & 0xffL) | (f2[pad2 + 5] & 0xffL) << 8
        | (f1[crc1 + 2] & 0xffL) << 16 | (f1[crc1 + 3] & 0xffL) << 24;
    List<String> found = CrcErrorProbe.splitModel(List.of(new Segment(1, 1, d)), in, own);
    assertTrue(found.stream().anyMatch(l -> l.startsWith("stream 1 FPDU #1 ")
        && l.contains("a split 2+4 would log in") && l.contains("(= in)")
        && l.contains("(= own)")), found.toString());
  }

  private static byte[] fpdu(int ulpduLength) {
    byte[] ulpdu = new byte[ulpduLength];
    for (int i = 0; i < ulpduLength; i++) {
      ulpdu[i] = (byte) (i * 13 + 5);
    }
    return TestFpdus.frame(ulpdu);
  }

  /** The 2+2 form of the send_bw case: 'own' over the FPDU and the first part's two octets. */
  @Test
  void theSplitModelNamesAnOwnOverTheFpduAndTheFirstPart() {
    java.io.ByteArrayOutputStream s = new java.io.ByteArrayOutputStream();
    s.writeBytes("MPA ID Req Frame".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    s.writeBytes(new byte[] {0x40, 0x01, 0x00, 0x00});
    byte[] f = fpdu(26); // 2 + 26 octets: no pad
    s.writeBytes(f);
    CRC32C c = new CRC32C();
    c.update(f, 0, 28 + 2);
    List<String> found = CrcErrorProbe.splitModel(
        List.of(new Segment(1, 1, s.toByteArray())), 0x01020304L, c.getValue());
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).contains("a split 2+2 would log")
        && found.get(0).endsWith("own = CRC32c over the FPDU and the first part's 2 trailer"
        + " octets"), found.toString());
  }

  @Test
  void findsNothingWhenNeitherValueIsThere() {
    List<String> found = CrcErrorProbe.probe(segments(data()), 0x12345678L, 0x9abcdef0L);
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).startsWith("searched 1 streams, 5000 octets"), found.toString());
  }
}
