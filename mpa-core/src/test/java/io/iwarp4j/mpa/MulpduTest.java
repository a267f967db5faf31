package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * RFC 5044 §4.5 MULPDU against values computed by hand (not by {@link Mulpdu#of} itself):
 *
 * <pre>
 *   Markers on:  MULPDU = EMSS - (6 + 4 * ceil(EMSS / 512) + (EMSS mod 4))
 *   Markers off: MULPDU = EMSS - (6 + (EMSS mod 4))
 * </pre>
 */
class MulpduTest {

  /** {EMSS, with Markers, without Markers}; the arithmetic is in the comment of each row. */
  private static final int[][] VECTORS = {
      // 64: ceil(64/512) = 1, 64 mod 4 = 0: 64 - (6 + 4 + 0) = 54; 64 - (6 + 0) = 58
      {64, 54, 58},
      // 512: ceil = 1, mod 0: 512 - (6 + 4) = 502; 512 - 6 = 506
      {512, 502, 506},
      // 513: ceil(513/512) = 2, mod 1: 513 - (6 + 8 + 1) = 498; 513 - (6 + 1) = 506
      {513, 498, 506},
      // 536: ceil = 2, mod 0: 536 - (6 + 8) = 522; 536 - 6 = 530
      {536, 522, 530},
      // 1448 (1500 MTU with TCP timestamps): ceil = 3, mod 0: 1448 - 18 = 1430; 1448 - 6 = 1442
      {1448, 1430, 1442},
      // 1460 (1500 MTU): ceil = 3, mod 0: 1460 - 18 = 1442; 1460 - 6 = 1454
      {1460, 1442, 1454},
      // 1461: ceil = 3, mod 1: 1461 - (6 + 12 + 1) = 1442; 1461 - (6 + 1) = 1454
      {1461, 1442, 1454},
      // 1463: ceil = 3, mod 3: 1463 - (6 + 12 + 3) = 1442; 1463 - (6 + 3) = 1454
      {1463, 1442, 1454},
      // 1536: ceil(1536/512) = 3 exactly, mod 0: 1536 - 18 = 1518; 1536 - 6 = 1530
      {1536, 1518, 1530},
      // 1537: ceil = 4, mod 1: 1537 - (6 + 16 + 1) = 1514; 1537 - 7 = 1530
      {1537, 1514, 1530},
      // 8948: ceil(8948/512) = ceil(17.48) = 18, mod 0: 8948 - (6 + 72) = 8870; 8948 - 6 = 8942
      {8948, 8870, 8942},
      // 8960 (9000 MTU): ceil(17.5) = 18, mod 0: 8960 - 78 = 8882; 8960 - 6 = 8954
      {8960, 8882, 8954},
      // 65495 (loopback 65535 MTU): ceil(127.9) = 128, 65495 mod 4 = 3:
      // 65495 - (6 + 512 + 3) = 64974; 65495 - (6 + 3) = 65486
      {65495, 64974, 65486},
      // 65535: ceil = 128, mod 3: 65535 - 521 = 65014; 65535 - 9 = 65526
      {65535, 65014, 65526},
      // 65536: ceil = 128, mod 0: 65536 - 518 = 65018; 65536 - 6 = 65530
      {65536, 65018, 65530},
      // 70000: 70000 - (6 + 4 * 137) = 69446 and 70000 - 6 = 69994, both capped at 65535
      // (the largest ULPDU_Length)
      {70000, 65535, 65535},
  };

  @Test
  void handComputedVectors() {
    for (int[] v : VECTORS) {
      assertEquals(v[1], Mulpdu.of(v[0], true), "EMSS " + v[0] + " with Markers");
      assertEquals(v[2], Mulpdu.of(v[0], false), "EMSS " + v[0] + " without Markers");
    }
  }

  @Test
  void theFramersMarkerLimitIsTheLargestEmssRow() {
    assertEquals(65014, FpduFramer.MAX_ULPDU_LENGTH_WITH_MARKERS);
  }

  @Test
  void anEmssTooSmallForMpaIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Mulpdu.of(63, false));
    assertEquals("EMSS 63 is too small for MPA", e.getMessage());
  }
}
