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
  void peerToPeerDefaultsTo50MillisecondsUnlessSet() {
    MpaSettings base = MpaSettings.defaults();
    QueuePairCapabilities caps = capabilities();
    assertEquals(Duration.ofMillis(50), ConnectParams.builder().peerToPeer(true).build()
        .initiatorSettings(base, caps).firstFpduDelay(), "the safe default toward Linux siw");
    assertEquals(Duration.ZERO, ConnectParams.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO).build().initiatorSettings(base, caps).firstFpduDelay());
    MpaSettings p2pDevice = base.toBuilder().peerToPeer(true).build();
    assertEquals(Duration.ofMillis(50),
        p2pDevice.firstFpduDelay(), "a peer-to-peer device's default");
    MpaSettings zeroDevice = base.toBuilder().firstFpduDelay(Duration.ZERO).build();
    assertEquals(Duration.ZERO, ConnectParams.builder().peerToPeer(true).build()
        .initiatorSettings(zeroDevice, caps).firstFpduDelay(), "a device-wide explicit zero");
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
