package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static io.iwarp4j.ddp.mem.MemTestSupport.seedNote;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** STag format, keys, slot reuse and capacity of the {@link StagTable}. */
class StagTableTest {
  private static final int RW = LOCAL_WRITE | REMOTE_WRITE;

  @Test
  void stagIsIndexShiftedLeftEightOrKey() {
    StagTable table = seededTable(8, 0);
    try (ProtectionDomain pd = table.newProtectionDomain(); MemoryRegion r = pd.allocate(64, RW)) {
      int stag = r.stag();
      assertEquals(stag >>> 8, StagTable.indexOf(stag));
      assertEquals(stag & 0xFF, StagTable.keyOf(stag));
      assertTrue(StagTable.indexOf(stag) >= 1 && StagTable.indexOf(stag) <= 8);
      assertSame(r, table.lookup(stag));
      assertNull(table.lookup(stag ^ 1), "same index, other key");
      assertNull(table.lookup(stag + (1 << 8)), "other index, same key");
    }
  }

  @Test
  void indexZeroIsNeverHandedOutSoStagsBelow0x100AreNeverValid() {
    StagTable table = seededTable(16, 1);
    List<MemoryRegion> regions = new ArrayList<>();
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      for (int i = 0; i < 16; i++) {
        regions.add(pd.allocate(8, RW));
      }
      for (MemoryRegion r : regions) {
        assertNotEquals(0, StagTable.indexOf(r.stag()), r.toString());
      }
      for (int stag = 0; stag < 0x100; stag++) {
        assertNull(table.lookup(stag), "STag 0x" + Integer.toHexString(stag));
        assertEquals(StagCheck.INVALID_STAG, table.check(stag, 0, 0, 0, pd));
      }
      regions.forEach(MemoryRegion::close);
    }
  }

  @Test
  void keysStartAtRandomValuesPerRegion() {
    StagTable table = seededTable(512, 2);
    Set<Integer> keys = new HashSet<>();
    List<MemoryRegion> regions = new ArrayList<>();
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      for (int i = 0; i < 512; i++) {
        MemoryRegion r = pd.allocate(8, 0);
        regions.add(r);
        keys.add(StagTable.keyOf(r.stag()));
      }
      // 512 uniform draws from 256 values hit ~220 distinct ones; a constant or a counter
      // starting at 0 would be caught as well (a counter yields each key twice in order).
      assertTrue(keys.size() > 128, keys.size() + " distinct keys" + seedNote());
      int ascending = 0;
      for (int i = 1; i < regions.size(); i++) {
        if (StagTable.keyOf(regions.get(i).stag()) == ((StagTable.keyOf(regions.get(i - 1).stag()) + 1) & 0xFF)) {
          ascending++;
        }
      }
      assertTrue(ascending < 32, "keys look sequential across regions: " + ascending + seedNote());
      regions.forEach(MemoryRegion::close);
    }
  }

  @Test
  void defaultTableDrawsKeysFromASecureSource() {
    // Not a randomness test: it proves the default constructor wires a working key source.
    StagTable table = new StagTable(4, new SecureRandom(), Duration.ofSeconds(1));
    try (ProtectionDomain pd = table.newProtectionDomain(); MemoryRegion r = pd.allocate(8, 0)) {
      assertSame(r, table.lookup(r.stag()));
    }
    assertEquals(StagTable.DEFAULT_CAPACITY, new StagTable().capacity());
  }

  @Test
  void reRegistrationOfTheSameIndexGetsANewKeyAndTheOldStagIsRefused() {
    StagTable table = seededTable(1, 3); // one slot: every registration reuses index 1
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      MemoryRegion first = pd.allocate(64, RW);
      int oldStag = first.stag();
      first.close();
      Set<Integer> seen = new HashSet<>();
      seen.add(oldStag);
      int previous = oldStag;
      for (int i = 0; i < 255; i++) {
        try (MemoryRegion again = pd.allocate(64, RW)) {
          assertEquals(1, StagTable.indexOf(again.stag()));
          assertNotEquals(previous, again.stag(), "key reused right away");
          assertTrue(seen.add(again.stag()), "a key of this slot came back within 256 registrations");
          assertNull(table.lookup(oldStag));
          assertEquals(StagCheck.INVALID_STAG, table.check(oldStag, again.baseTo(), 1, REMOTE_WRITE, pd));
          assertEquals(StagCheck.OK, table.check(again.stag(), again.baseTo(), 1, REMOTE_WRITE, pd));
          previous = again.stag();
        }
      }
      assertEquals(256, seen.size());
    }
  }

  @Test
  void invalidationKillsTheStagAtOnceAndKeepsTheSlotUntilClose() {
    StagTable table = seededTable(1, 4);
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      MemoryRegion r = pd.allocate(64, RW);
      int stag = r.stag();
      assertTrue(r.invalidate());
      assertFalse(r.invalidate(), "second invalidation reports it was already invalid");
      assertFalse(r.isValid());
      assertNull(table.lookup(stag));
      assertEquals(StagCheck.INVALID_STAG, table.check(stag, r.baseTo(), 8, REMOTE_WRITE, pd));
      assertEquals(StagCheck.INVALID_STAG, r.check(r.baseTo(), 8, REMOTE_WRITE, pd));
      assertFalse(r.tryPin());
      // Still registered: the slot is not reused before close, so the table is full.
      assertEquals(1, table.registeredCount());
      assertThrows(IllegalStateException.class, () -> pd.allocate(8, 0));
      r.close();
      try (MemoryRegion next = pd.allocate(8, 0)) {
        assertEquals(StagTable.indexOf(stag), StagTable.indexOf(next.stag()));
        assertNotEquals(stag, next.stag());
        assertNull(table.lookup(stag));
      }
    }
  }

  @Test
  void freshSlotsAreUsedBeforeFreedOnesAndFreedOnesOldestFirst() {
    StagTable table = seededTable(4, 5);
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      MemoryRegion a = pd.allocate(8, 0);
      MemoryRegion b = pd.allocate(8, 0);
      int ia = StagTable.indexOf(a.stag());
      int ib = StagTable.indexOf(b.stag());
      a.close();
      b.close();
      MemoryRegion c = pd.allocate(8, 0);
      MemoryRegion d = pd.allocate(8, 0);
      assertEquals(3, StagTable.indexOf(c.stag()), "fresh slot first");
      assertEquals(4, StagTable.indexOf(d.stag()));
      MemoryRegion e = pd.allocate(8, 0);
      MemoryRegion f = pd.allocate(8, 0);
      assertEquals(ia, StagTable.indexOf(e.stag()), "oldest freed slot next");
      assertEquals(ib, StagTable.indexOf(f.stag()));
      for (MemoryRegion r : List.of(c, d, e, f)) {
        r.close();
      }
    }
  }

  @Test
  void registrationBeyondCapacityIsRefusedAndLeavesNothingBehind() {
    StagTable table = seededTable(3, 6);
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      List<MemoryRegion> regions = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        regions.add(pd.allocate(32, RW));
      }
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> pd.allocate(32, RW));
      assertTrue(e.getMessage().contains("STag table full") && e.getMessage().contains("capacity 3"),
          e.getMessage());
      assertEquals(3, pd.regionCount(), "the failed registration is not counted");
      assertEquals(3, table.registeredCount());
      regions.forEach(MemoryRegion::close);
      assertEquals(0, table.registeredCount());
      // The allocation of the refused registration was released: the leak detector checks it.
    }
  }

  @Test
  void capacityOutsideTheTwentyFourBitIndexIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new StagTable(0));
    assertTrue(e.getMessage().contains("capacity 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new StagTable(StagTable.MAX_CAPACITY + 1));
    assertTrue(e.getMessage().contains("24-bit"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new StagTable(4, new SecureRandom(), Duration.ZERO));
  }

  @Test
  void lookupOfAnIndexBeyondCapacityIsNull() {
    StagTable table = seededTable(4, 7);
    assertNull(table.lookup(0xFFFF_FF00));
    assertNull(table.lookup(5 << 8));
    assertNull(table.lookup(-1));
  }
}
