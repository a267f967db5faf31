package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static io.iwarp4j.ddp.mem.MemTestSupport.ulpduOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.testing.AllocationFreedom;
import io.iwarp4j.testing.AllocationMeter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The receive-path operations allocate nothing: measured with the JVM's per-thread allocation
 * counter (bytes, not time). The memory is plain NIO wrapped without leak tracking, because a
 * tracked ByteBuf records a stack trace per access under the PARANOID detector these tests run
 * with.
 */
class HotPathAllocationTest {
  private static final int ROUNDS = 50_000;

  @Test
  void lookupCheckPinPlaceAndInvalidationMissesAllocateNothing() {
    AllocationFreedom.assumeNettyHasUnsafe();
    AllocationMeter mx = AllocationMeter.create();

    StagTable table = seededTable(8, 40);
    ByteBuf payload = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(64));
    try (ProtectionDomain pd = table.newProtectionDomain();
        ProtectionDomain other = table.newProtectionDomain();
        MemoryRegion r = pd.register(ByteBuffer.allocateDirect(4096),
            LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC)) {
      Ulpdu seg = ulpduOf(payload);
      int stag = r.stag();
      long base = r.baseTo();
      long sink = 0;
      for (int round = 0; round < 2; round++) { // round 0 warms up, round 1 is measured
        long before = mx.allocatedBytes();
        for (int i = 0; i < ROUNDS; i++) {
          long to = base + (i & 63) * 64L;
          sink += table.lookup(stag) == r ? 1 : 0;
          sink += table.lookup(stag ^ 0x55) == null ? 1 : 0;
          sink += table.check(stag, to, 64, REMOTE_WRITE, pd).ordinal();
          sink += table.check(stag, to, 64, REMOTE_WRITE, other).ordinal();
          sink += table.check(stag, -8L, 64, REMOTE_READ, pd).ordinal();
          sink += table.check(stag, base + 4090, 64, REMOTE_READ, pd).ordinal();
          sink += table.checkAndPlace(stag, to, seg, 0, 64, REMOTE_WRITE, pd).ordinal();
          if (r.tryPin()) {
            r.place(to, seg, 0, 32);
            r.unpin();
          }
          sink += table.remoteInvalidate(stag, pd).ordinal(); // CANNOT_INVALIDATE: not opted in
          sink += table.remoteInvalidate(stag ^ 1, pd).ordinal();
          sink += r.getAndAddLong(0, 1);
          sink += r.compareAndExchangeLong(8, i, i + 1);
        }
        long allocated = mx.allocatedBytes() - before;
        if (round == 1) {
          // One allocation per round would be at least 16 * ROUNDS = 800 000 octets.
          assertTrue(allocated < 16 * 1024, allocated + " octets allocated in " + ROUNDS + " rounds");
        }
      }
      assertTrue(sink != 0);
      assertEquals((long) ROUNDS * 2 * (64 + 32), r.placedOctets(), "one copy per placed payload octet");
    } finally {
      payload.release();
    }
  }
}
