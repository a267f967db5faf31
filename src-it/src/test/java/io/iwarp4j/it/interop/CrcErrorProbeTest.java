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

  @Test
  void findsNothingWhenNeitherValueIsThere() {
    List<String> found = CrcErrorProbe.probe(segments(data()), 0x12345678L, 0x9abcdef0L);
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).startsWith("searched 1 streams, 5000 octets"), found.toString());
  }
}
