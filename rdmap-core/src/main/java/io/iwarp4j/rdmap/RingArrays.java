package io.iwarp4j.rdmap;

import java.lang.reflect.Array;

/**
 * Growing the parallel arrays of a power-of-two ring indexed by {@code position & mask}: each
 * method returns an array twice as long holding the entries of positions {@code head} (inclusive)
 * to {@code tail} (exclusive) at their positions under the doubled mask. Event loop only; called
 * at most log2(limit / initial size) times per ring, never per message.
 */
final class RingArrays {
  private RingArrays() {
  }

  static long[] doubled(long[] a, long head, long tail) {
    long[] b = new long[a.length * 2];
    for (long p = head; p < tail; p++) {
      b[(int) p & (b.length - 1)] = a[(int) p & (a.length - 1)];
    }
    return b;
  }

  static int[] doubled(int[] a, long head, long tail) {
    int[] b = new int[a.length * 2];
    for (long p = head; p < tail; p++) {
      b[(int) p & (b.length - 1)] = a[(int) p & (a.length - 1)];
    }
    return b;
  }

  static boolean[] doubled(boolean[] a, long head, long tail) {
    boolean[] b = new boolean[a.length * 2];
    for (long p = head; p < tail; p++) {
      b[(int) p & (b.length - 1)] = a[(int) p & (a.length - 1)];
    }
    return b;
  }

  static <T> T[] doubled(T[] a, long head, long tail) {
    @SuppressWarnings("unchecked")
    T[] b = (T[]) Array.newInstance(a.getClass().getComponentType(), a.length * 2);
    for (long p = head; p < tail; p++) {
      b[(int) p & (b.length - 1)] = a[(int) p & (a.length - 1)];
    }
    return b;
  }
}
