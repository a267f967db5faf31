package io.iwarp4j.verbs;

import io.iwarp4j.rdmap.RdmapCounters;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * A device's counters ({@link RdmaDevice#counters}): those of its open queue pairs, and the sum
 * of those of the queue pairs closed so far. A short lock guards both against queue pairs being
 * created or closed; summing allocates nothing.
 */
final class DeviceCounters {
  /** Accepted connections closed because their source had too many in MPA startup. */
  final LongAdder startupRefusedPerSource = new LongAdder();
  /** Accepted connections closed because the device was full and none was in MPA startup. */
  final LongAdder startupRefusedDeviceFull = new LongAdder();
  /** Connections in MPA startup closed (oldest first) to make room for a new one. */
  final LongAdder startupEvicted = new LongAdder();
  /** Connections to a TLS listener refused because they did not start with TLS. */
  final LongAdder tlsPlaintextRefused = new LongAdder();
  /** Connections to a TLS listener whose TLS handshake failed. */
  final LongAdder tlsHandshakesFailed = new LongAdder();

  private final Object lock = new Object();
  /** The counters of the open queue pairs; copied on change, so summing allocates nothing. */
  private RdmapCounters[] live = new RdmapCounters[0];
  /** The sum of the counters of the queue pairs closed so far. */
  private final long[] retired = new long[RdmapCounters.LENGTH];

  /** Counts a new queue pair's counters. */
  void add(RdmapCounters counters) {
    synchronized (lock) {
      RdmapCounters[] grown = Arrays.copyOf(live, live.length + 1);
      grown[grown.length - 1] = counters;
      live = grown;
    }
  }

  /** Moves a closed queue pair's counters into the retired sum (once; unknown ones are ignored). */
  void retire(RdmapCounters counters) {
    synchronized (lock) {
      RdmapCounters[] current = live;
      for (int i = 0; i < current.length; i++) {
        if (current[i] == counters) {
          RdmapCounters[] rest = new RdmapCounters[current.length - 1];
          System.arraycopy(current, 0, rest, 0, i);
          System.arraycopy(current, i + 1, rest, i, current.length - i - 1);
          live = rest;
          counters.addTo(retired);
          break;
        }
      }
    }
  }

  /** Replaces {@code values} with the sum over the open and the closed queue pairs. */
  void sumInto(long[] values) {
    synchronized (lock) {
      System.arraycopy(retired, 0, values, 0, RdmapCounters.LENGTH);
      for (RdmapCounters c : live) {
        c.addTo(values);
      }
    }
  }
}
