package io.iwarp4j.mpa.fuzz;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes ULPDUs as a well-formed MPA Full Operation stream from position 0 (RFC 5044 §4: length,
 * ULPDU, PAD to a 4-octet boundary, CRC32c; a Marker at every stream position divisible by 512
 * when Markers are on, its FPDUPTR giving the distance back to the FPDU's ULPDU_Length). Written
 * independently of the framer so the fuzz targets can check the deframer against it.
 */
public final class FpduStreams {
  private FpduStreams() {
  }

  /**
   * @param ulpdus the ULPDUs, each at most 65535 octets
   * @param crc whether the CRC field carries CRC32c (else zero)
   * @param markers whether Markers are inserted
   * @return the stream
   */
  public static byte[] encode(List<byte[]> ulpdus, boolean crc, boolean markers) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] u : ulpdus) {
      appendFpdu(out, u, crc, markers);
    }
    return out.toByteArray();
  }

  private static void appendFpdu(ByteArrayOutputStream out, byte[] ulpdu, boolean crcOn,
      boolean markers) {
    int pad = (4 - ((2 + ulpdu.length) & 3)) & 3;
    byte[] body = new byte[2 + ulpdu.length + pad];
    body[0] = (byte) (ulpdu.length >> 8);
    body[1] = (byte) ulpdu.length;
    System.arraycopy(ulpdu, 0, body, 2, ulpdu.length);
    int start = out.size();
    int header = -1;
    for (int i = 0; i < body.length; i++) {
      if (markers && out.size() % 512 == 0) {
        marker(out, i == 0 ? 0 : out.size() - header);
      }
      if (i == 0) {
        header = out.size();
      }
      out.write(body[i]);
    }
    if (markers && out.size() % 512 == 0) {
      marker(out, out.size() - header);
    }
    int value = 0;
    if (crcOn) {
      CRC32C c = new CRC32C();
      byte[] all = out.toByteArray();
      c.update(all, start, all.length - start);
      value = (int) c.getValue();
    }
    // The CRC field goes least significant octet first, as the deframer expects.
    out.write(value);
    out.write(value >>> 8);
    out.write(value >>> 16);
    out.write(value >>> 24);
  }

  private static void marker(ByteArrayOutputStream out, int fpduPtr) {
    out.write(0);
    out.write(0);
    out.write(fpduPtr >> 8);
    out.write(fpduPtr);
  }
}
