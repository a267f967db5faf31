package io.iwarp4j.mpa;

import io.iwarp4j.wire.FpduHeader;
import io.iwarp4j.wire.MpaMarker;

/**
 * MULPDU, the largest ULPDU one FPDU carries when the FPDU is sized to one EMSS
 * (RFC 5044 §4.5 / mpa.md §4.4).
 *
 * <pre>
 *   Markers on:  MULPDU = EMSS - (6 + 4 * ceil(EMSS / 512) + (EMSS mod 4))
 *   Markers off: MULPDU = EMSS - (6 + (EMSS mod 4))
 * </pre>
 *
 * 6 = ULPDU_Length (2) + CRC (4); the Marker term is the worst case; {@code EMSS mod 4} keeps a
 * full-size FPDU a multiple of 4 octets with no PAD. The result is capped at 65535, the largest
 * value ULPDU_Length can express.
 */
public final class Mulpdu {
  /** The largest ULPDU_Length value. */
  public static final int MAX_ULPDU_LENGTH = FpduHeader.MAX_ULPDU_LENGTH;
  /** EMSS assumed when none can be read from the socket: a 1500-octet Ethernet MTU. */
  public static final int DEFAULT_EMSS = 1460;

  private Mulpdu() {
  }

  /**
   * MULPDU for an outgoing direction with the given EMSS and Marker setting.
   *
   * @param emss the effective MSS
   * @param markers whether Markers are inserted
   * @return the MULPDU for an outgoing direction with the given EMSS and Marker setting
   */
  public static int of(int emss, boolean markers) {
    if (emss < 64) {
      throw new IllegalArgumentException("EMSS " + emss + " is too small for MPA");
    }
    int overhead = FpduHeader.ULPDU_LENGTH_SIZE + FpduHeader.CRC_SIZE + (emss & 3);
    if (markers) {
      overhead += MpaMarker.SIZE * ((emss + MpaMarker.INTERVAL - 1) / MpaMarker.INTERVAL);
    }
    return Math.min(MAX_ULPDU_LENGTH, emss - overhead);
  }
}
