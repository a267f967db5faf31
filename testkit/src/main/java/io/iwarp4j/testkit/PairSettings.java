package io.iwarp4j.testkit;

import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MpaSettings;
import io.iwarp4j.verbs.PollMode;
import java.time.Duration;

/** The values of an {@link RdmaTest}, or its defaults when a test has none. */
record PairSettings(boolean crc, boolean markers, int ird, int ord, int sendQueueDepth,
    int recvQueueDepth, int maxSge, int cqCapacity, int regionSize, PollMode pollMode,
    boolean viaProxy, Duration timeout) {

  static PairSettings of(RdmaTest t) {
    if (t == null) {
      return new PairSettings(true, false, 4, 4, 16, 16, 4, 256, 64 * 1024, PollMode.PARKED,
          false, Duration.ofSeconds(5));
    }
    return new PairSettings(t.crc(), t.markers(), t.ird(), t.ord(), t.sendQueueDepth(),
        t.recvQueueDepth(), t.maxSge(), t.cqCapacity(), t.regionSize(), t.pollMode(),
        t.viaProxy(), Duration.ofMillis(t.timeoutMillis()));
  }

  /** One event loop per device: a loopback pair needs no more. */
  DeviceConfig deviceConfig() {
    return DeviceConfig.builder().eventLoopThreads(1).pollMode(pollMode)
        .mpaSettings(MpaSettings.builder().crc(crc).markers(markers).build()).build();
  }
}
