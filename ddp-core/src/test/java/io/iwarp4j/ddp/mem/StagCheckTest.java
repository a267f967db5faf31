package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static io.iwarp4j.ddp.mem.MemTestSupport.ulpduOf;
import static io.iwarp4j.ddp.mem.StagCheck.ACCESS_VIOLATION;
import static io.iwarp4j.ddp.mem.StagCheck.BASE_OR_BOUNDS;
import static io.iwarp4j.ddp.mem.StagCheck.INVALID_STAG;
import static io.iwarp4j.ddp.mem.StagCheck.NOT_ASSOCIATED;
import static io.iwarp4j.ddp.mem.StagCheck.OK;
import static io.iwarp4j.ddp.mem.StagCheck.TO_WRAP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tagged-access validation (RFC 5041 §7.1 T1..T6, RFC 5040 §7.2 item 4) in its order, with the
 * unsigned 64-bit edge cases, and remote invalidation (RFC 5040 §5.3, §8.1.1 item 7).
 */
class StagCheckTest {
  private static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

  private StagTable table;
  private ProtectionDomain pd;
  private ProtectionDomain otherPd;

  @BeforeEach
  void setUp() {
    table = seededTable(64, 10);
    pd = table.newProtectionDomain();
    otherPd = table.newProtectionDomain();
  }

  @AfterEach
  void tearDown() {
    pd.close();
    otherPd.close();
  }

  @Test
  void insideTheRegionIsOkIncludingBothEdgesAndZeroLength() {
    try (MemoryRegion r = pd.allocate(4096, ALL, RegionOptions.defaults().baseTo(0x10_0000))) {
      assertEquals(OK, table.check(r.stag(), 0x10_0000, 4096, REMOTE_WRITE, pd));
      assertEquals(OK, table.check(r.stag(), 0x10_0000 + 4095, 1, REMOTE_WRITE, pd));
      assertEquals(OK, table.check(r.stag(), 0x10_0000 + 4096, 0, REMOTE_WRITE, pd), "empty range at the end");
      assertEquals(OK, table.check(r.stag(), 0x10_0000, 0, REMOTE_WRITE, pd));
    }
  }

  @Test
  void outsideTheRegionIsBaseOrBounds() {
    try (MemoryRegion r = pd.allocate(4096, ALL, RegionOptions.defaults().baseTo(0x10_0000))) {
      int s = r.stag();
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0x10_0000 - 1, 1, REMOTE_WRITE, pd), "T4: below base");
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0x10_0000 - 1, 0, REMOTE_WRITE, pd), "zero length is checked too");
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0x10_0000, 4097, REMOTE_WRITE, pd), "T5: one past the bound");
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0x10_0000 + 4096, 1, REMOTE_WRITE, pd));
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0x10_0000 + 4097, 0, REMOTE_WRITE, pd));
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0, 8, REMOTE_WRITE, pd));
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0x10_0000, 0xFFFF_FFFFL, REMOTE_READ, pd), "a 4 GiB read");
    }
  }

  @Test
  void boundsUseUnsignedArithmeticAcrossTheSignBit() {
    long base = 0x7FFF_FFFF_FFFF_F800L; // the region straddles 2^63
    try (MemoryRegion r = pd.allocate(4096, ALL, RegionOptions.defaults().baseTo(base))) {
      int s = r.stag();
      assertEquals(OK, table.check(s, 0x8000_0000_0000_0000L, 16, REMOTE_WRITE, pd));
      assertEquals(OK, table.check(s, 0x8000_0000_0000_07F0L, 16, REMOTE_WRITE, pd));
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0x8000_0000_0000_07F1L, 16, REMOTE_WRITE, pd));
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0x7FFF_FFFF_FFFF_F7FFL, 1, REMOTE_WRITE, pd));
      assertEquals(BASE_OR_BOUNDS, table.check(s, 0xFFFF_FFFF_FFFF_0000L, 16, REMOTE_WRITE, pd));
    }
  }

  @Test
  void regionEndingJustBelowTwoToTheSixtyFour() {
    long base = -4096L; // 0xFFFF_FFFF_FFFF_F000; bound = 2^64 - 1
    try (MemoryRegion r = pd.allocate(4095, ALL, RegionOptions.defaults().baseTo(base))) {
      int s = r.stag();
      assertEquals(OK, table.check(s, -2L, 1, REMOTE_WRITE, pd), "last octet 2^64 - 2");
      assertEquals(OK, table.check(s, -1L, 0, REMOTE_WRITE, pd), "empty range at the bound 2^64 - 1");
      assertEquals(TO_WRAP, table.check(s, -1L, 1, REMOTE_WRITE, pd), "TO + length = 2^64 wraps to 0");
      assertEquals(TO_WRAP, table.check(s, -8L, 16, REMOTE_WRITE, pd));
      assertEquals(TO_WRAP, table.check(s, base, 0xFFFF_FFFFL, REMOTE_WRITE, pd));
      assertEquals(OK, table.check(s, -3L, 2, REMOTE_WRITE, pd), "ends exactly at the bound 2^64 - 1");
      // Here every access past the bound also wraps: TO wrap is reported.
      assertEquals(TO_WRAP, table.check(s, -2L, 2, REMOTE_WRITE, pd));
    }
  }

  @Test
  void toWrapTakesPrecedenceOverBounds() {
    try (MemoryRegion r = pd.allocate(64, ALL, RegionOptions.defaults().zeroBased())) {
      assertEquals(0, r.baseTo());
      // 2^64 - 8 + 16 wraps to 8, which lies inside [0, 64): a naive bounds check would pass it.
      assertEquals(TO_WRAP, table.check(r.stag(), -8L, 16, REMOTE_WRITE, pd));
      assertEquals(TO_WRAP, table.check(r.stag(), -8L, 8, REMOTE_WRITE, pd), "sum exactly 2^64");
      assertEquals(TO_WRAP, table.check(r.stag(), Long.MIN_VALUE + 1, Long.MAX_VALUE, REMOTE_WRITE, pd), "sum 2^64");
      assertEquals(BASE_OR_BOUNDS, table.check(r.stag(), Long.MIN_VALUE, Long.MAX_VALUE, REMOTE_WRITE, pd),
          "sum 2^64 - 1 does not wrap, but is out of bounds");
      assertEquals(BASE_OR_BOUNDS, table.check(r.stag(), -16L, 8, REMOTE_WRITE, pd));
    }
  }

  @Test
  void registrationWhoseRangeWouldWrapIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> pd.allocate(4096, ALL, RegionOptions.defaults().baseTo(-4096L)));
    assertTrue(e.getMessage().contains("does not fit in 64 bits"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> pd.allocate(8, ALL, RegionOptions.defaults().baseTo(-1L)));
    assertEquals(0, pd.regionCount());
    assertEquals(0, table.registeredCount());
  }

  @Test
  void foreignProtectionDomainIsNotAssociatedAndComesBeforeAccessAndBounds() {
    try (MemoryRegion r = pd.allocate(64, LOCAL_WRITE, RegionOptions.defaults().zeroBased())) {
      assertEquals(NOT_ASSOCIATED, table.check(r.stag(), 0, 8, LOCAL_WRITE, otherPd));
      assertEquals(NOT_ASSOCIATED, table.check(r.stag(), 0, 8, REMOTE_WRITE, otherPd), "before access");
      assertEquals(NOT_ASSOCIATED, table.check(r.stag(), 1000, 8, LOCAL_WRITE, otherPd), "before bounds");
      assertEquals(NOT_ASSOCIATED, table.check(r.stag(), -8L, 16, LOCAL_WRITE, otherPd), "before wrap");
    }
  }

  @Test
  void invalidStagComesFirst() {
    MemoryRegion r = pd.allocate(64, ALL, RegionOptions.defaults().zeroBased());
    int stag = r.stag();
    r.close();
    assertEquals(INVALID_STAG, table.check(stag, 1000, 8, REMOTE_WRITE, otherPd));
    assertEquals(INVALID_STAG, table.check(0x12345678, 0, 8, REMOTE_WRITE, pd));
  }

  @Test
  void accessMatrix() {
    int[] required = {0, LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, REMOTE_READ | REMOTE_WRITE};
    for (int granted = 0; granted < 16; granted++) {
      if ((granted & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (granted & LOCAL_WRITE) == 0) {
        continue; // refused at registration (AccessFlagsTest)
      }
      try (MemoryRegion r = pd.allocate(64, granted, RegionOptions.defaults().zeroBased())) {
        assertEquals(granted, r.access());
        for (int need : required) {
          StagCheck expected = (granted & need) == need ? OK : ACCESS_VIOLATION;
          assertEquals(expected, table.check(r.stag(), 0, 64, need, pd),
              "granted " + AccessFlags.toString(granted) + ", required " + AccessFlags.toString(need));
          if (expected == ACCESS_VIOLATION) {
            assertEquals(ACCESS_VIOLATION, table.check(r.stag(), 1000, 64, need, pd), "access before bounds");
            assertEquals(ACCESS_VIOLATION, table.check(r.stag(), -8L, 64, need, pd), "access before wrap");
          }
        }
      }
    }
  }

  @Test
  void negativeLengthIsACallerBug() {
    try (MemoryRegion r = pd.allocate(64, ALL)) {
      assertThrows(IllegalArgumentException.class, () -> table.check(r.stag(), r.baseTo(), -1, REMOTE_WRITE, pd));
      assertThrows(NullPointerException.class, () -> table.check(r.stag(), r.baseTo(), 1, REMOTE_WRITE, null));
    }
  }

  @Test
  void checkAndPlaceCopiesIntoTheRightOctetsOrPlacesNothing() {
    ByteBuf mine = PooledByteBufAllocator.DEFAULT.directBuffer(256).setZero(0, 256);
    ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(16);
    try (MemoryRegion r = pd.register(mine, LOCAL_WRITE | REMOTE_WRITE)) {
      for (int i = 0; i < 16; i++) {
        a.writeByte(0xA0 + i);
        b.writeByte(0xB0 + i);
      }
      // A segment in two pieces (two TCP reads): 14-octet "header" then payload, split unevenly.
      Ulpdu seg = ulpduOf(a, b);
      long to = r.baseTo() + 100;
      assertEquals(OK, table.checkAndPlace(r.stag(), to, seg, 14, 10, REMOTE_WRITE, pd));
      for (int i = 0; i < 256; i++) {
        int expected = i < 100 || i >= 110 ? 0 : i < 102 ? 0xA0 + 14 + (i - 100) : 0xB0 + (i - 102);
        assertEquals(expected, mine.getUnsignedByte(i), "octet " + i);
      }
      assertEquals(10, r.placedOctets());

      ByteBuf before = mine.copy();
      try {
        assertEquals(ACCESS_VIOLATION, table.checkAndPlace(r.stag(), to, seg, 0, 8, REMOTE_READ, pd));
        assertEquals(NOT_ASSOCIATED, table.checkAndPlace(r.stag(), to, seg, 0, 8, REMOTE_WRITE, otherPd));
        assertEquals(BASE_OR_BOUNDS, table.checkAndPlace(r.stag(), r.baseTo() + 250, seg, 0, 8, REMOTE_WRITE, pd));
        assertEquals(INVALID_STAG, table.checkAndPlace(r.stag() ^ 0x80, to, seg, 0, 8, REMOTE_WRITE, pd));
        assertEquals(before, mine, "a refused segment places nothing");
        assertEquals(10, r.placedOctets());
        r.invalidate();
        assertEquals(INVALID_STAG, table.checkAndPlace(r.stag(), to, seg, 0, 8, REMOTE_WRITE, pd));
        assertEquals(before, mine);
      } finally {
        before.release();
      }
    } finally {
      a.release();
      b.release();
      assertEquals(1, mine.refCnt(), "the region gave its reference back");
      mine.release();
    }
  }

  @Test
  void remoteInvalidationOfAnAllowedStagInTheStreamsDomain() {
    try (MemoryRegion r = pd.allocate(64, ALL, RegionOptions.defaults().allowRemoteInvalidation(true))) {
      assertTrue(r.remoteInvalidationAllowed());
      assertEquals(InvalidateResult.NOT_ASSOCIATED, table.remoteInvalidate(r.stag(), otherPd));
      assertTrue(r.isValid(), "a foreign stream cannot invalidate it");
      assertEquals(InvalidateResult.INVALID_STAG, table.remoteInvalidate(r.stag() ^ 1, pd), "stale key");
      assertEquals(InvalidateResult.OK, table.remoteInvalidate(r.stag(), pd));
      assertFalse(r.isValid());
      assertNull(table.lookup(r.stag()));
      assertFalse(r.tryPin());
      assertEquals(InvalidateResult.INVALID_STAG, table.remoteInvalidate(r.stag(), pd), "already invalid");
      assertEquals(1, pd.regionCount(), "still registered until closed");
    }
    assertEquals(InvalidateResult.INVALID_STAG, table.remoteInvalidate(0, pd));
  }

  @Test
  void remoteInvalidationIsOptInBecausePdScopedStagsMayBeShared() {
    try (MemoryRegion r = pd.allocate(64, ALL)) {
      assertFalse(r.remoteInvalidationAllowed());
      assertEquals(InvalidateResult.CANNOT_INVALIDATE, table.remoteInvalidate(r.stag(), pd));
      assertTrue(r.isValid());
      assertEquals(OK, table.check(r.stag(), r.baseTo(), 8, REMOTE_WRITE, pd));
      assertTrue(r.invalidate(), "local invalidation is always allowed");
    }
  }
}
