package io.iwarp4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which end of a latency test posts first, as perftest 4.5 has it: in {@code run_iter_lat_write}
 * the SERVER skips its first wait, in {@code run_iter_lat_send} the CLIENT does. Getting this
 * wrong against perftest makes both ends post first, so each end sees the peer's second Write
 * overwrite the first before it polls and both wait for ever (seen against siw's
 * {@code ib_write_lat} server).
 */
class LatencyOrderTest {
  @Test
  void writeLatServerWritesFirst() {
    assertTrue(LatencyRunner.goesFirst(PerfMode.WRITE_LAT, false));
    assertFalse(LatencyRunner.goesFirst(PerfMode.WRITE_LAT, true));
  }

  @Test
  void sendLatClientSendsFirst() {
    assertTrue(LatencyRunner.goesFirst(PerfMode.SEND_LAT, true));
    assertFalse(LatencyRunner.goesFirst(PerfMode.SEND_LAT, false));
  }
}
