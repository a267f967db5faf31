package io.iwarp4j.ddp.mem;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link MaskedArithmetic} against straightforward transcriptions of RFC 7306's pseudocode
 * (§5.1.1 bit loop for FetchAdd, §5.1.2 for CmpSwap), over random values and masks, including
 * masks with few and many field boundaries.
 */
class MaskedArithmeticTest {

  /** RFC 7306 §5.1.1, line by line. */
  static long referenceFetchAdd(long original, long addData, long addMask) {
    long bitLocation = 1;
    long carry = 0;
    long remote = 0;
    for (int bit = 0; bit < 64; bit++) {
      if (bit != 0) {
        bitLocation = bitLocation << 1;
      }
      long val1 = (original & bitLocation) >>> bit;
      long val2 = (addData & bitLocation) >>> bit;
      long sum = carry + val1 + val2;
      carry = (sum & 2) >> 1;
      sum = sum & 1;
      if (sum != 0) {
        remote |= bitLocation;
      }
      carry = (carry != 0 && (addMask & bitLocation) == 0) ? 1 : 0;
    }
    return remote;
  }

  /** RFC 7306 §5.1.2. */
  static long referenceCmpSwap(long original, long compareData, long compareMask, long swapData,
      long swapMask) {
    if (((compareData ^ original) & compareMask) == 0) {
      return (original & ~swapMask) | (swapData & swapMask);
    }
    return original;
  }

  @Test
  void fetchAddMatchesTheRfcBitLoop() {
    SplittableRandom random = new SplittableRandom(5113);
    for (int i = 0; i < 200_000; i++) {
      long a = random.nextLong();
      long b = random.nextLong();
      long mask = randomMask(random, i);
      assertEquals(referenceFetchAdd(a, b, mask), MaskedArithmetic.fetchAdd(a, b, mask),
          () -> String.format("a=%x b=%x mask=%x", a, b, mask));
    }
  }

  @Test
  void fetchAddEdgeCases() {
    assertEquals(0, MaskedArithmetic.fetchAdd(-1L, 1, 0), "mask 0: a plain 64-bit add wraps");
    assertEquals(0x0000_0001_0000_0000L, MaskedArithmetic.fetchAdd(0xffff_ffffL, 1, 0));
    assertEquals(0, MaskedArithmetic.fetchAdd(0xffff_ffffL, 1, 0x8000_0000L),
        "the carry out of bit 31 is discarded");
    assertEquals(0, MaskedArithmetic.fetchAdd(-1L, -1L, -1L),
        "every bit its own 1-bit field: 1 + 1 = 0 in each, no carry crosses");
  }

  @Test
  void cmpSwapMatchesTheRfc() {
    SplittableRandom random = new SplittableRandom(2);
    for (int i = 0; i < 200_000; i++) {
      long original = random.nextLong();
      long compareMask = randomMask(random, i);
      // Half the cases compare equal under the mask.
      long compare = (i & 1) == 0 ? original ^ (random.nextLong() & ~compareMask)
          : random.nextLong();
      long swap = random.nextLong();
      long swapMask = randomMask(random, i + 1);
      assertEquals(referenceCmpSwap(original, compare, compareMask, swap, swapMask),
          MaskedArithmetic.cmpSwap(original, compare, compareMask, swap, swapMask));
    }
  }

  /** 0, all ones, or random boundaries with a density that varies with {@code i}. */
  static long randomMask(SplittableRandom random, int i) {
    switch (i % 5) {
      case 0:
        return 0;
      case 1:
        return -1L;
      case 2:
        return random.nextLong();
      case 3:
        return random.nextLong() & random.nextLong() & random.nextLong();
      default:
        return 1L << random.nextInt(64);
    }
  }
}
