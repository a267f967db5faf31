package io.iwarp4j.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Turns every Netty leak report into a test failure.
 *
 * <p>Registered for every test class through JUnit's extension auto-detection (the parent POM
 * enables it; the service file ships in the test-support jar, a test-scope dependency of every
 * module). The surefire/failsafe argLine
 * sets {@code io.netty.leakDetection.level=paranoid}; this extension also forces PARANOID in case
 * a test JVM is started some other way, and installs a detector factory whose detectors record
 * each report. After each test it fails on leaks already reported; after each class it collects
 * garbage first so that buffers dropped by that class are found before the class is declared
 * green.
 */
public final class LeakFailExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

  private static final List<String> LEAKS = new ArrayList<>();
  private static volatile boolean installed;

  private static synchronized void install() {
    if (installed) {
      return;
    }
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    installed = true;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    install();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    failOnReportedLeaks(context.getDisplayName());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    collectGarbageAndPoll();
    failOnReportedLeaks(context.getDisplayName());
  }

  /** Forces the leak detector to look at buffers that became unreachable. */
  public static void collectGarbageAndPoll() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      // Detection runs when a new tracked object is created: allocate and release a few.
      for (int j = 0; j < 4; j++) {
        ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(8);
        probe.release();
        ByteBuf heapProbe = PooledByteBufAllocator.DEFAULT.heapBuffer(8);
        heapProbe.release();
      }
    }
  }

  /** Fails (and clears the record) when any leak has been reported so far. */
  public static void failOnReportedLeaks(String where) {
    List<String> found;
    synchronized (LEAKS) {
      if (LEAKS.isEmpty()) {
        return;
      }
      found = new ArrayList<>(LEAKS);
      LEAKS.clear();
    }
    throw new AssertionError("Netty reported " + found.size() + " buffer leak(s) by the end of "
        + where + ":\n" + String.join("\n----\n", found));
  }

  /** Number of leaks reported and not yet failed on; for tests of this extension. */
  public static int pendingLeakCount() {
    synchronized (LEAKS) {
      return LEAKS.size();
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
