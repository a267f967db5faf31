package io.iwarp4j.it.interop;

import java.io.ByteArrayOutputStream;
import java.util.zip.CRC32C;

/** FPDUs built octet by octet for the interop judges' tests (MPA without Markers, CRC on). */
final class TestFpdus {
  private TestFpdus() {
  }

  /**
   * One FPDU: ULPDU_Length, the ULPDU, pad to a multiple of 4, then CRC32c over all of that,
   * least significant octet first (RFC 5044's CRC field as siw and we send it).
   */
  static byte[] frame(byte[] ulpdu) {
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    f.write(ulpdu.length >> 8);
    f.write(ulpdu.length);
    f.writeBytes(ulpdu);
    while (f.size() % 4 != 0) {
      f.write(0);
    }
    CRC32C c = new CRC32C();
    c.update(f.toByteArray());
    long crc = c.getValue();
    for (int i = 0; i < 4; i++) {
      f.write((int) (crc >>> (8 * i)));
    }
    return f.toByteArray();
  }
}
