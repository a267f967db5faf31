package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The connection limit is its own setting, distinct from the queue-pair limit. */
class DeviceConfigLimitsTest {

  @Test
  void maxConnectionsDefaultsTo16384AndIsIndependentOfMaxQueuePairs() {
    assertEquals(16384, DeviceConfig.defaults().maxConnections());
    assertEquals(16384, DeviceConfig.defaults().maxQueuePairs());
    DeviceConfig c = DeviceConfig.builder().maxConnections(2).maxQueuePairs(16).build();
    assertEquals(2, c.maxConnections());
    assertEquals(16, c.maxQueuePairs());
    assertTrue(c.toString().contains("maxConnections=2"), c.toString());
  }

  @Test
  void maxConnectionsBelowOneIsRefusedNamingTheSetting() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DeviceConfig.builder().maxConnections(0));
    assertTrue(e.getMessage().contains("maxConnections"), e.getMessage());
  }
}
