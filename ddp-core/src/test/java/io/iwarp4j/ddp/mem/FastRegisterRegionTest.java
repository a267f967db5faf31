package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static io.iwarp4j.ddp.mem.MemTestSupport.ulpduOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fast-register state machine, its keys, its refusals and its memory references. */
class FastRegisterRegionTest {
  private static final int RW = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ;

  private StagTable table;
  private ProtectionDomain pd;
  private ByteBuf buf;

  @BeforeEach
  void setUp() {
    table = seededTable(32, 40);
    pd = table.newProtectionDomain();
    buf = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
  }

  @AfterEach
  void tearDown() {
    buf.release();
    pd.close(); // fails the test if one left a region registered
  }

  @Test
  void allocatedRegionIsInvalidAndItsStagNamesNothing() {
    try (FastRegisterRegion fr = pd.allocateFastRegister(1024)) {
      assertFalse(fr.isValid());
      assertNull(fr.binding());
      assertNull(table.lookup(fr.stag()));
      assertEquals(StagCheck.INVALID_STAG, table.check(fr.stag(), 0, 1, REMOTE_WRITE, pd));
      assertEquals(InvalidateResult.INVALID_STAG, table.remoteInvalidate(fr.stag(), pd));
      assertEquals(1, pd.regionCount(), "the slot counts as a region of the domain");
      assertEquals(1, table.registeredCount());
    }
    assertEquals(0, pd.regionCount());
    assertEquals(0, table.registeredCount());
  }

  @Test
  void invalidValidInvalidWithANewKeyEveryTime() {
    try (FastRegisterRegion fr = pd.allocateFastRegister(1024)) {
      Set<Integer> keys = new HashSet<>();
      keys.add(StagTable.keyOf(fr.stag()));
      int previous = fr.stag();
      for (int round = 0; round < 255; round++) {
        int stag = fr.nextStag();
        assertEquals(StagTable.indexOf(previous), StagTable.indexOf(stag), "same slot");
        MemoryRegion r = fr.register(stag, buf, 64, 512, RW);
        assertTrue(keys.add(StagTable.keyOf(stag)), "key repeated in round " + round);
        assertTrue(fr.isValid());
        assertEquals(stag, fr.stag());
        assertSame(r, table.lookup(stag));
        assertSame(fr, r.fastRegisterOwner());
        assertEquals(buf.memoryAddress() + 64, r.baseTo());
        assertEquals(512, r.length());
        assertNull(table.lookup(previous), "the old STag names nothing");
        assertTrue(round % 2 == 0 ? fr.invalidate()
            : table.remoteInvalidate(stag, pd) == InvalidateResult.OK);
        assertFalse(fr.isValid());
        assertNull(table.lookup(stag));
        assertFalse(fr.invalidate(), "already invalid");
        previous = stag;
      }
      assertEquals(256, keys.size(), "all 256 keys before one repeats");
    }
  }

  @Test
  void placementGoesIntoTheBoundOctetsOnlyWhileValid() {
    buf.setZero(0, buf.capacity());
    try (FastRegisterRegion fr = pd.allocateFastRegister(1024)) {
      int stag = fr.nextStag();
      MemoryRegion r = fr.register(stag, buf, 100, 16, RW);
      ByteBuf payload = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4});
      assertEquals(StagCheck.OK, table.checkAndPlace(stag, r.baseTo() + 12, ulpduOf(payload),
          0, 4, REMOTE_WRITE, pd));
      assertEquals(4, buf.getByte(115));
      assertEquals(StagCheck.BASE_OR_BOUNDS, table.checkAndPlace(stag, r.baseTo() + 13,
          ulpduOf(payload), 0, 4, REMOTE_WRITE, pd), "the bound length is the limit");
      fr.invalidate();
      buf.setZero(0, buf.capacity());
      assertEquals(StagCheck.INVALID_STAG, table.checkAndPlace(stag, r.baseTo(),
          ulpduOf(payload), 0, 4, REMOTE_WRITE, pd));
      assertFalse(r.tryPin(), "local access by the invalidated STag fails too");
      for (int i = 0; i < buf.capacity(); i++) {
        assertEquals(0, buf.getByte(i), "octet " + i + " written after invalidation");
      }
    }
  }

  @Test
  void refusesMisuse() {
    try (FastRegisterRegion fr = pd.allocateFastRegister(256);
        FastRegisterRegion other = pd.allocateFastRegister(256)) {
      int stag = fr.nextStag();
      assertTrue(assertThrows(IllegalArgumentException.class,
          () -> fr.register(stag, buf, 0, 257, RW)).getMessage().contains("capacity of 256"));
      assertTrue(assertThrows(IllegalArgumentException.class,
          () -> fr.register(fr.stag(), buf, 0, 16, RW)).getMessage().contains("current key"));
      assertTrue(assertThrows(IllegalArgumentException.class,
          () -> fr.register(other.nextStag(), buf, 0, 16, RW)).getMessage()
          .contains("does not name this"));
      assertThrows(IllegalArgumentException.class,
          () -> fr.register(stag, Unpooled.buffer(16), 0, 16, RW), "heap memory");
      assertThrows(IllegalArgumentException.class,
          () -> fr.register(stag, buf, 0, 16, REMOTE_WRITE), "REMOTE_WRITE needs LOCAL_WRITE");
      assertFalse(fr.isValid(), "nothing registered by a refused registration");
      fr.register(stag, buf, 0, 16, RW);
      assertTrue(assertThrows(IllegalStateException.class,
          () -> fr.register(fr.nextStag(), buf, 0, 16, RW)).getMessage()
          .contains("still valid"));
      assertSame(fr.binding(), table.lookup(stag), "the valid registration is untouched");
    }
  }

  @Test
  void memoryReferenceIsHeldUntilTheNextRegistrationOrClose() {
    ByteBuf own = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
    FastRegisterRegion fr = pd.allocateFastRegister(64);
    MemoryRegion first = fr.register(fr.nextStag(), own, 0, 64, RW);
    assertEquals(2, own.refCnt(), "the registration retains the memory");
    fr.invalidate();
    assertEquals(2, own.refCnt(), "invalidation keeps the reference (the octets stay readable)");
    fr.register(fr.nextStag(), buf, 0, 64, RW);
    assertTrue(first.isClosed(), "the old registration is deregistered by the next");
    assertEquals(1, own.refCnt(), "and its memory reference dropped");
    fr.close();
    assertTrue(fr.isClosed());
    assertNull(fr.binding());
    assertThrows(IllegalStateException.class, () -> fr.register(fr.nextStag(), buf, 0, 8, RW));
    fr.close(); // idempotent
    own.release();
  }

  /**
   * A placing thread keeps writing through whatever STag it saw last while this thread
   * registers two buffers in turn and invalidates each (locally or as a peer would): once the
   * invalidation returned, not one octet of the buffer it unbound changes.
   */
  @Test
  void noOctetChangesAfterInvalidationWhilePlacementsRace() throws Exception {
    ByteBuf other = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
    ByteBuf source = PooledByteBufAllocator.DEFAULT.directBuffer(1024, 1024);
    source.writeBytes(new byte[1024]).setByte(0, 0x5A).setByte(1023, 0x5A);
    ByteBuf[] buffers = {buf, other};
    java.nio.ByteBuffer[] views = {buf.nioBuffer(0, 4096), other.nioBuffer(0, 4096)};
    java.util.concurrent.atomic.AtomicLong target = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicInteger placed = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    FastRegisterRegion fr = pd.allocateFastRegister(4096);
    Thread placer = new Thread(() -> {
      io.iwarp4j.mpa.Ulpdu segment = ulpduOf(source);
      int round = 0;
      while (!stop.get()) {
        long t = target.get(); // STag in the high word, base TO offset in the low
        MemoryRegion r = table.lookup((int) (t >>> 32));
        long to = r != null ? r.baseTo() + (round++ % 3) * 1024 : 0;
        if (table.checkAndPlace((int) (t >>> 32), to, segment, 0, 1024, REMOTE_WRITE, pd)
            == StagCheck.OK) {
          placed.incrementAndGet();
        }
      }
    }, "placer");
    placer.start();
    try {
      for (int i = 0; i < 150; i++) {
        ByteBuf b = buffers[i % 2];
        b.setZero(0, 4096);
        int stag = fr.nextStag();
        fr.register(stag, b, 0, 4096, RW);
        int before = placed.get();
        target.set((long) stag << 32);
        for (int spin = 0; spin < 10_000 && placed.get() == before; spin++) {
          Thread.onSpinWait();
        }
        // The first round waits (bounded) until the placer has run at all: on a loaded machine
        // it may not be scheduled within the spin, and then the race would not be exercised.
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (i == 0 && placed.get() == before && System.nanoTime() < until) {
          Thread.yield();
        }
        if (i % 2 == 0) {
          assertTrue(fr.invalidate());
        } else {
          assertEquals(InvalidateResult.OK, table.remoteInvalidate(stag, pd));
        }
        byte[] snapshot = new byte[4096];
        views[i % 2].duplicate().get(snapshot);
        for (int spin = 0; spin < 200; spin++) {
          Thread.yield();
        }
        byte[] now = new byte[4096];
        views[i % 2].duplicate().get(now);
        assertTrue(java.util.Arrays.equals(snapshot, now),
            "round " + i + ": an octet changed after the invalidation returned");
      }
    } finally {
      stop.set(true);
      placer.join(10_000);
      fr.close();
      other.release();
      source.release();
    }
    assertTrue(placed.get() > 0, "nothing was ever placed: the race was not exercised");
  }

  @Test
  void closedRegionGivesItsSlotBackWithAKeyNeverSeenThere() {
    FastRegisterRegion fr = pd.allocateFastRegister(64);
    int stag = fr.nextStag();
    fr.register(stag, buf, 0, 64, RW);
    fr.close();
    assertNull(table.lookup(stag), "close invalidates the registration");
    assertEquals(0, table.registeredCount());
    // The table hands the slot out again (after its fresh slots) with a key of the same sequence.
    try (MemoryRegion r = pd.allocate(8, RW)) {
      assertNotEquals(stag, r.stag());
    }
  }
}
