package io.iwarp4j.tools.perf;

import java.io.PrintStream;
import java.util.Locale;

/** One line per second on stderr while a test runs, unless {@code --no-progress}. */
final class Progress {
  private static final long SECOND = 1_000_000_000L;

  private final PrintStream err;
  private final boolean enabled;
  private final String what;
  private long next;
  private long lastCount;
  private long lastTime;
  private long bestPerSecond;
  private boolean printed;

  Progress(PrintStream err, boolean enabled, String what) {
    this.err = err;
    this.enabled = enabled;
    this.what = what;
    this.lastTime = System.nanoTime();
    this.next = lastTime + SECOND;
  }

  /** Called from the test loop; prints (and allocates) only once a second. */
  void tick(long now, long count, long total, long size) {
    if (now - next < 0) {
      return;
    }
    long perSecond = (count - lastCount) * SECOND / Math.max(1, now - lastTime);
    bestPerSecond = Math.max(bestPerSecond, perSecond);
    if (enabled) {
      err.printf(Locale.ROOT, "iwarp-perf: %s %d B: %d%s done, %.1f MB/s, %.3f Mpps%n", what,
          size, count, total > 0 ? "/" + total : "", perSecond * (double) size / BwStats.MB,
          perSecond / 1e6);
      printed = true;
    }
    lastCount = count;
    lastTime = now;
    next = now + SECOND;
  }

  /**
   * After the loop: once a progress line has been printed, a last one with the final count, so
   * the last line on the terminal does not read like a run cut short.
   */
  void finish(long count, long total, long size) {
    if (printed) {
      err.printf(Locale.ROOT, "iwarp-perf: %s %d B: %d%s done%n", what, size, count,
          total > 0 ? "/" + total : "");
    }
  }

  /** The most operations completed in one second so far. */
  long bestPerSecond() {
    return bestPerSecond;
  }
}
