package io.iwarp4j.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;

/** Test support: measures the bytes the current thread allocates, through HotSpot's ThreadMXBean. */
public final class AllocationMeter {

  private final com.sun.management.ThreadMXBean bean;

  private AllocationMeter(com.sun.management.ThreadMXBean bean) {
    this.bean = bean;
  }

  /** The meter, or the test is skipped when the JVM cannot count allocations per thread. */
  public static AllocationMeter create() {
    java.lang.management.ThreadMXBean plain = ManagementFactory.getThreadMXBean();
    assumeTrue(plain instanceof com.sun.management.ThreadMXBean,
        "com.sun.management.ThreadMXBean is not available");
    com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) plain;
    assumeTrue(bean.isThreadAllocatedMemorySupported(), "per-thread allocation not supported");
    bean.setThreadAllocatedMemoryEnabled(true);
    return new AllocationMeter(bean);
  }

  /** Bytes allocated by this thread so far. */
  public long allocatedBytes() {
    return bean.getCurrentThreadAllocatedBytes();
  }

  /** Bytes allocated by this thread while running {@code body}. */
  public long measure(Runnable body) {
    long before = allocatedBytes();
    body.run();
    return allocatedBytes() - before;
  }
}
