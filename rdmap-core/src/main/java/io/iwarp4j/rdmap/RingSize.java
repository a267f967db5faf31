package io.iwarp4j.rdmap;

/** Ring sizing shared by the endpoint's bookkeeping rings. */
final class RingSize {
  /** The largest ring: 2^30 slots. */
  static final int MAX = 1 << 30;

  private RingSize() {
  }

  /** The smallest power of two that is at least {@code n} (and at least 1). */
  static int powerOfTwoAtLeast(int n) {
    if (n > MAX) {
      throw new IllegalArgumentException("ring of " + n + " slots is larger than " + MAX);
    }
    return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
  }
}
