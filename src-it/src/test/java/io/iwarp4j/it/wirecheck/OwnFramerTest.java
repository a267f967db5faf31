package io.iwarp4j.it.wirecheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The own framer on byte streams built here by a small FPDU writer of its own (RFC 5044 §4:
 * ULPDU_LENGTH, ULPDU, zero PAD, CRC32c least significant octet first; a Marker every 512 octets,
 * FPDUPTR back to the FPDU's ULPDU_LENGTH or 0 just before it).
 */
class OwnFramerTest {

  /** Writes FPDUs into one direction's stream, inserting Markers when asked. */
  private static final class Writer {
    final boolean markers;
    final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Writer(boolean markers) {
      this.markers = markers;
    }

    /** Appends one FPDU for {@code ulpdu}; returns its CRC's stream offset. */
    int fpdu(byte[] ulpdu) {
      int start = out.size();
      int lengthAt = -1;
      byte[] body = new byte[2 + ulpdu.length + (4 - (ulpdu.length + 2) % 4) % 4];
      body[0] = (byte) (ulpdu.length >> 8);
      body[1] = (byte) ulpdu.length;
      System.arraycopy(ulpdu, 0, body, 2, ulpdu.length);
      ByteArrayOutputStream fpdu = new ByteArrayOutputStream();
      for (int i = 0; i < body.length; i++) {
        int pos = start + fpdu.size();
        if (markers && pos % 512 == 0) {
          int ptr = lengthAt < 0 ? 0 : pos - lengthAt;
          fpdu.writeBytes(new byte[] {0, 0, (byte) (ptr >> 8), (byte) ptr});
          pos += 4;
        }
        if (lengthAt < 0) {
          lengthAt = pos;
        }
        fpdu.write(body[i]);
      }
      int pos = start + fpdu.size();
      if (markers && pos % 512 == 0) {
        int ptr = pos - lengthAt;
        fpdu.writeBytes(new byte[] {0, 0, (byte) (ptr >> 8), (byte) ptr});
      }
      byte[] covered = fpdu.toByteArray();
      CRC32C c = new CRC32C();
      c.update(covered);
      long v = c.getValue();
      out.writeBytes(covered);
      int crcAt = out.size();
      out.writeBytes(new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)});
      return crcAt;
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }

  private static byte[] ulpdu(int length) {
    byte[] u = new byte[length];
    for (int i = 0; i < length; i++) {
      u[i] = (byte) (i * 31 + 7);
    }
    return u;
  }

  @Test
  void wellFormedStreamsFrameWithoutProblems() {
    for (boolean markers : new boolean[] {false, true}) {
      Writer w = new Writer(markers);
      int[] sizes = {18, 33, 1000, 0, 490, 3000, 510, 22};
      for (int s : sizes) {
        w.fpdu(ulpdu(s));
      }
      OwnFramer.Result r = OwnFramer.frame(w.bytes(), true, markers);
      assertEquals(List.of(), r.problems(), "markers " + markers);
      assertEquals(sizes.length, r.fpdus().size());
      for (int i = 0; i < sizes.length; i++) {
        assertEquals(sizes[i], r.fpdus().get(i).ulpduLength());
      }
      if (markers) {
        assertTrue(r.fpdus().stream().mapToInt(OwnFramer.Fpdu::markers).sum()
            >= w.bytes().length / 512, "a Marker every 512 octets");
      }
    }
  }

  @Test
  void aFlippedBitIsACrcError() {
    Writer w = new Writer(false);
    w.fpdu(ulpdu(40));
    w.fpdu(ulpdu(40));
    byte[] s = w.bytes();
    s[50] ^= 0x10;
    OwnFramer.Result r = OwnFramer.frame(s, true, false);
    assertEquals(1, r.problems().size(), r.problems().toString());
    assertEquals(Code.F_CRC_BAD, r.problems().get(0).code());
    assertEquals(44 + 4, r.problems().get(0).offset(), "the second FPDU's start");
    assertEquals(List.of(), OwnFramer.frame(s, false, false).problems(), "no CRC negotiated");
  }

  @Test
  void nonZeroPadWrongMarkersAndATruncatedStreamAreFound() {
    Writer w = new Writer(false);
    w.fpdu(ulpdu(33)); // 2 + 33 + 1 PAD
    byte[] s = w.bytes();
    s[35] = 1;
    List<OwnFramer.Problem> p = OwnFramer.frame(s, false, false).problems();
    assertEquals(Code.F_PAD_NONZERO, p.get(0).code(), p.toString());

    Writer m = new Writer(true);
    m.fpdu(ulpdu(1000));
    byte[] ms = m.bytes();
    ms[512 + 3] += 4; // the Marker inside the FPDU: FPDUPTR
    ms[0] = 1; // the first Marker, just before the FPDU: Reserved
    List<Code> codes = OwnFramer.frame(ms, false, true).problems().stream()
        .map(OwnFramer.Problem::code).toList();
    assertTrue(codes.contains(Code.F_MARKER_PTR) && codes.contains(Code.F_MARKER_RES),
        codes.toString());

    byte[] cut = java.util.Arrays.copyOf(w.bytes(), w.bytes().length - 3);
    p = OwnFramer.frame(cut, true, false).problems();
    assertEquals(List.of(Code.F_TRUNCATED), p.stream().map(OwnFramer.Problem::code).toList());
  }
  /** An untagged DDP header (RFC 5041 §4.3) with RDMAP control RV=1, then {@code payload} octets. */
  private static byte[] untagged(int op, boolean last, long qn, long msn, long mo, int payload) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(18 + payload);
    b.put((byte) ((last ? 0x40 : 0) | 0x01)).put((byte) (0x40 | op)).putInt(0)
        .putInt((int) qn).putInt((int) msn).putInt((int) mo);
    return b.array();
  }

  private static List<OwnFramer.Problem> headers(byte[]... ulpdus) {
    Writer w = new Writer(false);
    for (byte[] u : ulpdus) {
      w.fpdu(u);
    }
    OwnFramer.Result r = OwnFramer.frame(w.bytes(), true, false);
    assertEquals(List.of(), r.problems());
    return OwnFramer.headerProblems(r.fpdus());
  }

  @Test
  void ddpHeaderRulesOnFramedUlpdus() {
    // Sends on QN 0: MSN 1, a two-segment MSN 2 (MO 0 then 100), MSN 3; a Read Request on QN 1.
    assertEquals(List.of(), headers(untagged(3, true, 0, 1, 0, 64),
        untagged(3, false, 0, 2, 0, 100), untagged(3, true, 0, 2, 100, 10),
        untagged(3, true, 0, 3, 0, 0), untagged(1, true, 1, 1, 0, 28)));

    List<OwnFramer.Problem> p = headers(untagged(3, true, 0, 1, 0, 8),
        untagged(3, true, 0, 5, 0, 8), untagged(1, true, 1, 1, 0, 20),
        untagged(3, true, 1, 2, 0, 8));
    assertTrue(p.stream().allMatch(x -> x.code() == Code.F_DDP), p.toString());
    assertEquals(3, p.size(), "MSN 5 after 1, a 20-octet Read Request, a Send on QN 1: " + p);
    assertTrue(p.get(0).message().contains("MSN 5"), p.toString());
    assertTrue(p.get(1).message().contains("20 octets"), p.toString());
    assertTrue(p.get(2).message().contains("Send on QN 1"), p.toString());

    byte[] dv2 = untagged(3, true, 0, 1, 0, 8);
    dv2[0] = 0x42;
    assertEquals(1, headers(dv2).size(), "DV=2");
  }
}
