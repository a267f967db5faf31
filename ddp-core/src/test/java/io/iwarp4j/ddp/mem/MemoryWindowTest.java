package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.MW_BIND;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static io.iwarp4j.ddp.mem.MemTestSupport.ulpduOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Memory windows: binding, the stream check (RFC 5041 §8.2), invalidation, refusals. */
class MemoryWindowTest {
  private static final int RW = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ;

  private StagTable table;
  private ProtectionDomain pd;
  private MemoryRegion mr;
  private final Object streamA = new Object();
  private final Object streamB = new Object();
  private final ByteBuf payload = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4});

  @BeforeEach
  void setUp() {
    table = seededTable(32, 41);
    pd = table.newProtectionDomain();
    mr = pd.allocate(4096, RW | MW_BIND);
  }

  @AfterEach
  void tearDown() {
    mr.close();
    pd.close(); // fails the test if one left a window allocated
  }

  @Test
  void aType2WindowIsUsableOnItsStreamOnly() {
    try (MemoryWindow w = pd.allocateMemoryWindow()) {
      assertFalse(w.isValid());
      assertEquals(StagCheck.INVALID_STAG, table.check(w.stag(), 0, 1, REMOTE_WRITE, pd, streamA));
      int stag = w.nextStag();
      MemoryRegion b = w.bind(stag, mr, 100, 16, REMOTE_WRITE | REMOTE_READ, streamA);
      assertSame(b, table.lookup(stag));
      assertSame(w, b.memoryWindow());
      assertSame(streamA, b.scope());
      assertEquals(mr.baseTo() + 100, b.baseTo());
      long to = b.baseTo() + 12;
      assertEquals(StagCheck.OK, table.checkAndPlace(stag, to, ulpduOf(payload), 0, 4,
          REMOTE_WRITE, pd, streamA));
      assertEquals(4, mr.buffer().getByte(115), "placed through the window into the region");
      mr.buffer().setZero(0, 4096);
      assertEquals(StagCheck.NOT_ASSOCIATED, table.checkAndPlace(stag, to, ulpduOf(payload), 0, 4,
          REMOTE_WRITE, pd, streamB));
      assertEquals(StagCheck.NOT_ASSOCIATED, table.checkAndPlace(stag, to, ulpduOf(payload), 0, 4,
          REMOTE_WRITE, pd), "a stream without an identity is another stream");
      assertEquals(StagCheck.NOT_ASSOCIATED, table.check(stag, to, 4, REMOTE_READ, pd, streamB));
      assertEquals(0, mr.buffer().getByte(115), "nothing placed from the other stream");
      assertEquals(StagCheck.OK, table.check(stag, to, 4, REMOTE_READ, pd, streamA));
      assertEquals(StagCheck.BASE_OR_BOUNDS, table.check(stag, to, 5, REMOTE_READ, pd, streamA));
      assertEquals(StagCheck.ACCESS_VIOLATION, table.check(stag, to, 8, REMOTE_ATOMIC, pd,
          streamA));
      // The region's own STag stays PD-scoped: any stream of the domain.
      assertEquals(StagCheck.OK, table.check(mr.stag(), mr.baseTo(), 4, REMOTE_WRITE, pd, streamB));
      assertEquals(InvalidateResult.NOT_ASSOCIATED, table.remoteInvalidate(stag, pd, streamB));
      assertTrue(w.isValid(), "another stream cannot invalidate it");
      assertEquals(InvalidateResult.OK, table.remoteInvalidate(stag, pd, streamA));
      assertFalse(w.isValid());
      assertEquals(StagCheck.INVALID_STAG, table.checkAndPlace(stag, to, ulpduOf(payload), 0, 4,
          REMOTE_WRITE, pd, streamA));
    }
  }

  @Test
  void aWindowWithoutAStreamIsDomainScoped() {
    try (MemoryWindow w = pd.allocateMemoryWindow()) {
      int stag = w.nextStag();
      MemoryRegion b = w.bind(stag, mr, 0, 64, REMOTE_READ, null);
      assertEquals(StagCheck.OK, table.check(stag, b.baseTo(), 64, REMOTE_READ, pd, streamA));
      assertEquals(StagCheck.OK, table.check(stag, b.baseTo(), 64, REMOTE_READ, pd, streamB));
      ProtectionDomain other = table.newProtectionDomain();
      assertEquals(StagCheck.NOT_ASSOCIATED, table.check(stag, b.baseTo(), 64, REMOTE_READ, other,
          streamA));
      other.close();
    }
  }

  @Test
  void localInvalidationThenARebindWithANewKey() {
    try (MemoryWindow w = pd.allocateMemoryWindow()) {
      int first = w.nextStag();
      w.bind(first, mr, 0, 64, REMOTE_WRITE, streamA);
      assertThrows(IllegalStateException.class,
          () -> w.bind(w.nextStag(), mr, 0, 64, REMOTE_WRITE, streamA), "still bound");
      assertTrue(w.invalidate());
      assertFalse(w.invalidate(), "already invalid");
      assertNull(table.lookup(first));
      assertThrows(IllegalArgumentException.class,
          () -> w.bind(first, mr, 0, 64, REMOTE_WRITE, streamA), "the current key");
      int second = w.nextStag();
      w.bind(second, mr, 64, 64, REMOTE_WRITE, streamB);
      assertEquals(StagCheck.INVALID_STAG, table.check(first, mr.baseTo(), 1, REMOTE_WRITE, pd,
          streamA));
      assertEquals(StagCheck.OK, table.check(second, mr.baseTo() + 64, 64, REMOTE_WRITE, pd,
          streamB));
    }
  }

  @Test
  void refusesBindsTheRegionDoesNotAllow() {
    MemoryRegion noBind = pd.allocate(256, RW);
    MemoryRegion readOnly = pd.allocate(256, REMOTE_READ | MW_BIND);
    ProtectionDomain otherPd = table.newProtectionDomain();
    MemoryRegion foreign = otherPd.allocate(256, RW | MW_BIND);
    try (MemoryWindow w = pd.allocateMemoryWindow()) {
      assertThrows(IllegalArgumentException.class,
          () -> w.bind(w.nextStag(), noBind, 0, 16, REMOTE_READ, streamA), "no MW_BIND");
      assertThrows(IllegalArgumentException.class,
          () -> w.bind(w.nextStag(), readOnly, 0, 16, REMOTE_WRITE, streamA), "beyond its access");
      assertThrows(IllegalArgumentException.class,
          () -> w.bind(w.nextStag(), mr, 0, 16, LOCAL_WRITE, streamA), "not a remote right");
      assertThrows(IllegalArgumentException.class,
          () -> w.bind(w.nextStag(), mr, 4090, 16, REMOTE_READ, streamA), "outside the region");
      assertThrows(IllegalArgumentException.class,
          () -> w.bind(w.nextStag(), foreign, 0, 16, REMOTE_READ, streamA), "another domain");
      assertThrows(IllegalArgumentException.class,
          () -> w.bind(w.nextStag() ^ 0x100, mr, 0, 16, REMOTE_READ, streamA), "another slot");
      assertFalse(w.isValid());
      mr.invalidate();
      assertThrows(IllegalStateException.class,
          () -> w.bind(w.nextStag(), mr, 0, 16, REMOTE_READ, streamA), "an invalid region");
    } finally {
      noBind.close();
      readOnly.close();
      foreign.close();
      otherPd.close();
    }
  }

  @Test
  void deregisteringTheRegionInvalidatesItsWindowsFirst() {
    MemoryRegion region = pd.allocate(256, RW | MW_BIND);
    MemoryWindow w = pd.allocateMemoryWindow();
    int stag = w.nextStag();
    MemoryRegion b = w.bind(stag, region, 0, 256, REMOTE_WRITE, streamA);
    assertEquals(1, region.boundWindows().valid().size());
    region.close();
    assertFalse(w.isValid());
    assertFalse(b.isValid());
    assertEquals(StagCheck.INVALID_STAG, table.checkAndPlace(stag, b.baseTo(), ulpduOf(payload),
        0, 4, REMOTE_WRITE, pd, streamA));
    assertThrows(IllegalStateException.class,
        () -> w.bind(w.nextStag(), region, 0, 16, REMOTE_WRITE, streamA));
    w.close();
    assertTrue(w.isClosed());
    w.close(); // idempotent
  }
}
