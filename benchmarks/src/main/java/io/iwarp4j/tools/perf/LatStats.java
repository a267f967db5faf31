package io.iwarp4j.tools.perf;

import java.util.Arrays;

/**
 * perftest's latency arithmetic ({@code print_report_lat}): the gaps between consecutive posts
 * of a ping-pong are round trips; each is halved (write_lat, send_lat: {@code rtt_factor} 2),
 * sorted, the two largest dropped ({@code LAT_MEASURE_TAIL}), then min, max, median
 * ({@code get_median}), mean, standard deviation and the 99% and 99.9% entries
 * ({@code ceil(n * 0.99)}) are reported in microseconds.
 *
 * @param min t_min
 * @param max t_max
 * @param typical t_typical (median)
 * @param avg t_avg
 * @param stdev t_stdev
 * @param p99 99% percentile
 * @param p999 99.9% percentile
 */
public record LatStats(double min, double max, double typical, double avg, double stdev,
    double p99, double p999) {

  /** perftest's {@code LAT_MEASURE_TAIL}. */
  static final int MEASURE_TAIL = 2;

  /**
   * Computes the statistics from post timestamps.
   *
   * @param tposted nanosecond post times of {@code n} ping-pong iterations
   * @param n the number of iterations
   * @param rttFactor 2 for ping-pong tests (one way = half the round trip)
   * @return the statistics, in microseconds
   */
  public static LatStats fromPosts(long[] tposted, int n, int rttFactor) {
    int count = n - 1;
    if (count < MEASURE_TAIL + 1) {
      throw new IllegalArgumentException("need at least " + (MEASURE_TAIL + 2) + " iterations");
    }
    double[] d = new double[count];
    for (int i = 0; i < count; i++) {
      d[i] = (tposted[i + 1] - tposted[i]) / 1000.0 / rttFactor;
    }
    return fromSamples(d);
  }

  /**
   * Computes the statistics from one-way samples in microseconds (sorted in place).
   *
   * @param d the samples
   * @return the statistics
   */
  public static LatStats fromSamples(double[] d) {
    Arrays.sort(d);
    int m = d.length - MEASURE_TAIL;
    double median = (m - 1) % 2 != 0 ? (d[m / 2] + d[m / 2 - 1]) / 2 : d[m / 2];
    double sum = 0;
    for (int i = 0; i < m; i++) {
      sum += d[i];
    }
    double avg = sum / m;
    double var = 0;
    for (int i = 0; i < m; i++) {
      var += (avg - d[i]) * (avg - d[i]);
    }
    int i99 = Math.min(d.length - 1, (int) Math.ceil(m * 0.99));
    int i999 = Math.min(d.length - 1, (int) Math.ceil(m * 0.999));
    return new LatStats(d[0], d[m], median, avg, Math.sqrt(var / m), d[i99], d[i999]);
  }
}
