package io.iwarp4j.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty's leak detector at PARANOID, with every report recorded so that the extension can turn
 * it into a test failure (the idea of the project's own test-support LeakFailExtension).
 *
 * <p>Netty creates its buffer leak detector once, when the buffer classes are first used: this
 * must be installed before that, which {@link RdmaExtension} does before the first test class
 * that uses it runs. If another factory was installed first (a project's own leak extension,
 * like this project's test-support one), this one leaves it in place and that one reports the
 * leaks.
 */
final class LeakWatch {
  private static final String DEFAULT_FACTORY =
      "io.netty.util.ResourceLeakDetectorFactory$DefaultResourceLeakDetectorFactory";
  private static final List<String> LEAKS = new ArrayList<>();
  private static boolean installed;

  private LeakWatch() {}

  static synchronized void install() {
    if (installed) {
      return;
    }
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    // A factory someone else installed (a project's own leak extension) keeps reporting: ours
    // would take the buffer detector from it if Netty had not created that detector yet.
    if (ResourceLeakDetectorFactory.instance().getClass().getName().equals(DEFAULT_FACTORY)) {
      ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }
    installed = true;
  }

  /** Makes the detector look at buffers that became unreachable: it checks on allocation. */
  static void collectGarbageAndPoll() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      for (int j = 0; j < 4; j++) {
        ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(8);
        direct.release();
        ByteBuf heap = PooledByteBufAllocator.DEFAULT.heapBuffer(8);
        heap.release();
      }
    }
  }

  /** The leaks reported since the last call, which clears them. */
  static List<String> takeReports() {
    synchronized (LEAKS) {
      List<String> found = new ArrayList<>(LEAKS);
      LEAKS.clear();
      return found;
    }
  }

  private static void record(String report) {
    synchronized (LEAKS) {
      LEAKS.add(report);
    }
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    @SuppressWarnings("deprecation")
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return new RecordingDetector<>(resource, samplingInterval);
    }
  }

  private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
    RecordingDetector(Class<T> resource, int samplingInterval) {
      super(resource, samplingInterval);
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
      record("LEAK: " + resourceType + records);
      super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
      record("LEAK: " + resourceType + " (untraced)");
      super.reportUntracedLeak(resourceType);
    }
  }
}
