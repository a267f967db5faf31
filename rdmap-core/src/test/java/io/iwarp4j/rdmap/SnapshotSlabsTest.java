package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Read Response snapshots are cut from a few slabs per thread: cut one after another, a slab is
 * reused once every snapshot cut from it was released, memory per thread is bounded, and a
 * snapshot that does not fit is left to the caller.
 */
class SnapshotSlabsTest {
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private final List<ByteBuf> held = new ArrayList<>();

  @AfterEach
  void tearDown() {
    held.forEach(ByteBuf::release);
    SnapshotSlabs.releaseCurrentThread();
  }

  private ByteBuf take(int size) {
    ByteBuf b = SnapshotSlabs.current().take(ALLOC, size);
    if (b != null) {
      held.add(b);
    }
    return b;
  }

  private static ByteBuf root(ByteBuf b) {
    ByteBuf r = b;
    for (ByteBuf u; (u = r.unwrap()) != null; ) {
      r = u;
    }
    return r;
  }

  @Test
  void snapshotsAreCutOneAfterAnotherFromOneSlabOnCacheLineBoundaries() {
    ByteBuf a = take(100);
    ByteBuf b = take(65536);
    assertEquals(100, a.readableBytes());
    assertEquals(65536, b.readableBytes());
    assertSame(root(a), root(b));
    assertEquals(128, b.memoryAddress() - a.memoryAddress());
    assertEquals(1, SnapshotSlabs.current().slabCount());
    // Writing one never touches the other.
    a.setLong(0, -1L);
    b.setLong(0, 0x0102030405060708L);
    assertEquals(-1L, a.getLong(0));
  }

  @Test
  void aSlabWhoseSnapshotsWereAllReleasedIsReusedInsteadOfAllocatingAnother() {
    SnapshotSlabs slabs = SnapshotSlabs.current();
    int perSlab = SnapshotSlabs.SLAB_SIZE / 65536;
    for (int round = 0; round < 20; round++) {
      for (int i = 0; i < perSlab; i++) {
        take(65536);
      }
      held.forEach(ByteBuf::release);
      held.clear();
    }
    // Round after round the one slab came back free; at most one more was needed while the
    // current one filled up.
    assertTrue(slabs.slabCount() <= 2, "slabs: " + slabs.slabCount());
  }

  @Test
  void whileEverySlabIsInFlightAtTheLimitTheCallerGetsNullAndThenASlabAgain() {
    int perSlab = SnapshotSlabs.SLAB_SIZE / 65536;
    for (int i = 0; i < SnapshotSlabs.MAX_SLABS * perSlab; i++) {
      assertNotNull(take(65536), "snapshot " + i);
    }
    assertEquals(SnapshotSlabs.MAX_SLABS, SnapshotSlabs.current().slabCount());
    assertNull(take(65536), "every slab is in flight");
    // The transport releases the first slab's snapshots: it is reused.
    ByteBuf firstRoot = root(held.get(0));
    for (int i = 0; i < perSlab; i++) {
      held.remove(0).release();
    }
    ByteBuf again = take(65536);
    assertNotNull(again);
    assertSame(firstRoot, root(again));
    assertEquals(SnapshotSlabs.MAX_SLABS, SnapshotSlabs.current().slabCount());
  }

  @Test
  void aSnapshotLargerThanASlabIsLeftToTheCaller() {
    assertNull(take(SnapshotSlabs.SLAB_SIZE + 1));
    assertNotNull(take(SnapshotSlabs.SLAB_SIZE));
  }

  @Test
  void releasingTheThreadsSlabsFreesThemOnceTheirSnapshotsAreReleased() {
    ByteBuf a = take(4096);
    ByteBuf slab = root(a);
    assertEquals(2, slab.refCnt());
    SnapshotSlabs.releaseCurrentThread();
    assertEquals(1, slab.refCnt(), "the snapshot in flight keeps its slab");
    held.remove(0).release();
    assertEquals(0, slab.refCnt());
  }
}
