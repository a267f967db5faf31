package io.iwarp4j.mpa.testing;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * An independent, deliberately naive model of MPA framing for tests: byte arrays, a bitwise
 * CRC32c (mpa.md §9.7) and the sender algorithm of RFC 5044 §4.3 / mpa.md §4.3.3 written out
 * octet by octet. Production code is compared against it, never the other way round. The one FPDU
 * encoder of the tests: mpa-core's, and through mpa-core's test jar the fuzz targets of ddp-core
 * and rdmap-core, which build their wire with it.
 */
public final class ReferenceFpdu {
  private ReferenceFpdu() {
  }

  /** Per-octet remainders of the reflected polynomial 0x82F63B78, built one bit at a time. */
  private static final int[] TABLE = new int[256];

  static {
    for (int n = 0; n < 256; n++) {
      int c = n;
      for (int b = 0; b < 8; b++) {
        c = (c & 1) != 0 ? (c >>> 1) ^ 0x82F63B78 : c >>> 1;
      }
      TABLE[n] = c;
    }
  }

  /** CRC32c: reflected, init and final XOR 0xFFFFFFFF (mpa.md §4.2, §9.7), table-driven. */
  public static int crc32c(byte[] data, int off, int len) {
    int crc = 0xFFFFFFFF;
    for (int i = off; i < off + len; i++) {
      crc = (crc >>> 8) ^ TABLE[(crc ^ data[i]) & 0xFF];
    }
    return ~crc;
  }

  /** The CRC field as it appears on the wire: least significant octet first. */
  public static byte[] crcField(int crc) {
    return new byte[] {(byte) crc, (byte) (crc >>> 8), (byte) (crc >>> 16), (byte) (crc >>> 24)};
  }

  /** Encodes ULPDUs as the first FPDUs of a Full Operation stream (position 0). */
  public static byte[] encode(List<byte[]> ulpdus, boolean crc, boolean markers) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] u : ulpdus) {
      encodeOne(out, u, crc, markers);
    }
    return out.toByteArray();
  }

  /** Appends one FPDU at stream position {@code out.size()}, exactly per mpa.md §4.3.3. */
  private static void encodeOne(ByteArrayOutputStream out, byte[] ulpdu, boolean crcOn, boolean markers) {
    int len = ulpdu.length;
    int pad = (-(len + 2)) & 3;
    byte[] body = new byte[2 + len + pad];
    body[0] = (byte) (len >>> 8);
    body[1] = (byte) len;
    System.arraycopy(ulpdu, 0, body, 2, len);
    int fpduStart = out.size();
    long hdrPos = -1;
    for (int i = 0; i < body.length; i++) {
      if (markers && out.size() % 512 == 0) {
        int ptr = i == 0 ? 0 : (int) (out.size() - hdrPos);
        writeMarker(out, ptr);
      }
      if (i == 0) {
        hdrPos = out.size();
      }
      out.write(body[i]);
    }
    if (markers && out.size() % 512 == 0) {
      writeMarker(out, (int) (out.size() - hdrPos));
    }
    byte[] sofar = out.toByteArray();
    int crc = crcOn ? crc32c(sofar, fpduStart, sofar.length - fpduStart) : 0;
    out.write(crcField(crc), 0, 4);
  }

  private static void writeMarker(ByteArrayOutputStream out, int ptr) {
    out.write(0);
    out.write(0);
    out.write(ptr >>> 8);
    out.write(ptr);
  }

  /**
   * Decodes a complete stream and checks it against every rule a receiver could: a Marker at
   * every position that is a multiple of 512 (RESERVED 0, FPDUPTR pointing at the ULPDU_Length
   * of its FPDU, or 0 right before one), zero PAD, a correct CRC when in use, and nothing left
   * over. Returns the ULPDUs.
   */
  public static List<byte[]> decodeStrict(byte[] wire, boolean crcOn, boolean markers) {
    List<byte[]> ulpdus = new ArrayList<>();
    int pos = 0;
    while (pos < wire.length) {
      int fpduStart = pos;
      int hdrPos;
      if (markers && pos % 512 == 0) {
        expectMarker(wire, pos, 0);
        pos += 4;
      }
      hdrPos = pos;
      check(pos + 2 <= wire.length, "truncated ULPDU_Length at " + pos);
      int len = (wire[pos] & 0xFF) << 8 | (wire[pos + 1] & 0xFF);
      pos += 2;
      byte[] u = new byte[len];
      int pad = (-(len + 2)) & 3;
      for (int i = 0; i < len + pad; i++) {
        if (markers && pos % 512 == 0) {
          expectMarker(wire, pos, pos - hdrPos);
          pos += 4;
        }
        if (pos >= wire.length) {
          throw new AssertionError("truncated ULPDU at " + pos);
        }
        if (i < len) {
          u[i] = wire[pos];
        } else if (wire[pos] != 0) {
          throw new AssertionError("non-zero PAD octet at " + pos);
        }
        pos++;
      }
      if (markers && pos % 512 == 0) {
        expectMarker(wire, pos, pos - hdrPos);
        pos += 4;
      }
      check(pos + 4 <= wire.length, "truncated CRC at " + pos);
      int field = (wire[pos] & 0xFF) | (wire[pos + 1] & 0xFF) << 8 | (wire[pos + 2] & 0xFF) << 16
          | (wire[pos + 3] & 0xFF) << 24;
      int expected = crcOn ? crc32c(wire, fpduStart, pos - fpduStart) : 0;
      check(field == expected, String.format("CRC field %08x at %d, expected %08x (FPDU from %d)",
          field, pos, expected, fpduStart));
      pos += 4;
      ulpdus.add(u);
    }
    return ulpdus;
  }

  private static void expectMarker(byte[] wire, int pos, int ptr) {
    check(pos + 4 <= wire.length, "truncated Marker at " + pos);
    int reserved = (wire[pos] & 0xFF) << 8 | (wire[pos + 1] & 0xFF);
    int actual = (wire[pos + 2] & 0xFF) << 8 | (wire[pos + 3] & 0xFF);
    if (reserved != 0 || actual != ptr) {
      throw new AssertionError("Marker at " + pos + " is " + reserved + "/" + actual
          + ", expected 0/" + ptr);
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }
}
