package io.iwarp4j.it.example.nvmeof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.iwarp4j.examples.nvmeof.host.HostOptions;
import org.junit.jupiter.api.Test;

/**
 * The host's options: the quiet period after each MPA Reply that keeps the Fabrics Connect out
 * of siw's accept race (seen 2026-11-27: nvmet-rdma over siw never answered an I/O queue's
 * Connect sent 3.5 ms after the Reply; src-it/interop/nvmeof) is on by default and survives the
 * other withers.
 */
class NvmeofHostOptionsTest {
  @Test
  void firstFpduDelayIs50MillisByDefaultAndKeptByEveryWither() {
    HostOptions o = HostOptions.of("nqn.x");
    assertEquals(50, o.firstFpduDelayMillis());
    HostOptions changed = o.withFirstFpduDelay(7).withIoQueues(2).withQueueEntries(8)
        .withKeepAlive(100, true).withPerIoRegistration(false).withInCapsuleWrites(false);
    assertEquals(7, changed.firstFpduDelayMillis());
    assertEquals(0, o.withFirstFpduDelay(0).firstFpduDelayMillis());
  }

  @Test
  void firstFpduDelayOutsideZeroToTenSecondsIsRefused() {
    HostOptions o = HostOptions.of("nqn.x");
    assertThrows(IllegalArgumentException.class, () -> o.withFirstFpduDelay(-1));
    assertThrows(IllegalArgumentException.class, () -> o.withFirstFpduDelay(10_001));
    assertEquals(10_000, o.withFirstFpduDelay(10_000).firstFpduDelayMillis());
  }
}
