package io.iwarp4j.it.wirecheck;

import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The checker's own FPDU framer (RFC 5044 §4): walks one direction's raw TCP byte stream, starting
 * right after the MPA Request or Reply, and checks every FPDU's CRC32c, PAD and Markers without
 * tshark. It tells a stream that is broken (tshark's loss of sync is then a symptom) from one that
 * tshark 4 cannot follow (Markers in one direction only, an FPDU ending on a Marker boundary, an
 * FPDU in the same segment as the Reply).
 *
 * <pre>
 *  +-------------------------------+
 *  |         ULPDU_LENGTH (16)     |  ULPDU (ULPDU_LENGTH octets)  PAD (0..3, zero)  CRC (32)
 *  +-------------------------------+
 * </pre>
 *
 * With Markers, a 4-octet Marker (Reserved 16 = 0, FPDUPTR 16) sits at every multiple of 512
 * octets of the stream, the first at octet 0; it is covered by the CRC of the FPDU it sits in. A
 * Marker just before an FPDU belongs to that FPDU and has FPDUPTR 0; any other Marker points back
 * to its FPDU's ULPDU_LENGTH. The CRC is sent least significant octet first, as iSCSI and Linux
 * siw do.
 */
final class OwnFramer {
  static final int MARKER_INTERVAL = 512;

  /** One framed FPDU: where it starts and ends in the stream, and how many Markers it held. */
  record Fpdu(int start, int end, int ulpduLength, int markers, byte[] ulpdu) {
  }

  /** A framing error at a stream offset. */
  record Problem(Code code, int offset, String message) {
  }

  /** Every FPDU framed, and every framing error. */
  record Result(List<Fpdu> fpdus, List<Problem> problems) {
    boolean broken() {
      return !problems.isEmpty();
    }
  }

  private final byte[] data;
  private final boolean crc;
  private final boolean markers;
  private int pos;
  private int fpduStart;
  private int lengthField;
  private final List<int[]> seenMarkers = new ArrayList<>(); // {offset, reserved, ptr, expected}

  private OwnFramer(byte[] data, boolean crc, boolean markers) {
    this.data = data;
    this.crc = crc;
    this.markers = markers;
  }

  /** Frames {@code stream} (the octets after the MPA Request or Reply). */
  static Result frame(byte[] stream, boolean crcOn, boolean markersOn) {
    return new OwnFramer(stream, crcOn, markersOn).run();
  }

  private Result run() {
    List<Fpdu> fpdus = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    while (pos < data.length) {
      fpduStart = pos;
      lengthField = -1;
      seenMarkers.clear();
      byte[] ulpdu;
      byte[] pad;
      int covered;
      byte[] wireCrc;
      try {
        byte[] len = take(2);
        int ulen = (len[0] & 0xff) << 8 | len[1] & 0xff;
        ulpdu = take(ulen);
        pad = take((4 - (ulen + 2) % 4) % 4);
        if (markers && pos % MARKER_INTERVAL == 0 && pos + 4 <= data.length) {
          marker(); // a Marker between PAD and CRC belongs to this FPDU
        }
        covered = pos;
        wireCrc = raw(4);
      } catch (IndexOutOfBoundsException end) {
        problems.add(new Problem(Code.F_TRUNCATED, fpduStart, "the stream ends inside an FPDU ("
            + (data.length - fpduStart) + " octets left)"));
        break;
      }
      if (crc) {
        CRC32C c = new CRC32C();
        c.update(data, fpduStart, covered - fpduStart);
        long v = c.getValue();
        long got = (wireCrc[0] & 0xffL) | (wireCrc[1] & 0xffL) << 8 | (wireCrc[2] & 0xffL) << 16
            | (wireCrc[3] & 0xffL) << 24;
        if (v != got) {
          problems.add(new Problem(Code.F_CRC_BAD, fpduStart, String.format(
              "CRC32c 0x%08x on the wire, 0x%08x computed (ULPDU length %d)", got, v,
              ulpdu.length)));
        }
      }
      for (byte b : pad) {
        if (b != 0) {
          problems.add(new Problem(Code.F_PAD_NONZERO, fpduStart, "PAD " + hex(pad)));
          break;
        }
      }
      for (int[] m : seenMarkers) {
        if (m[1] != 0) {
          problems.add(new Problem(Code.F_MARKER_RES, m[0],
              String.format("marker Reserved 0x%04x", m[1])));
        }
        if (m[2] != m[3]) {
          problems.add(new Problem(Code.F_MARKER_PTR, m[0],
              "FPDUPTR " + m[2] + ", expected " + m[3]));
        }
      }
      fpdus.add(new Fpdu(fpduStart, pos, ulpdu.length, seenMarkers.size(), ulpdu));
    }
    return new Result(fpdus, problems);
  }

  /** n octets of the FPDU's content, stepping over the Markers among them. */
  private byte[] take(int n) {
    byte[] out = new byte[n];
    int got = 0;
    while (got < n || (n == 0 && lengthField < 0)) {
      if (markers && pos % MARKER_INTERVAL == 0) {
        marker();
        continue;
      }
      if (n == 0) {
        break;
      }
      if (lengthField < 0) {
        lengthField = pos;
      }
      int step = n - got;
      if (markers) {
        step = Math.min(step, MARKER_INTERVAL - pos % MARKER_INTERVAL);
      }
      if (pos + step > data.length) {
        throw new IndexOutOfBoundsException();
      }
      System.arraycopy(data, pos, out, got, step);
      got += step;
      pos += step;
    }
    return out;
  }

  private void marker() {
    byte[] m = raw(4);
    int reserved = (m[0] & 0xff) << 8 | m[1] & 0xff;
    int ptr = (m[2] & 0xff) << 8 | m[3] & 0xff;
    int offset = pos - 4;
    // Before the FPDU's first octet: FPDUPTR 0; inside it: back to the ULPDU_LENGTH field.
    seenMarkers.add(new int[] {offset, reserved, ptr, lengthField < 0 ? 0 : offset - lengthField});
  }

  private byte[] raw(int n) {
    if (pos + n > data.length) {
      throw new IndexOutOfBoundsException();
    }
    byte[] out = new byte[n];
    System.arraycopy(data, pos, out, 0, n);
    pos += n;
    return out;
  }

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x));
    }
    return s.toString();
  }
}
