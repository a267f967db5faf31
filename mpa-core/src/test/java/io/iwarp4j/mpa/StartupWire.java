package io.iwarp4j.mpa;

import io.iwarp4j.mpa.testing.ReferenceFpdu;
import java.util.List;

/** Test helpers for the startup tests: the startup keys, single FPDUs (from {@link ReferenceFpdu}). */
final class StartupWire {
  /** "MPA ID Req Frame". */
  static final String REQUEST_KEY = "4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65";
  /** "MPA ID Rep Frame". */
  static final String REPLY_KEY = "4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65";

  private StartupWire() {
  }

  /**
   * The FPDU (no Markers) carrying {@code ulpdu}, as the first of its stream: length, ULPDU, PAD,
   * CRC32c LSB first or 0.
   */
  static byte[] fpdu(byte[] ulpdu, boolean crc) {
    return ReferenceFpdu.encode(List.of(ulpdu), crc, false);
  }

  /**
   * The first FPDU of a Marker-enabled direction, CRC on: Marker 00 00 00 00, then the FPDU, the
   * CRC covering the Marker (mpa.md §9.5); for a ULPDU short enough that no other Marker falls
   * inside.
   */
  static byte[] fpduAfterMarker(byte[] ulpdu) {
    return ReferenceFpdu.encode(List.of(ulpdu), true, true);
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
