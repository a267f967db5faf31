package io.iwarp4j.mpa;

import java.util.zip.CRC32C;

/** Test helpers for the startup tests: the startup keys, FPDUs with CRC32c. */
final class StartupWire {
  /** "MPA ID Req Frame". */
  static final String REQUEST_KEY = "4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65";
  /** "MPA ID Rep Frame". */
  static final String REPLY_KEY = "4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65";

  private StartupWire() {
  }

  /** The FPDU (no Markers) carrying {@code ulpdu}: length, ULPDU, PAD, CRC32c LSB first or 0. */
  static byte[] fpdu(byte[] ulpdu, boolean crc) {
    int pad = (-(ulpdu.length + 2)) & 3;
    byte[] f = new byte[2 + ulpdu.length + pad + 4];
    f[0] = (byte) (ulpdu.length >> 8);
    f[1] = (byte) ulpdu.length;
    System.arraycopy(ulpdu, 0, f, 2, ulpdu.length);
    if (crc) {
      CRC32C c = new CRC32C();
      c.update(f, 0, f.length - 4);
      long v = c.getValue();
      for (int i = 0; i < 4; i++) {
        f[f.length - 4 + i] = (byte) (v >> (8 * i));
      }
    }
    return f;
  }

  /**
   * The first FPDU of a Marker-enabled direction: Marker 00 00 00 00, then the FPDU (no other
   * Marker inside, CRC on), the CRC covering the Marker (mpa.md §9.5).
   */
  static byte[] fpduAfterMarker(byte[] ulpdu) {
    byte[] plain = fpdu(ulpdu, false);
    byte[] f = concat(new byte[4], plain);
    CRC32C c = new CRC32C();
    c.update(f, 0, f.length - 4);
    long v = c.getValue();
    for (int i = 0; i < 4; i++) {
      f[f.length - 4 + i] = (byte) (v >> (8 * i));
    }
    return f;
  }

  /** Concatenation. */
  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int o = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, o, p.length);
      o += p.length;
    }
    return out;
  }
}
