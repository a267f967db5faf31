package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.jupiter.api.Test;

/** The per-source cap and the oldest-first eviction of {@link StartupAdmission}. */
class StartupAdmissionTest {
  private final DeviceCounters counters = new DeviceCounters();
  private final StartupAdmission admission = new StartupAdmission(2, counters);

  @Test
  void eachSourceHasItsOwnShareAndLeavingFreesIt() {
    Channel a1 = from("127.0.0.2");
    Channel a2 = from("127.0.0.2");
    Channel a3 = from("127.0.0.2");
    Channel b1 = from("127.0.0.3");
    assertTrue(admission.enter(a1));
    assertTrue(admission.enter(a2));
    assertFalse(admission.enter(a3), "a third from the same address");
    assertTrue(admission.enter(b1), "another address has its own share");
    assertEquals(1, counters.startupRefusedPerSource.sum());
    admission.leave(a1);
    admission.leave(a1); // idempotent
    assertTrue(admission.enter(a3), "a1's MPA Request arrived: its place is free");
    assertEquals(3, admission.size());
  }

  @Test
  void evictionTakesTheOldestOtherThanTheNewcomer() {
    Channel a1 = from("127.0.0.2");
    Channel b1 = from("127.0.0.3");
    Channel a2 = from("127.0.0.2");
    admission.enter(a1);
    admission.enter(b1);
    admission.enter(a2);
    assertSame(a1, admission.evictOldest(a2));
    assertSame(b1, admission.evictOldest(a2));
    assertNull(admission.evictOldest(a2), "only the newcomer is left");
    assertEquals(2, counters.startupEvicted.sum());
    // The evicted connection's place in its source's share is free again.
    assertTrue(admission.enter(from("127.0.0.2")));
    assertEquals(2, admission.size());
  }

  private static Channel from(String address) {
    SocketAddress remote = new InetSocketAddress(address, 40000);
    return new EmbeddedChannel() {
      @Override
      protected SocketAddress remoteAddress0() {
        return remote;
      }
    };
  }
}
