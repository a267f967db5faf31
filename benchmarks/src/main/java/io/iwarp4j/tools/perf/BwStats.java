package io.iwarp4j.tools.perf;

/**
 * perftest's bandwidth arithmetic ({@code print_report_bw}) over post and completion times.
 *
 * <p>Average: octets of all messages over the time from the first post to the last completion.
 * Peak: the best per-message time over every window that starts at a post and ends at a
 * signaled completion ({@code j} with {@code (j + 1) % cqMod == 0}, or the last message), i.e.
 * {@code min((tcompleted[j] - tposted[i]) / (j - i + 1))}. MB is 2^20 octets (perftest's
 * {@code 0x100000}); Gb is 10^9 bits.
 */
public final class BwStats {
  /** Octets per "MB" in perftest's MB/sec columns. */
  public static final double MB = 0x100000;
  /** Octets per second in one Gb/s. */
  public static final double GBIT = 125_000_000;
  /** Bound on the windows examined for the peak, so a long run reports in bounded time. */
  static final long MAX_PEAK_WORK = 50_000_000L;

  private BwStats() {
  }

  /**
   * Computes a report from nanosecond timestamps.
   *
   * @param size message size in octets
   * @param n number of messages
   * @param tposted post time of each message (nanoseconds)
   * @param tcompleted completion time of each message
   * @param cqMod the signaling interval
   * @param gbits true for Gb/s, false for MB/s
   * @return the report
   */
  public static BwReport compute(long size, int n, long[] tposted, long[] tcompleted, int cqMod,
      boolean gbits) {
    if (n <= 0) {
      return new BwReport(size, 0, 0, 0, 0);
    }
    double unit = gbits ? GBIT : MB;
    long total = Math.max(1, tcompleted[n - 1] - tposted[0]);
    double seconds = total / 1e9;
    double avg = size * (double) n / seconds / unit;
    double rate = n / seconds / 1e6;
    // Rows i step so that the examined windows stay under MAX_PEAK_WORK.
    long perRow = Math.max(1, n / cqMod);
    int step = (int) Math.max(1, (long) n * perRow / MAX_PEAK_WORK);
    double best = total / (double) n;
    for (int i = 0; i < n; i += step) {
      int first = ((i + cqMod) / cqMod) * cqMod - 1; // ROUND_UP(i + 1, cqMod) - 1
      for (int j = first; j < n; j += cqMod) {
        double t = (tcompleted[j] - tposted[i]) / (double) (j - i + 1);
        if (t < best) {
          best = t;
        }
      }
      if (n % cqMod != 0) {
        int j = n - 1;
        double t = (tcompleted[j] - tposted[i]) / (double) (j - i + 1);
        if (t < best) {
          best = t;
        }
      }
    }
    double peak = best <= 0 ? avg : size / (best / 1e9) / unit;
    return new BwReport(size, n, peak, avg, rate);
  }

  /**
   * A report for a duration run: average from a count and an interval, peak from the best
   * one-second progress sample.
   *
   * @param size message size
   * @param n messages completed in the interval
   * @param nanos the interval
   * @param bestPerSecond the most messages completed in one progress second
   * @param gbits true for Gb/s
   * @return the report
   */
  public static BwReport fromCount(long size, long n, long nanos, long bestPerSecond,
      boolean gbits) {
    double unit = gbits ? GBIT : MB;
    double seconds = Math.max(1, nanos) / 1e9;
    double avg = size * (double) n / seconds / unit;
    double peak = Math.max(avg, size * (double) bestPerSecond / unit);
    return new BwReport(size, n, peak, avg, n / seconds / 1e6);
  }
}
