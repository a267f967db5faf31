package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The connect-time quiet period for Linux siw's accept race reaches the MPA Initiator. */
class ConnectParamsFirstFpduDelayTest {
  @Test
  void defaultIsTheDevicesAndAnOverrideReachesTheMpaSettings() {
    MpaSettings base = MpaSettings.defaults();
    QueuePairCapabilities caps = capabilities();
    assertEquals(Duration.ZERO,
        ConnectParams.defaults().initiatorSettings(base, caps).firstFpduDelay());
    assertEquals(Duration.ofMillis(50), ConnectParams.builder()
        .firstFpduDelay(Duration.ofMillis(50)).build().initiatorSettings(base, caps)
        .firstFpduDelay());
    MpaSettings deviceWide = base.toBuilder().firstFpduDelay(Duration.ofMillis(7)).build();
    assertEquals(Duration.ofMillis(7),
        ConnectParams.defaults().initiatorSettings(deviceWide, caps).firstFpduDelay());
  }

  @Test
  void outOfRangeDelaysAreRefusedWithTheirName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ConnectParams.builder().firstFpduDelay(Duration.ofMillis(-1)));
    assertEquals("firstFpduDelay must be 0..10 s, not PT-0.001S", e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> ConnectParams.builder().firstFpduDelay(Duration.ofSeconds(11)));
  }

  private static QueuePairCapabilities capabilities() {
    return new QueuePairCapabilities(16, 16, 1, 1, 4, 4, false);
  }
}
