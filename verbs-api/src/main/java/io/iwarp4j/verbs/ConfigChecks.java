package io.iwarp4j.verbs;

import java.time.Duration;
import java.util.Objects;

/** The configuration builders' argument checks: each exception names the setting and value. */
final class ConfigChecks {
  private ConfigChecks() {
  }

  /** {@code n}, unless it is below {@code min}. */
  static int atLeast(String what, int n, int min) {
    if (n < min) {
      throw new IllegalArgumentException(what + " must be at least " + min + ", not " + n);
    }
    return n;
  }

  /** {@code n}, unless it is below {@code min}. */
  static long atLeast(String what, long n, long min) {
    if (n < min) {
      throw new IllegalArgumentException(what + " must be at least " + min + ", not " + n);
    }
    return n;
  }

  /** {@code n}, unless it is outside {@code min..max}; {@code why} (or "") follows the range. */
  static int range(String what, int n, int min, int max, String why) {
    if (n < min || n > max) {
      throw new IllegalArgumentException(what + " must be " + min + ".." + max + why + ", not "
          + n);
    }
    return n;
  }

  /** Throws unless {@code 1 <= low <= high}. */
  static void waterMarks(int low, int high) {
    if (low < 1 || high < low) {
      throw new IllegalArgumentException("write buffer water marks need 1 <= low <= high, not "
          + low + "/" + high);
    }
  }

  /** {@code d}, unless it is null, zero or negative. */
  static Duration positive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, not " + d);
    }
    return d;
  }

  /** {@code d} in whole seconds, 1 to {@code maxSeconds}. */
  static Duration wholeSeconds(String what, Duration d, int maxSeconds) {
    positive(what, d);
    if (d.toNanos() % 1_000_000_000L != 0 || d.getSeconds() > maxSeconds) {
      throw new IllegalArgumentException(what + " must be whole seconds, 1 s to " + maxSeconds
          + " s, not " + d);
    }
    return d;
  }
}
