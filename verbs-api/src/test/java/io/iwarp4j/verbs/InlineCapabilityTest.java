package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The inline limit as a capability: the device's default and maximum, a queue pair's own limit,
 * queried back from {@link QueuePair#capabilities()}, and the refusals that name the setting.
 */
class InlineCapabilityTest {

  @Test
  void defaultsAreSiwsEightyOctetsUnderAMaximumOfTheFramersCopyThreshold() {
    DeviceConfig d = DeviceConfig.defaults();
    assertEquals(80, d.defaultInlineData());
    assertEquals(512, d.maxInlineData());
    assertEquals(80, new QueuePairCapabilities(1, 1, 1, 1, 0, 0, false).maxInlineData());
  }

  @Test
  void aQueuePairGetsTheDefaultOrWhatItAskedForAndReportsIt() {
    try (Peer p = new Peer(DeviceConfig.builder().eventLoopThreads(1).build())) {
      QueuePair byDefault = p.device.createQueuePair(p.pd,
          QueuePairConfig.builder(p.cq, p.cq).build());
      assertEquals(DeviceConfig.DEFAULT_INLINE_DATA, byDefault.capabilities().maxInlineData());
      QueuePair asked = p.device.createQueuePair(p.pd,
          QueuePairConfig.builder(p.cq, p.cq).maxInlineData(200).build());
      assertEquals(200, asked.capabilities().maxInlineData());
      QueuePair none = p.device.createQueuePair(p.pd,
          QueuePairConfig.builder(p.cq, p.cq).maxInlineData(0).build());
      assertEquals(0, none.capabilities().maxInlineData());

      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> p.device.createQueuePair(p.pd,
              QueuePairConfig.builder(p.cq, p.cq).maxInlineData(513).build()));
      assertEquals("maxInlineData 513 exceeds the device's limit of 512", e.getMessage());
    }
  }

  @Test
  void theDeviceLimitsAreConfigurable() {
    try (Peer p = new Peer(DeviceConfig.builder().eventLoopThreads(1).maxInlineData(64, 100)
        .build())) {
      assertEquals(64, p.device.config().maxInlineData());
      assertEquals(64, p.device.config().defaultInlineData(), "the default is capped");
      QueuePair qp = p.device.createQueuePair(p.pd, QueuePairConfig.builder(p.cq, p.cq).build());
      assertEquals(64, qp.capabilities().maxInlineData());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DeviceConfig.builder().maxInlineData(DeviceConfig.INLINE_DATA_LIMIT + 1, 0));
    assertTrue(e.getMessage().startsWith("maxInlineData must be 0..65536"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> QueuePairConfig.builder(new CompletionQueue(1), new CompletionQueue(1))
            .maxInlineData(-1));
    assertEquals("maxInlineData must be at least 0, not -1", e.getMessage());
  }
}
