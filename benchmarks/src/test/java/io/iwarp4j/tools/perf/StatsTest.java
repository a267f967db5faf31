package io.iwarp4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** perftest's bandwidth and latency arithmetic with inputs whose answers are known. */
class StatsTest {
  private static final double EPS = 1e-9;

  @Test
  void averageIsAllOctetsOverFirstPostToLastCompletion() {
    // 4 messages of 1 MiB, posted at 0, completed at 1, 2, 3, 4 s: 4 MiB in 4 s = 1 MB/s.
    long s = 1_000_000_000L;
    long[] posted = {0, 0, 0, 0};
    long[] completed = {s, 2 * s, 3 * s, 4 * s};
    BwReport r = BwStats.compute(1 << 20, 4, posted, completed, 1, false);
    assertEquals(1.0, r.average(), EPS);
    assertEquals(4 / 4.0 / 1e6, r.msgRateMpps(), EPS);
    // Best window: message 0 alone in 1 s, or all four in 4 s: 1 s per message either way.
    assertEquals(1.0, r.peak(), EPS);
    assertEquals(4, r.iterations());
  }

  @Test
  void peakIsTheBestPerMessageTimeOfAnyWindow() {
    // Message 2 was posted at 10 s and completed at 10.5 s: 0.5 s per message, 2 MB/s peak,
    // while the average over 0..11 s is 4 MiB / 11 s.
    long s = 1_000_000_000L;
    long[] posted = {0, s, 10 * s, 10 * s};
    long[] completed = {5 * s, 9 * s, 10 * s + s / 2, 11 * s};
    BwReport r = BwStats.compute(1 << 20, 4, posted, completed, 1, false);
    assertEquals(2.0, r.peak(), EPS);
    assertEquals(4.0 / 11, r.average(), EPS);
  }

  @Test
  void withModerationOnlySignaledCompletionsEndAWindow() {
    // cqMod 2: windows end at j = 1 and j = 3 only (and the last). Message 0's own fast
    // completion (j = 0) does not count.
    long s = 1_000_000_000L;
    long[] posted = {0, 0, 0, 0};
    long[] completed = {s / 100, 4 * s, 4 * s, 8 * s};
    BwReport r = BwStats.compute(1 << 20, 4, posted, completed, 2, false);
    assertEquals(2 / 4.0, r.peak(), EPS); // 2 messages by 4 s
    assertEquals(0.5, r.average(), EPS);
  }

  @Test
  void gigabitsAreTenToTheNineBits() {
    long[] posted = {0};
    long[] completed = {1_000_000_000L};
    BwReport r = BwStats.compute(125_000_000, 1, posted, completed, 1, true);
    assertEquals(1.0, r.average(), EPS);
  }

  @Test
  void durationReportUsesTheBestSecondForThePeak() {
    BwReport r = BwStats.fromCount(1 << 20, 10, 5_000_000_000L, 4, false);
    assertEquals(2.0, r.average(), EPS);
    assertEquals(4.0, r.peak(), EPS);
  }

  @Test
  void latencyDropsTheTwoLargestAndHalvesRoundTrips() {
    // 12 posts 2 us apart except two slow gaps; one-way = half the gap.
    long[] posts = new long[12];
    long t = 0;
    long[] gaps = {2000, 2000, 4000, 2000, 2000, 2000, 6000, 2000, 2000, 100000, 90000};
    for (int i = 0; i < 12; i++) {
      posts[i] = t;
      if (i < gaps.length) {
        t += gaps[i];
      }
    }
    LatStats l = LatStats.fromPosts(posts, 12, 2);
    // One-way samples sorted: 1 x7, 2, 3, then 45 and 50 (the tail, dropped). m = 9.
    assertEquals(1.0, l.min(), EPS);
    assertEquals(45.0, l.max(), EPS); // d[m]: perftest prints the first dropped entry as t_max
    assertEquals(1.0, l.typical(), EPS); // (m - 1) % 2 == 0: d[4]
    assertEquals((7 * 1 + 2 + 3) / 9.0, l.avg(), EPS);
    assertEquals(45.0, l.p99(), EPS); // ceil(9 * 0.99) = 9
    assertEquals(45.0, l.p999(), EPS);
  }

  @Test
  void medianOfAnEvenCountAveragesTheMiddleTwo() {
    double[] d = {4, 1, 3, 2, 100, 200}; // m = 4 after the tail: 1 2 3 4
    LatStats l = LatStats.fromSamples(d);
    assertEquals(2.5, l.typical(), EPS);
    assertEquals(2.5, l.avg(), EPS);
    assertEquals(Math.sqrt((2.25 + 0.25 + 0.25 + 2.25) / 4), l.stdev(), EPS);
    assertEquals(100.0, l.max(), EPS);
  }

  @Test
  void tooFewIterationsIsAnError() {
    assertThrows(IllegalArgumentException.class, () -> LatStats.fromPosts(new long[3], 3, 2));
  }
}
