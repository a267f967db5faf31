package io.iwarp4j.ddp.mem;

/**
 * The value arithmetic of the RFC 7306 masked atomics, without memory access: what a FetchAdd
 * or CmpSwap stores given the value it found. {@link MemoryRegion} applies these atomically.
 */
public final class MaskedArithmetic {
  private MaskedArithmetic() {
  }

  /**
   * The masked FetchAdd sum (RFC 7306 §5.1.1). A set bit of {@code addMask} marks the most
   * significant bit of a field: the carry out of it is discarded, so each field adds on its own.
   * Mask 0 is one plain 64-bit addition. Equivalent to the RFC's bit loop: add with the field
   * tops cleared (no carry can leave a field), then put back each top bit as the sum of the two
   * top bits and the carry into it.
   *
   * @param original the value found
   * @param addData the value to add
   * @param addMask the field boundaries
   * @return the value to store
   */
  public static long fetchAdd(long original, long addData, long addMask) {
    if (addMask == 0) {
      return original + addData;
    }
    long lowSum = (original & ~addMask) + (addData & ~addMask);
    return lowSum ^ ((original ^ addData) & addMask);
  }

  /**
   * The masked CmpSwap result (RFC 7306 §5.1.2): when the bits under {@code compareMask} of
   * {@code original} equal those of {@code compareData}, the bits under {@code swapMask} are
   * replaced by those of {@code swapData}; otherwise the value is unchanged.
   *
   * @param original the value found
   * @param compareData the comparand
   * @param compareMask the bits compared
   * @param swapData the replacement
   * @param swapMask the bits replaced
   * @return the value to store (equal to {@code original} when the comparison failed)
   */
  public static long cmpSwap(long original, long compareData, long compareMask, long swapData,
      long swapMask) {
    if (((compareData ^ original) & compareMask) != 0) {
      return original;
    }
    return (original & ~swapMask) | (swapData & swapMask);
  }
}
