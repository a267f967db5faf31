package io.iwarp4j.ddp.mem;

import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.SplittableRandom;

/** Shared set-up for the registered-memory tests: seeded tables and received-segment views. */
final class MemTestSupport {
  /** Seed of every random choice in these tests; override with -Diwarp4j.test.seed=N to replay. */
  static final long SEED = Long.getLong("iwarp4j.test.seed", 0x1A7E_5EEDL);

  private MemTestSupport() {
  }

  /** A table whose keys come from the test seed (plus {@code salt}, to vary between tables). */
  static StagTable seededTable(int capacity, long salt) {
    return new StagTable(capacity, new SplittableRandom(SEED + salt), StagTable.DEFAULT_DRAIN_TIMEOUT);
  }

  /** A seeded table with a short drain timeout, for tests of a pin that is never released. */
  static StagTable seededTable(int capacity, Duration drainTimeout) {
    return new StagTable(capacity, new SplittableRandom(SEED), drainTimeout);
  }

  /** A received-segment view of the readable octets of {@code pieces}, in order. */
  static Ulpdu ulpduOf(ByteBuf... pieces) {
    Ulpdu u = new Ulpdu(pieces.length);
    for (ByteBuf p : pieces) {
      u.addPiece(p, p.readerIndex(), p.readableBytes());
    }
    return u;
  }

  /** Text to append to assertion messages so a failure can be replayed. */
  static String seedNote() {
    return " (seed " + SEED + "; replay with -Diwarp4j.test.seed=" + SEED + ")";
  }
}
