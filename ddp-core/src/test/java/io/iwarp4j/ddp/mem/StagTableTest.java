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
      int slot = StagTable.slotOf(stag, 8);
      assertTrue(slot >= 1 && slot <= 8, "slot " + slot);
      assertEquals(slot, StagTable.indexOf(stag) & 0xF, "the slot is the index's low 4 bits");
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
  void reRegistrationOfTheSameSlotGetsANewStagAndTheOldStagIsRefused() {
    StagTable table = seededTable(1, 3); // one slot: every registration reuses slot 1
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      MemoryRegion first = pd.allocate(64, RW);
      int oldStag = first.stag();
      first.close();
      Set<Integer> seen = new HashSet<>();
      seen.add(oldStag);
      int previous = oldStag;
      for (int i = 0; i < 255; i++) {
        try (MemoryRegion again = pd.allocate(64, RW)) {
          assertEquals(1, StagTable.slotOf(again.stag(), 1));
          assertNotEquals(previous, again.stag(), "STag reused right away");
          seen.add(again.stag());
          if (again.stag() != oldStag) {
            assertNull(table.lookup(oldStag));
            assertEquals(StagCheck.INVALID_STAG, table.check(oldStag, again.baseTo(), 1, REMOTE_WRITE, pd));
          }
          assertEquals(StagCheck.OK, table.check(again.stag(), again.baseTo(), 1, REMOTE_WRITE, pd));
          previous = again.stag();
        }
      }
      // One slot leaves 23 random index bits and 8 key bits: 256 draws from 2^31 do not repeat.
      assertEquals(256, seen.size(), seedNote());
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
        assertEquals(1, StagTable.slotOf(next.stag(), 1));
        assertNotEquals(stag, next.stag());
        assertNull(table.lookup(stag));
      }
    }
  }

  @Test
  void slotsAreDrawnAtRandomFromTheFreeOnesAndEachIsUsedOnce() {
    int capacity = 1024;
    StagTable table = seededTable(capacity, 5);
    List<MemoryRegion> regions = new ArrayList<>();
    Set<Integer> slots = new HashSet<>();
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      int consecutive = 0;
      int previous = 0;
      for (int i = 0; i < capacity; i++) {
        MemoryRegion r = pd.allocate(8, 0);
        regions.add(r);
        int slot = StagTable.slotOf(r.stag(), capacity);
        assertTrue(slot >= 1 && slot <= capacity, "slot " + slot);
        assertTrue(slots.add(slot), "slot " + slot + " handed out twice");
        assertSame(r, table.lookup(r.stag()));
        consecutive += slot == previous + 1 ? 1 : 0;
        previous = slot;
      }
      // A counter gives 1023 consecutive pairs; uniform draws about one.
      assertTrue(consecutive < 16, consecutive + " consecutive slots" + seedNote());
      assertThrows(IllegalStateException.class, () -> pd.allocate(8, 0), "full");
      // A freed slot is the only free one, so it comes back, under another STag.
      MemoryRegion middle = regions.remove(capacity / 2);
      int stale = middle.stag();
      middle.close();
      MemoryRegion again = pd.allocate(8, 0);
      regions.add(again);
      assertEquals(StagTable.slotOf(stale, capacity), StagTable.slotOf(again.stag(), capacity));
      assertNotEquals(stale, again.stag());
      regions.forEach(MemoryRegion::close);
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
