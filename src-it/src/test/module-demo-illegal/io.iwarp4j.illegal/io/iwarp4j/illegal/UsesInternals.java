package io.iwarp4j.illegal;

import io.iwarp4j.verbs.internal.PaddedLong;

/** Uses a class of the unexported io.iwarp4j.verbs.internal: javac must refuse it. */
public final class UsesInternals {
  private UsesInternals() {}

  public static Object internal() {
    return new PaddedLong(0L);
  }
}
