package io.iwarp4j.tools.perf;

/**
 * One line of a bandwidth report, what perftest's {@code struct bw_report_data} carries
 * between the ends.
 *
 * @param size the message size in octets
 * @param iterations the number of messages
 * @param peak the peak bandwidth in the report's unit (MB/s = 2^20 octets/s, or Gb/s)
 * @param average the average bandwidth in the same unit
 * @param msgRateMpps the message rate in millions per second
 */
public record BwReport(long size, long iterations, double peak, double average,
    double msgRateMpps) {
}
