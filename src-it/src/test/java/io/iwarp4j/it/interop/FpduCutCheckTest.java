package io.iwarp4j.it.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.interop.FpduCutCheck.Cut;
import io.iwarp4j.it.interop.FpduCutCheck.FirstFpdu;
import io.iwarp4j.it.interop.FpduCutCheck.Predicted;
import io.iwarp4j.it.interop.SplitTrailerEvidence.Segment;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link FpduCutCheck}'s predictions against a step-by-step model of Linux 6.1 siw's receive
 * path for one Send FPDU ({@code siw_get_hdr()}: 16 octets first, then
 * {@code min(hdr_len - 16, skb_new)} per upcall; the payload; {@code siw_get_trailer()}: each
 * part copied to the start of its trailer buffer), segment by segment, and its verdict on
 * hand-built captures.
 */
class FpduCutCheckTest {
  private static final byte[] AD = advertisement(0x7f3a_1c00_2000L, 0x0000_1a02, 64);
  private static final Cut HDR18 = Cut.parse("header:18");
  private static final Cut TRL3 = Cut.parse("trailer:3");

  private static byte[] advertisement(long addr, int rkey, int size) {
    return ByteBuffer.allocate(16).putLong(addr).putInt(rkey).putInt(size).array();
  }

  /** An untagged Send FPDU (QN 0, MSN 1, MO 0, Last) carrying {@code payload}. */
  private static byte[] sendFpdu(byte[] payload, boolean crc) {
    ByteBuffer b = ByteBuffer.allocate(20 + payload.length + ((-payload.length) & 3) + 4);
    b.putShort((short) (18 + payload.length)).put((byte) 0x41).put((byte) 0x43).putInt(0)
        .putInt(0).putInt(1).putInt(0).put(payload);
    byte[] f = b.array();
    if (crc) {
      CRC32C c = new CRC32C();
      c.update(f, 0, f.length - 4);
      long v = c.getValue();
      for (int i = 0; i < 4; i++) {
        f[f.length - 4 + i] = (byte) (v >>> (8 * i));
      }
    }
    return f;
  }

  /** What the model of siw logged and placed. */
  private record Siw(Long in, Long own, byte[] placed) {
  }

  /** Linux 6.1 siw receiving one Send FPDU cut into segments of these sizes. */
  private static Siw siw(byte[] f, boolean crc, int... segments) {
    byte[] hdr = new byte[64];
    byte[] placed = new byte[16];
    byte[] tbuf = new byte[3 + 4 + 8]; // siw's pad octets before its CRC field: index 3
    CRC32C c = new CRC32C();
    int state = 0; // 0 header, 1 data, 2 trailer
    int rcvd = 0;
    int rem = 0;
    int pad = 0;
    int processed = 0;
    int at = 0;
    for (int seg : segments) {
      int skbNew = seg;
      while (skbNew > 0) {
        if (state == 0) {
          if (rcvd < 16) {
            int n = Math.min(skbNew, 16 - rcvd);
            System.arraycopy(f, at, hdr, rcvd, n);
            rcvd += n;
            at += n;
            skbNew -= n;
            if (rcvd < 16) {
              break;
            }
          }
          int n = Math.min(skbNew, 20 - 16); // the bug: whatever is already in hand
          System.arraycopy(f, at, hdr, rcvd, n);
          rcvd += n;
          at += n;
          skbNew -= n;
          if (rcvd < 20) {
            break;
          }
          c.update(hdr, 0, rcvd);
          int mpaLen = ((hdr[0] & 0xff) << 8) | (hdr[1] & 0xff);
          rem = mpaLen - rcvd + 2;
          pad = (-rem) & 3;
          state = 1;
        } else if (state == 1) {
          int n = Math.min(rem, skbNew);
          System.arraycopy(f, at, placed, processed, n);
          c.update(f, at, n);
          processed += n;
          at += n;
          skbNew -= n;
          rem -= n;
          if (rem > 0) {
            break;
          }
          int mpaLen = ((hdr[0] & 0xff) << 8) | (hdr[1] & 0xff);
          rem = ((-(mpaLen + 2)) & 3) + 4;
          state = 2;
        } else {
          int n = Math.min(rem, skbNew);
          System.arraycopy(f, at, tbuf, 3 - pad, n);
          at += n;
          skbNew -= n;
          rem -= n;
          if (rem > 0) {
            break;
          }
          c.update(tbuf, 3 - pad, pad);
          long own = c.getValue();
          long in = SplitTrailerEvidence.le(tbuf, 3);
          return crc && own != in ? new Siw(in, own, placed) : new Siw(null, null, placed);
        }
      }
    }
    throw new AssertionError("the model did not finish the FPDU");
  }

  private static FirstFpdu first(byte[] f, int cut) {
    return new FirstFpdu(24, 24, f, List.of(cut), true);
  }

  @Test
  void aHeaderCutAfterOctet17To19GivesExactlyThePredictedCrcError() {
    byte[] f = sendFpdu(AD, true);
    for (int cut = 17; cut <= 19; cut++) {
      Siw s = siw(f, true, cut, f.length - cut);
      Predicted p = FpduCutCheck.predictCrc(first(f, cut), cut, new byte[4]);
      assertEquals(p.in(), s.in(), "in, cut " + cut);
      assertEquals(p.own(), s.own(), "own, cut " + cut);
    }
  }

  @Test
  void otherCutsAreHarmless() {
    byte[] f = sendFpdu(AD, true);
    // The cuts seen harmless on the guest's link (2, 3, 6, 14-16) and any in the payload; a cut
    // inside the trailer (37-39) is bug 1, the split trailer, not this one.
    for (int cut : new int[] {1, 2, 3, 6, 14, 15, 16, 20, 21, 35, 36}) {
      Siw s = siw(f, true, cut, f.length - cut);
      assertNull(s.in(), "cut " + cut);
      assertArrayEquals(AD, s.placed(), "cut " + cut);
    }
  }

  @Test
  void withoutCrcTheAdvertisementLandsTwoOctetsEarly() {
    byte[] f = sendFpdu(AD, false);
    Siw s = siw(f, false, 18, f.length - 18);
    assertNull(s.in());
    assertArrayEquals(FpduCutCheck.shiftedAdvertisement(AD, 2), s.placed());
    assertEquals("Received rkey 1a020000 addr 7f3a1c0020000000 len 4194304 from peer",
        FpduCutCheck.rpingLine(FpduCutCheck.shiftedAdvertisement(AD, 2)));
    assertEquals("Received rkey 1a02 addr 7f3a1c002000 len 64 from peer",
        FpduCutCheck.rpingLine(AD));
  }

  /** A Request (4 octets of private data) and the FPDU, as segments of one stream. */
  private static List<Segment> capture(int stream, byte[] f, int... cuts) {
    ByteArrayOutputStream d = new ByteArrayOutputStream();
    d.writeBytes("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
    d.writeBytes(new byte[] {(byte) (f.length > 0 && crcOf(f) ? 0x40 : 0x00), 0x02, 0x00, 0x04,
        0x00, 0x01, 0x00, 0x01});
    int req = d.size();
    d.writeBytes(f);
    byte[] all = d.toByteArray();
    List<Segment> out = new ArrayList<>();
    out.add(new Segment(stream, 1, Arrays.copyOf(all, req)));
    int from = req;
    for (int c : cuts) {
      out.add(new Segment(stream, 1 + from, Arrays.copyOfRange(all, from, req + c)));
      from = req + c;
    }
    out.add(new Segment(stream, 1 + from, Arrays.copyOfRange(all, from, all.length)));
    return out;
  }

  private static boolean crcOf(byte[] f) {
    return f[f.length - 1] != 0 || f[f.length - 2] != 0 || f[f.length - 3] != 0
        || f[f.length - 4] != 0;
  }

  @Test
  void theCrcRowPassesOnlyOnTheLoggedPredictedPair() {
    byte[] f = sendFpdu(AD, true);
    Siw s = siw(f, true, 18, f.length - 18);
    String line = String.format("kern  :warn  : [  99.000001] siw: crc error. in: %08x, own"
        + " %08x, op 1", s.in(), s.own());
    List<String> ev = FpduCutCheck.judge(true, capture(0, f, 18), capture(7, f, 18), HDR18,
        List.of(line), List.of());
    assertTrue(last(ev).startsWith("PASS"), String.join("\n", ev));
    String wrong = String.format("siw: crc error. in: %08x, own %08x", s.in() ^ 1, s.own());
    ev = FpduCutCheck.judge(true, capture(0, f, 18), capture(7, f, 18), HDR18, List.of(wrong),
        List.of());
    assertTrue(last(ev).startsWith("FAIL"), String.join("\n", ev));
    // The guest got the FPDU whole (slirp coalesced): not the evidence, whatever was logged.
    ev = FpduCutCheck.judge(true, capture(0, f, 18), capture(7, f), HDR18, List.of(line),
        List.of());
    assertTrue(last(ev).contains("did not get the header cut"), String.join("\n", ev));
    ev = FpduCutCheck.judge(true, capture(0, f, 18), capture(7, f, 18), HDR18, List.of(),
        List.of());
    assertTrue(last(ev).contains("0 'siw: crc error' lines"), String.join("\n", ev));
  }

  @Test
  void theNoCrcRowPassesOnlyOnTheShiftedAdvertisement() {
    byte[] f = sendFpdu(AD, false);
    List<String> rping = List.of("Received rkey 1a020000 addr 7f3a1c0020000000 len 4194304 from peer");
    List<String> ev = FpduCutCheck.judge(false, capture(0, f, 18), capture(3, f, 18), HDR18,
        List.of(), rping);
    assertTrue(last(ev).startsWith("PASS"), String.join("\n", ev));
    ev = FpduCutCheck.judge(false, capture(0, f, 18), capture(3, f, 18), HDR18, List.of(),
        List.of("Received rkey 1a02 addr 7f3a1c002000 len 64 from peer"));
    assertTrue(last(ev).startsWith("FAIL"), String.join("\n", ev));
    // rdma-core 44's rping -s: the length check first.
    ev = FpduCutCheck.judge(false, capture(0, f, 18), capture(3, f, 18), HDR18, List.of(),
        List.of("Received bogus data, size 14", "recv wc error: -1"));
    assertTrue(last(ev).startsWith("PASS"), String.join("\n", ev));
    ev = FpduCutCheck.judge(false, capture(0, f, 18), capture(3, f, 18), HDR18, List.of(),
        List.of("Received bogus data, size 15"));
    assertTrue(last(ev).startsWith("FAIL"), String.join("\n", ev));
  }

  @Test
  void aCutNamesItsKindAndItsOctetInTheFpdu() {
    FirstFpdu f = first(sendFpdu(AD, true), 39);
    assertEquals(18, HDR18.offsetIn(f));
    // The advertisement Send: 2 + 34 octets, pad 0, then the CRC; trailer octet 3 is 39.
    assertEquals(39, TRL3.offsetIn(f));
    assertEquals("trailer:3", TRL3.toString());
    assertEquals(HDR18, Cut.parse("18")); // the header rows' old argument
    assertThrows(IllegalArgumentException.class, () -> Cut.parse("payload:3"));
    assertThrows(IllegalArgumentException.class, () -> Cut.parse("trailer:4"));
    assertThrows(IllegalArgumentException.class, () -> Cut.parse("header:0"));
  }

  @Test
  void aTrailerCutGivesExactlyThePredictedCrcErrorOfBug1() {
    byte[] f = sendFpdu(AD, true);
    byte[] w = Arrays.copyOfRange(f, f.length - 4, f.length); // pad 0: the trailer is the CRC
    for (int k = 1; k <= 3; k++) {
      int cut = 36 + k;
      Siw s = siw(f, true, cut, f.length - cut);
      Predicted p = FpduCutCheck.predictTrailerCut(first(f, cut), k, new byte[4]);
      assertEquals(p.in(), s.in(), "in, trailer cut " + k);
      assertEquals(p.own(), s.own(), "own, trailer cut " + k);
      assertEquals(SplitTrailerEvidence.le(w, 0), p.own(), "own is the CRC on the wire, cut " + k);
    }
    // 3+1: the second part's one octet lands on the first: in's octets are w3 w1 w2 00.
    Predicted p = FpduCutCheck.predictTrailerCut(first(f, 39), 3, new byte[4]);
    assertEquals(SplitTrailerEvidence.le(new byte[] {w[3], w[1], w[2], 0}, 0), p.in());
    // The previous FPDU's CRC octet shows through where no part reaches.
    p = FpduCutCheck.predictTrailerCut(first(f, 39), 3, new byte[] {1, 2, 3, 4});
    assertEquals(SplitTrailerEvidence.le(new byte[] {w[3], w[1], w[2], 4}, 0), p.in());
  }

  @Test
  void theTrailerCutCrcRowPassesOnlyOnTheLoggedPredictedPairAttributedToBug1() {
    byte[] f = sendFpdu(AD, true);
    Siw s = siw(f, true, 39, f.length - 39);
    String line = String.format("kern  :warn  : [  99.000001] siw: crc error. in: %08x, own"
        + " %08x, op 1", s.in(), s.own());
    List<String> ev = FpduCutCheck.judge(true, capture(0, f, 39), capture(7, f, 39), TRL3,
        List.of(line), List.of());
    assertTrue(last(ev).startsWith("PASS"), String.join("\n", ev));
    assertTrue(String.join("\n", ev).contains(SplitTrailerEvidence.BUG1), String.join("\n", ev));
    String wrong = String.format("siw: crc error. in: %08x, own %08x", s.in() ^ 0x100, s.own());
    ev = FpduCutCheck.judge(true, capture(0, f, 39), capture(7, f, 39), TRL3, List.of(wrong),
        List.of());
    assertTrue(last(ev).startsWith("FAIL"), String.join("\n", ev));
    // The guest got the trailer whole: not the evidence, whatever was logged.
    ev = FpduCutCheck.judge(true, capture(0, f, 39), capture(7, f), TRL3, List.of(line),
        List.of());
    assertTrue(last(ev).contains("did not get the trailer cut"), String.join("\n", ev));
    ev = FpduCutCheck.judge(true, capture(0, f, 39), capture(7, f, 39), TRL3,
        List.of(line, line), List.of());
    assertTrue(last(ev).contains("2 'siw: crc error' lines"), String.join("\n", ev));
    // The proxy cut the header instead: not this row's evidence.
    ev = FpduCutCheck.judge(true, capture(0, f, 18), capture(7, f, 18), TRL3, List.of(line),
        List.of());
    assertTrue(last(ev).startsWith("FAIL"), String.join("\n", ev));
  }

  @Test
  void theTrailerCutNoCrcRowPassesOnlyOnTheAdvertisementAsSent() {
    byte[] f = sendFpdu(AD, false);
    Siw s = siw(f, false, 39, f.length - 39);
    assertArrayEquals(AD, s.placed()); // bug 1 is harmless without CRC
    List<String> rping = List.of("Received rkey 1a02 addr 7f3a1c002000 len 64 from peer");
    List<String> ev = FpduCutCheck.judge(false, capture(0, f, 39), capture(3, f, 39), TRL3,
        List.of(), rping);
    assertTrue(last(ev).startsWith("PASS"), String.join("\n", ev));
    ev = FpduCutCheck.judge(false, capture(0, f, 39), capture(3, f, 39), TRL3, List.of(),
        List.of("Received rkey 1a020000 addr 7f3a1c0020000000 len 4194304 from peer"));
    assertTrue(last(ev).startsWith("FAIL"), String.join("\n", ev));
    ev = FpduCutCheck.judge(false, capture(0, f, 39), capture(3, f, 39), TRL3, List.of(),
        List.of("Received bogus data, size 14"));
    assertTrue(last(ev).startsWith("FAIL"), String.join("\n", ev));
    ev = FpduCutCheck.judge(false, capture(0, f, 39), capture(3, f), TRL3, List.of(), rping);
    assertTrue(last(ev).contains("did not get the trailer cut"), String.join("\n", ev));
    ev = FpduCutCheck.judge(false, capture(0, f, 39), capture(3, f, 39), TRL3,
        List.of("siw: crc error. in: 00000000, own 00000000"), rping);
    assertTrue(last(ev).startsWith("FAIL"), String.join("\n", ev));
  }

  private static String last(List<String> l) {
    return l.get(l.size() - 1);
  }
}
