package io.iwarp4j.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.util.internal.PlatformDependent;

/** Preconditions of the allocation-free receive path checks. */
public final class AllocationFreedom {
  private AllocationFreedom() {
  }

  /**
   * Skips (loudly) when Netty runs without sun.misc.Unsafe (JDK 24+ without
   * {@code --sun-misc-unsafe-memory-access=allow}): Netty's buffer copies then allocate.
   */
  public static void assumeNettyHasUnsafe() {
    boolean unsafe = PlatformDependent.hasUnsafe();
    if (!unsafe) {
      System.err.println("ALLOCATION CHECK SKIPPED: Netty runs without sun.misc.Unsafe on this JVM;"
          + " start it with --sun-misc-unsafe-memory-access=allow (JDK 24+)");
    }
    assumeTrue(unsafe, "Netty runs without sun.misc.Unsafe: its buffer copies allocate");
  }
}
