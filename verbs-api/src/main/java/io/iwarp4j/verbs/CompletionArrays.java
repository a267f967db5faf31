package io.iwarp4j.verbs;

import java.util.Objects;

/**
 * Checks of the caller's completion arrays for {@link CompletionQueue#poll} and
 * {@link CompletionQueue#await}, made before anything is taken: a null element found after
 * completions were taken would lose them.
 */
final class CompletionArrays {
  private CompletionArrays() {
  }

  /** {@link #checkLength} and {@link #checkElements} of the first {@code max}. */
  static void checkAll(WorkCompletion[] out, int max) {
    checkLength(out, max);
    checkElements(out, max);
  }

  static void checkLength(WorkCompletion[] out, int max) {
    Objects.requireNonNull(out, "out");
    if (max < 0 || max > out.length) {
      throw new IllegalArgumentException("max " + max + " is outside 0.." + out.length
          + " (the length of out)");
    }
  }

  static void checkElements(WorkCompletion[] out, int max) {
    for (int i = 0; i < max; i++) {
      if (out[i] == null) {
        throw new NullPointerException("out[" + i + "] is null: preallocate every element");
      }
    }
  }
}
