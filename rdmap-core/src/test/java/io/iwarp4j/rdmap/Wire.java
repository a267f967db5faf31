package io.iwarp4j.rdmap;

import io.iwarp4j.testing.Hex;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Test helpers: FPDUs on a recorded wire (no Markers) and hex. */
final class Wire {
  private Wire() {
  }

  /** The ULPDUs of the FPDUs in {@code wire}, in order (length, PAD and CRC stripped). */
  static List<byte[]> ulpdus(byte[] wire) {
    List<byte[]> out = new ArrayList<>();
    int pos = 0;
    while (pos + 2 <= wire.length) {
      int length = (wire[pos] & 0xFF) << 8 | (wire[pos + 1] & 0xFF);
      int fpdu = (2 + length + 3 & ~3) + 4;
      if (pos + fpdu > wire.length) {
        break;
      }
      out.add(Arrays.copyOfRange(wire, pos + 2, pos + 2 + length));
      pos += fpdu;
    }
    return out;
  }

  /** The last ULPDU on {@code wire}, as hex. */
  static String lastUlpdu(byte[] wire) {
    List<byte[]> all = ulpdus(wire);
    if (all.isEmpty()) {
      throw new AssertionError("no FPDU on the wire");
    }
    return Hex.of(all.get(all.size() - 1));
  }
}
