package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static io.iwarp4j.ddp.mem.MemTestSupport.SEED;
import static io.iwarp4j.ddp.mem.MemTestSupport.seedNote;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static io.iwarp4j.ddp.mem.MemTestSupport.ulpduOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance test of the pin guard: deregistration (or invalidation) on one thread racing
 * placement on another, over thousands of iterations. After {@code close()} returns no octet
 * of the memory may change, no pin may succeed, and nothing but refused placements may happen
 * on the placing thread; the leak detector checks that every region gave its memory back.
 */
class PlacementRaceTest {
  private static final int ITERATIONS = 2000;
  /** Placements after which the placer yields, so a busy machine cannot let it run away. */
  private static final int EAGER_PLACEMENTS = 8;
  private static final int REGION = 8192;
  private static final int SEGMENT = 2048;

  private static ExecutorService placer;

  @BeforeAll
  static void startPlacer() {
    placer = Executors.newSingleThreadExecutor(r -> new Thread(r, "placer"));
  }

  @AfterAll
  static void stopPlacer() throws InterruptedException {
    placer.shutdownNow();
    assertTrue(placer.awaitTermination(10, TimeUnit.SECONDS));
  }

  /** What the placing thread saw in one iteration. */
  private static final class Outcome {
    int placed;
    int refused;
    /** A pin that succeeded after close() (or invalidate()) had returned: must never happen. */
    int pinsAfterRevoke;
    Throwable failure;
  }

  /** The deregistering side of one iteration. */
  private enum Revoke {
    CLOSE, INVALIDATE
  }

  @Test
  void closeRacingPlacementIntoACallersBuffer() throws Exception {
    race(Revoke.CLOSE, 1);
  }

  @Test
  void invalidateRacingPlacementIntoACallersBuffer() throws Exception {
    race(Revoke.INVALIDATE, 2);
  }

  @Test
  void closeRacingPlacementIntoLibraryAllocatedMemory() throws Exception {
    StagTable table = seededTable(4, 3);
    SplittableRandom random = new SplittableRandom(SEED + 3);
    ByteBuf[] sources = sources();
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      Ulpdu[] segments = {ulpduOf(sources[0]), ulpduOf(sources[1])};
      int raced = 0;
      for (int i = 0; i < ITERATIONS; i++) {
        MemoryRegion r = pd.allocate(REGION, LOCAL_WRITE | REMOTE_WRITE);
        Placement p = new Placement(table, pd, r, segments, random.nextInt(4));
        Future<Outcome> f = placer.submit(p);
        p.awaitStart(random.nextInt(64));
        r.close();
        boolean copyInFlight = p.copying;
        p.revoked = true;
        Outcome o = f.get(10, TimeUnit.SECONDS);
        check(o, i);
        assertFalse(copyInFlight, "a copy was in flight when close returned, iteration " + i + seedNote());
        if (o.placed > 0) {
          raced++;
        }
      }
      assertTrue(raced > 0, "no iteration placed anything before close: the race was not exercised" + seedNote());
      assertEquals(0, table.registeredCount());
    } finally {
      for (ByteBuf s : sources) {
        s.release();
      }
    }
  }

  private void race(Revoke revoke, long salt) throws Exception {
    StagTable table = seededTable(4, salt);
    SplittableRandom random = new SplittableRandom(SEED + salt);
    ByteBuf[] sources = sources();
    ByteBuf mine = PooledByteBufAllocator.DEFAULT.directBuffer(REGION, REGION);
    ByteBuf snapshot = PooledByteBufAllocator.DEFAULT.directBuffer(REGION, REGION);
    // Plain NIO views: the leak-tracked ByteBufs record a stack trace per access, which would
    // give a late copy time to finish before the snapshot is taken.
    ByteBuffer mineNio = mine.nioBuffer(0, REGION);
    ByteBuffer snapshotNio = snapshot.nioBuffer(0, REGION);
    try (ProtectionDomain pd = table.newProtectionDomain()) {
      Ulpdu[] segments = {ulpduOf(sources[0]), ulpduOf(sources[1])};
      int raced = 0;
      for (int i = 0; i < ITERATIONS; i++) {
        mine.setZero(0, REGION);
        MemoryRegion r = pd.register(mine, LOCAL_WRITE | REMOTE_WRITE);
        Placement p = new Placement(table, pd, r, segments, random.nextInt(4));
        Future<Outcome> f = placer.submit(p);
        p.awaitStart(random.nextInt(64));
        if (revoke == Revoke.CLOSE) {
          r.close();
        } else {
          r.invalidate();
        }
        boolean copyInFlight = p.copying;
        snapshotNio.clear();
        snapshotNio.put(mineNio.duplicate());
        p.revoked = true;
        Outcome o = f.get(10, TimeUnit.SECONDS);
        check(o, i);
        assertFalse(copyInFlight, "a copy was in flight when " + revoke + " returned, iteration " + i + seedNote());
        // The placer has stopped; anything it wrote after the revocation returned shows here.
        assertEquals(snapshotNio.clear(), mineNio.duplicate(),
            "memory changed after " + revoke + " returned, iteration " + i + seedNote());
        if (revoke == Revoke.INVALIDATE) {
          r.close();
        }
        assertEquals(1, mine.refCnt(), "the region gave its reference back, iteration " + i);
        if (o.placed > 0) {
          raced++;
        }
      }
      assertTrue(raced > 0, "no iteration placed anything before the revocation" + seedNote());
      assertEquals(0, table.registeredCount());
    } finally {
      mine.release();
      snapshot.release();
      for (ByteBuf s : sources) {
        s.release();
      }
    }
  }

  private static void check(Outcome o, int iteration) {
    if (o.failure != null) {
      throw new AssertionError("placement failed with other than a refusal, iteration " + iteration + seedNote(),
          o.failure);
    }
    assertEquals(0, o.pinsAfterRevoke, "a pin succeeded after the revocation returned, iteration " + iteration
        + seedNote());
    assertTrue(o.refused >= 1, "the placer stops only on a refusal");
  }

  /** Two segment payloads with different octets, so that a late copy would change memory. */
  private static ByteBuf[] sources() {
    ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(SEGMENT);
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(SEGMENT);
    for (int i = 0; i < SEGMENT; i++) {
      a.writeByte(0x55 ^ i);
      b.writeByte(0xAA ^ (i * 7));
    }
    return new ByteBuf[] {a, b};
  }

  /**
   * The receive path on the placing thread: place alternating segments at moving offsets until
   * refused. Every other pair of attempts goes through {@link StagTable#checkAndPlace}; the
   * others do the same steps by hand so the test can look between the pin and the unpin.
   */
  private static final class Placement implements Callable<Outcome> {
    private final StagTable table;
    private final ProtectionDomain pd;
    private final MemoryRegion region;
    private final int stag;
    private final Ulpdu[] segments;
    private final int phase;
    volatile boolean started;
    volatile boolean revoked;
    /** True from just after a pin until just before its unpin (hand-made placements only). */
    volatile boolean copying;

    Placement(StagTable table, ProtectionDomain pd, MemoryRegion region, Ulpdu[] segments, int phase) {
      this.table = table;
      this.pd = pd;
      this.region = region;
      this.stag = region.stag();
      this.segments = segments;
      this.phase = phase;
    }

    /** Lets the placer get going, then a seeded number of spins more to vary the interleaving. */
    void awaitStart(int extraSpins) {
      for (int spins = 0; !started; spins++) {
        if (spins < 256) {
          Thread.onSpinWait();
        } else {
          Thread.yield(); // on a busy machine the placer needs this CPU to start
        }
      }
      for (int i = 0; i < extraSpins; i++) {
        Thread.onSpinWait();
      }
    }

    @Override
    public Outcome call() {
      Outcome o = new Outcome();
      started = true;
      try {
        for (int n = phase; ; n++) {
          Ulpdu seg = segments[n & 1];
          long to = region.baseTo() + (long) (n % (REGION / SEGMENT)) * SEGMENT;
          boolean ok;
          if ((n & 2) == 0) {
            ok = table.checkAndPlace(stag, to, seg, 0, SEGMENT, REMOTE_WRITE, pd) == StagCheck.OK;
          } else {
            ok = placeByHand(o, seg, to);
          }
          if (!ok) {
            o.refused++;
            return o;
          }
          if (++o.placed >= EAGER_PLACEMENTS) {
            Thread.yield();
          }
        }
      } catch (Throwable t) {
        o.failure = t;
        return o;
      }
    }

    private boolean placeByHand(Outcome o, Ulpdu seg, long to) {
      MemoryRegion r = table.lookup(stag);
      if (r == null || r.check(to, SEGMENT, REMOTE_WRITE, pd) != StagCheck.OK || !r.tryPin()) {
        return false;
      }
      try {
        copying = true;
        if (revoked) {
          o.pinsAfterRevoke++;
        }
        r.place(to, seg, 0, SEGMENT);
      } finally {
        copying = false;
        r.unpin();
      }
      return true;
    }
  }
}
