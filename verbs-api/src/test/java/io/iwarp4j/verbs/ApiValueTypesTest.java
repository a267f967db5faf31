package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The API's own value types (access flags, region options, MPA settings, transport, RTR types)
 * stand for exactly the lower layers' equivalents they are converted to.
 */
class ApiValueTypesTest {
  @Test
  void accessFlagsHaveTheDdpLayersValues() {
    // MemoryRegion.access() returns the DDP layer's bits as they are: they must be the same.
    assertEquals(io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE, AccessFlags.LOCAL_WRITE);
    assertEquals(io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE, AccessFlags.REMOTE_WRITE);
    assertEquals(io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ, AccessFlags.REMOTE_READ);
    assertEquals(io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC, AccessFlags.REMOTE_ATOMIC);
    assertEquals(io.iwarp4j.ddp.mem.AccessFlags.NONE, AccessFlags.NONE);
    assertEquals("LOCAL_WRITE|REMOTE_READ",
        AccessFlags.toString(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ));
  }

  @Test
  void transportsAndRtrTypesMapOneToOne() {
    assertEquals(io.iwarp4j.mpa.Transport.values().length, Transport.values().length);
    for (Transport t : Transport.values()) {
      assertEquals(t.name(), t.mpa().name());
      assertSame(t, Transport.of(t.mpa()));
    }
    assertEquals(io.iwarp4j.mpa.RtrType.values().length, RtrType.values().length);
    for (RtrType t : RtrType.values()) {
      assertEquals(t.name(), t.mpa().name());
      assertSame(t, RtrType.of(t.mpa()));
    }
    assertEquals(null, RtrType.of((io.iwarp4j.mpa.RtrType) null));
  }

  @Test
  void mpaSettingsCarryEverySettingToTheMpaLayer() {
    MpaSettings s = MpaSettings.builder().revision(1).enhanced(false).crc(false).markers(true)
        .rtrTypes(RtrType.READ).requestTimeout(Duration.ofSeconds(3))
        .replyTimeout(Duration.ofSeconds(4)).firstFpduDelay(Duration.ofMillis(5))
        .responderSendsFirst(true).terminateLinger(Duration.ofMillis(6)).emss(1460)
        .maxUlpduLength(1024).build();
    io.iwarp4j.mpa.MpaSettings m = s.mpa();
    assertEquals(1, m.revision());
    assertFalse(m.enhanced());
    assertFalse(m.crc());
    assertTrue(m.markers());
    assertEquals(EnumSet.of(io.iwarp4j.mpa.RtrType.READ), m.rtrTypes());
    assertEquals(Set.of(RtrType.READ), s.rtrTypes());
    assertEquals(Duration.ofSeconds(3), m.requestTimeout());
    assertEquals(Duration.ofSeconds(4), m.replyTimeout());
    assertEquals(Duration.ofMillis(5), m.firstFpduDelay());
    assertTrue(m.responderSendsFirst());
    assertEquals(Duration.ofMillis(6), m.terminateLinger());
    assertEquals(1460, m.emss());
    assertEquals(1024, m.maxUlpduLength());
    assertEquals(s.toString(), s.toBuilder().build().toString());
    assertEquals(MpaSettings.defaults().toString(), MpaSettings.builder().build().toString());
  }

  @Test
  void mpaSettingsRefuseWhatTheMpaLayerRefusesWithItsMessage() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().revision(3));
    assertEquals("MPA revision must be 1 or 2, not 3", e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().rtrTypes(EnumSet.noneOf(RtrType.class)));
    assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().revision(1).peerToPeer(true).build());
  }

  @Test
  void regionOptionsCarryTheirChoicesToTheDdpLayer() {
    assertFalse(RegionOptions.defaults().remoteInvalidationAllowed());
    RegionOptions o = RegionOptions.defaults().zeroBased().allowRemoteInvalidation(true);
    assertTrue(o.remoteInvalidationAllowed());
    assertTrue(o.ddp().remoteInvalidationAllowed());
    assertEquals(io.iwarp4j.ddp.mem.RegionOptions.defaults().zeroBased()
        .allowRemoteInvalidation(true).toString(), o.ddp().toString());
    assertEquals(io.iwarp4j.ddp.mem.RegionOptions.defaults().baseTo(0x1000L).toString(),
        RegionOptions.defaults().baseTo(0x1000L).toString());
  }
}
