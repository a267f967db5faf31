package io.iwarp4j.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

/** Proves that a dropped buffer is detected and turned into a failure. */
class LeakFailExtensionTest {

  @Test
  void detectorRunsAtParanoid() {
    assertTrue(ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID,
        "leak detection level is " + ResourceLeakDetector.getLevel());
  }

  @Test
  void droppedBufferIsReportedAndFails() {
    leakOne();
    for (int i = 0; i < 20 && LeakFailExtension.pendingLeakCount() == 0; i++) {
      LeakFailExtension.collectGarbageAndPoll();
    }
    assertTrue(LeakFailExtension.pendingLeakCount() > 0, "the deliberate leak was not detected");
    // failOnReportedLeaks clears the record, so this test's own deliberate leak does not fail it.
    assertThrows(AssertionError.class, () -> LeakFailExtension.failOnReportedLeaks("this test"));
  }

  private static void leakOne() {
    ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(16);
    leaked.writeLong(42);
    // deliberately not released
  }
}
