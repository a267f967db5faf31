package io.iwarp4j.mpa;

/**
 * The three RFC 6581 §9.2 Ready-to-Receive indications, with the flag each has in the
 * enhanced connection data (B, C and D).
 */
public enum RtrType {
  /** B: a zero-length Send (untagged, QN 0). */
  SEND(0x4000),
  /** C: a zero-length RDMA Write (tagged). */
  WRITE(0x8000),
  /** D: a zero-length RDMA Read Request (QN 1), answered by a zero-length Read Response. */
  READ(0x4000);

  private final int flagMask;

  RtrType(int flagMask) {
    this.flagMask = flagMask;
  }

  /**
   * The flag's mask within its 16-bit half of the enhanced data: B lives in the IRD half,
   * C and D in the ORD half (RFC 6581 §9).
   *
   * @return the flag's mask within its 16-bit half of the enhanced data: B lives in the IRD half, C
   *     and D in the ORD half (RFC 6581 §9)
   */
  public int flagMask() {
    return flagMask;
  }

  /**
   * True when the flag lives in the first (IRD) 16-bit half.
   *
   * @return true when the flag lives in the first (IRD) 16-bit half
   */
  public boolean inIrdHalf() {
    return this == SEND;
  }
}
