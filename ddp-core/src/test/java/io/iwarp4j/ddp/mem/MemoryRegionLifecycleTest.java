package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
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

import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Registration forms, base TO choices, refusals, and the region and domain lifecycles. */
class MemoryRegionLifecycleTest {
  private static final int RW = LOCAL_WRITE | REMOTE_WRITE;

  private StagTable table;
  private ProtectionDomain pd;

  @BeforeEach
  void setUp() {
    table = seededTable(32, 20);
    pd = table.newProtectionDomain();
  }

  @AfterEach
  void tearDown() {
    pd.close(); // fails the test if one left a region registered
  }

  @Test
  void defaultBaseToIsTheNativeAddress() {
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(256);
    try (MemoryRegion whole = pd.register(buf, RW);
        MemoryRegion part = pd.register(buf, 16, 64, RW, RegionOptions.defaults())) {
      assertEquals(buf.memoryAddress(), whole.baseTo());
      assertEquals(256, whole.length());
      assertEquals(buf.memoryAddress() + 16, part.baseTo());
      assertEquals(64, part.length());
    } finally {
      buf.release();
    }
    ByteBuffer nio = ByteBuffer.allocateDirect(128);
    try (MemoryRegion all = pd.register(nio, RW)) {
      nio.position(24).limit(100);
      try (MemoryRegion tail = pd.register(nio, RW)) {
        assertEquals(all.baseTo() + 24, tail.baseTo(), "base is the address of the position");
        assertEquals(76, tail.length(), "[position, limit)");
      }
    }
    try (MemoryRegion mine = pd.allocate(64, RW)) {
      assertEquals(mine.buffer().memoryAddress(), mine.baseTo());
      assertTrue(mine.isLibraryAllocated());
    }
  }

  @Test
  void zeroBasedAndExplicitBaseTo() {
    try (MemoryRegion zero = pd.allocate(64, RW, RegionOptions.defaults().zeroBased());
        MemoryRegion chosen = pd.allocate(64, RW, RegionOptions.defaults().baseTo(0xDEAD_0000L))) {
      assertEquals(0, zero.baseTo());
      assertEquals(0xDEAD_0000L, chosen.baseTo());
      assertEquals(StagCheck.OK, table.check(zero.stag(), 0, 64, REMOTE_WRITE, pd));
      assertEquals(StagCheck.OK, table.check(chosen.stag(), 0xDEAD_0000L + 8, 8, REMOTE_WRITE, pd));
    }
    try (MemoryRegion back = pd.allocate(8, RW, RegionOptions.defaults().zeroBased().nativeAddressBase())) {
      assertEquals(back.buffer().memoryAddress(), back.baseTo());
    }
  }

  @Test
  void bufferViewStartsAtTheBaseToAndCannotReleaseTheRegion() {
    ByteBuf src = Unpooled.directBuffer(8).writeLong(0x0102030405060708L);
    try (MemoryRegion r = pd.allocate(64, RW, RegionOptions.defaults().baseTo(0x1000))) {
      assertTrue(r.tryPin());
      try {
        r.place(0x1000 + 5, ulpduOf(src), 0, 8);
      } finally {
        r.unpin();
      }
      ByteBuf view = r.buffer();
      assertEquals(0, view.readerIndex());
      assertEquals(64, view.writerIndex());
      assertEquals(0x0102030405060708L, view.getLong(5));
      view.setByte(63, 0x7F);
      assertEquals(0x7F, r.buffer().getByte(63), "views share the memory");
      assertFalse(view.release(), "a view cannot release the region");
      assertFalse(view.slice(0, 8).release());
      assertEquals(0x7F, r.buffer().getByte(63), "still usable");
    } finally {
      src.release();
    }
  }

  @Test
  void allocatedMemoryIsZeroedAlignedAndReleasedExactlyOnce() {
    MemoryRegion r = pd.allocate(4096, RW);
    ByteBuf view = r.buffer();
    for (int i = 0; i < 4096; i++) {
      assertEquals(0, view.getByte(i), "octet " + i + " not zeroed");
    }
    assertEquals(0, r.baseTo() % 8, "8-octet aligned");
    r.close();
    assertTrue(r.isClosed());
    assertFalse(r.isValid());
    assertThrows(IllegalReferenceCountException.class, () -> view.getByte(0), "memory is released");
    assertThrows(IllegalStateException.class, r::buffer);
    r.close(); // a second close is a no-op: releasing twice would throw IllegalReferenceCountException
    r.close();
    assertEquals(0, pd.regionCount());
    assertEquals(0, table.registeredCount());
  }

  @Test
  void concurrentClosesReleaseOnce() throws Exception {
    for (int i = 0; i < 200; i++) {
      MemoryRegion r = pd.allocate(64, RW);
      CountDownLatch go = new CountDownLatch(1);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread other = new Thread(() -> {
        try {
          go.await();
          r.close();
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      other.start();
      go.countDown();
      r.close();
      other.join();
      assertNull(failure.get());
      assertTrue(r.isClosed());
    }
    assertEquals(0, pd.regionCount());
    assertEquals(0, table.registeredCount());
  }

  @Test
  void registeredBufferIsRetainedWhileRegisteredAndHandedBackOnClose() {
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
    MemoryRegion r = pd.register(buf, RW);
    assertEquals(2, buf.refCnt(), "the region holds a reference");
    assertFalse(r.isLibraryAllocated());
    buf.release(); // the caller lets go early: the region keeps the memory alive
    assertEquals(1, buf.refCnt());
    ByteBuf src = Unpooled.directBuffer(4).writeInt(0xCAFEBABE);
    try {
      assertEquals(StagCheck.OK, table.checkAndPlace(r.stag(), r.baseTo(), ulpduOf(src), 0, 4, REMOTE_WRITE, pd));
      assertEquals(0xCAFEBABE, r.buffer().getInt(0));
    } finally {
      src.release();
    }
    r.close();
    assertEquals(0, buf.refCnt(), "the last reference went with the region");
  }

  @Test
  void heapAndOtherUnusableMemoryIsRefusedByName() {
    ByteBuf heap = Unpooled.buffer(64);
    try {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pd.register(heap, RW));
      assertTrue(e.getMessage().contains("heap buffer"), e.getMessage());
      assertEquals(1, heap.refCnt());
    } finally {
      heap.release();
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> pd.register(ByteBuffer.allocate(64), RW));
    assertTrue(e.getMessage().contains("heap ByteBuffer"), e.getMessage());

    CompositeByteBuf composite = Unpooled.compositeBuffer();
    composite.addComponents(true, Unpooled.directBuffer(8).writeLong(1), Unpooled.directBuffer(8).writeLong(2));
    try {
      e = assertThrows(IllegalArgumentException.class, () -> pd.register(composite, RW));
      assertTrue(e.getMessage().contains("contiguous") || e.getMessage().contains("heap"), e.getMessage());
    } finally {
      composite.release();
    }

    ByteBuf released = Unpooled.directBuffer(8);
    released.release();
    e = assertThrows(IllegalArgumentException.class, () -> pd.register(released, RW));
    assertTrue(e.getMessage().contains("released"), e.getMessage());

    ByteBuf direct = Unpooled.directBuffer(64);
    try {
      e = assertThrows(IllegalArgumentException.class,
          () -> pd.register(direct, 60, 8, RW, RegionOptions.defaults()));
      assertTrue(e.getMessage().contains("outside the buffer's capacity 64"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> pd.register(direct, 0, 0, RW, RegionOptions.defaults()));
      assertTrue(e.getMessage().contains("length must be positive"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> pd.register(direct, REMOTE_WRITE));
      assertTrue(e.getMessage().contains("REMOTE_WRITE without LOCAL_WRITE"), e.getMessage());
      assertEquals(1, direct.refCnt(), "a refused registration keeps no reference");
    } finally {
      direct.release();
    }
    e = assertThrows(IllegalArgumentException.class, () -> pd.allocate(0, RW));
    assertTrue(e.getMessage().contains("length must be positive"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> pd.allocate(64, AccessFlags.REMOTE_ATOMIC));
    assertTrue(e.getMessage().contains("REMOTE_ATOMIC without LOCAL_WRITE"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> pd.register(ByteBuffer.allocateDirect(0), RW));
    assertTrue(e.getMessage().contains("no remaining octets"), e.getMessage());
    assertEquals(0, pd.regionCount());
    assertEquals(0, table.registeredCount());
  }

  @Test
  void readOnlyMemoryMayOnlyBeReadRemotely() {
    ByteBuffer ro = ByteBuffer.allocateDirect(64).asReadOnlyBuffer();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pd.register(ro, RW));
    assertTrue(e.getMessage().contains("read-only"), e.getMessage());
    try (MemoryRegion r = pd.register(ro, REMOTE_READ)) {
      assertEquals(StagCheck.OK, table.check(r.stag(), r.baseTo(), 64, REMOTE_READ, pd));
      assertEquals(StagCheck.ACCESS_VIOLATION, table.check(r.stag(), r.baseTo(), 64, REMOTE_WRITE, pd));
      assertEquals(0, r.getLong(0));
      assertThrows(IllegalStateException.class, () -> r.putLong(0, 1));
    }
  }

  @Test
  void protectionDomainRefusesToCloseWhileRegionsAreRegistered() {
    ProtectionDomain other = table.newProtectionDomain();
    MemoryRegion a = other.allocate(8, RW);
    MemoryRegion b = other.allocate(8, RW);
    assertSame(other, a.pd());
    IllegalStateException e = assertThrows(IllegalStateException.class, other::close);
    assertTrue(e.getMessage().contains("still has 2 registered memory region(s)"), e.getMessage());
    assertFalse(other.isClosed());
    a.invalidate();
    e = assertThrows(IllegalStateException.class, other::close);
    assertTrue(e.getMessage().contains("still has 2"), "invalidated is still registered: " + e.getMessage());
    a.close();
    b.close();
    other.close();
    assertTrue(other.isClosed());
    other.close(); // idempotent
    e = assertThrows(IllegalStateException.class, () -> other.allocate(8, RW));
    assertTrue(e.getMessage().contains("is closed"), e.getMessage());
    ByteBuf buf = Unpooled.directBuffer(8);
    try {
      assertThrows(IllegalStateException.class, () -> other.register(buf, RW));
      assertEquals(1, buf.refCnt(), "a refused registration keeps no reference");
    } finally {
      buf.release();
    }
    assertEquals(0, table.registeredCount());
  }

  @Test
  void closeWaitsForAPlacementInFlight() throws Exception {
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
    MemoryRegion r = pd.register(buf, RW);
    assertTrue(r.tryPin()); // a placement is in flight on this thread
    Thread closer = new Thread(r::close, "closer");
    closer.start();
    while (r.isValid()) {
      Thread.onSpinWait(); // the closer invalidates first...
    }
    assertFalse(r.tryPin(), "no new pin once invalidated");
    // ...and cannot release the memory while the pin is held: it is still in close().
    assertTrue(closer.isAlive());
    assertEquals(2, buf.refCnt(), "memory not released under a pinned placement");
    ByteBuf src = Unpooled.directBuffer(4).writeInt(42);
    try {
      r.place(r.baseTo(), ulpduOf(src), 0, 4); // the in-flight placement completes safely
    } finally {
      src.release();
    }
    r.unpin();
    closer.join();
    assertTrue(r.isClosed());
    assertEquals(1, buf.refCnt());
    assertEquals(42, buf.getInt(0));
    buf.release();
  }

  @Test
  void aPinNeverReleasedMakesCloseFailInsteadOfFreeingUnderTheWriter() {
    StagTable shortWait = seededTable(4, Duration.ofMillis(20));
    try (ProtectionDomain p = shortWait.newProtectionDomain()) {
      ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
      MemoryRegion r = p.register(buf, RW);
      assertTrue(r.tryPin());
      IllegalStateException e = assertThrows(IllegalStateException.class, r::close);
      assertTrue(e.getMessage().contains("1 access(es) still in flight"), e.getMessage());
      assertFalse(r.isClosed());
      assertEquals(2, buf.refCnt(), "memory kept");
      e = assertThrows(IllegalStateException.class, r::invalidate);
      assertTrue(e.getMessage().contains("still in flight"), e.getMessage());
      r.unpin();
      r.close(); // retried: now it drains and releases
      assertTrue(r.isClosed());
      assertEquals(1, buf.refCnt());
      buf.release();
    }
  }

  @Test
  void pinMisuseIsReportedByName() {
    ByteBuf src = Unpooled.directBuffer(16).writeZero(16);
    try (MemoryRegion r = pd.allocate(64, RW)) {
      Ulpdu seg = ulpduOf(src);
      IllegalStateException e = assertThrows(IllegalStateException.class, r::unpin);
      assertTrue(e.getMessage().contains("without a matching"), e.getMessage());
      e = assertThrows(IllegalStateException.class, () -> r.place(r.baseTo(), seg, 0, 8));
      assertTrue(e.getMessage().contains("without a pin"), e.getMessage());
      assertTrue(r.tryPin());
      try {
        assertThrows(IndexOutOfBoundsException.class, () -> r.place(r.baseTo() + 60, seg, 0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> r.place(r.baseTo() - 1, seg, 0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> r.place(r.baseTo(), seg, 10, 8), "beyond the segment");
      } finally {
        r.unpin();
      }
      assertEquals(0, r.placedOctets());
      assertTrue(r.tryPin(), "the pin count is intact after the misuse");
      r.unpin();
    } finally {
      src.release();
    }
  }

  @Test
  void localAccessOutlivesInvalidationButNotClose() {
    MemoryRegion r = pd.allocate(64, RW);
    r.putLong(0, 7);
    r.invalidate();
    assertEquals(7, r.getLong(0), "invalidation revokes remote access only");
    r.buffer().setByte(8, 1);
    r.close();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> r.getLong(0));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> r.getAndAddLong(0, 1));
    assertTrue(r.toString().contains("closed"), r.toString());
  }
}
