package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The 8-octet local accessors behind RFC 7306 FetchAdd and CmpSwap. */
class MemoryRegionAtomicsTest {
  private static final int ATOMIC = LOCAL_WRITE | REMOTE_ATOMIC;

  private ProtectionDomain pd;
  private MemoryRegion region;

  @BeforeEach
  void setUp() {
    pd = seededTable(8, 30).newProtectionDomain();
    region = pd.allocate(64, ATOMIC);
  }

  @AfterEach
  void tearDown() {
    region.close();
    pd.close();
  }

  @Test
  void fetchAddReturnsTheOldValueAndWrapsLikeLongs() {
    assertEquals(0, region.getAndAddLong(8, 5));
    assertEquals(5, region.getAndAddLong(8, -2));
    assertEquals(3, region.getLong(8));
    region.putLong(16, Long.MAX_VALUE);
    assertEquals(Long.MAX_VALUE, region.getAndAddLong(16, 1));
    assertEquals(Long.MIN_VALUE, region.getLong(16));
  }

  @Test
  void compareAndExchangeSwapsOnlyOnAMatch() {
    region.putLong(24, 100);
    assertEquals(100, region.compareAndExchangeLong(24, 100, 200), "match: returns the old value");
    assertEquals(200, region.getLong(24));
    assertEquals(200, region.compareAndExchangeLong(24, 100, 300), "no match: returns what is there");
    assertEquals(200, region.getLong(24), "and leaves it");
  }

  @Test
  void valuesAreInNativeByteOrder() {
    long value = 0x0102030405060708L;
    region.putLong(32, value);
    region.getAndAddLong(40, value);
    ByteBuffer raw = region.buffer().nioBuffer(0, 64).order(ByteOrder.nativeOrder());
    assertEquals(value, raw.getLong(32));
    assertEquals(value, raw.getLong(40));
    int firstOctet = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 0x08 : 0x01;
    assertEquals(firstOctet, region.buffer().getUnsignedByte(32));
    raw.putLong(48, -7);
    assertEquals(-7, region.getAndAddLong(48, 7));
  }

  @Test
  void misalignedAtomicsAreRefusedPlainAccessIsNot() {
    for (int off = 1; off < 8; off++) {
      int o = off;
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> region.getAndAddLong(o, 1));
      assertTrue(e.getMessage().contains("not 8-octet aligned"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> region.compareAndExchangeLong(o, 0, 1));
    }
    region.putLong(3, 0x1122334455667788L);
    assertEquals(0x1122334455667788L, region.getLong(3));
  }

  @Test
  void alignmentIsTheMemorysNotTheOffsets() {
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64).setZero(0, 64); // pooled: not zeroed
    assertEquals(0, buf.memoryAddress() % 8, "test premise: pooled memory is 8-octet aligned");
    try (MemoryRegion odd = pd.register(buf, 3, 40, ATOMIC, RegionOptions.defaults().zeroBased())) {
      assertThrows(IllegalArgumentException.class, () -> odd.getAndAddLong(0, 1), "offset 0 is address + 3");
      assertEquals(0, odd.getAndAddLong(5, 1), "offset 5 is address + 8");
    } finally {
      buf.release();
    }
  }

  @Test
  void outOfRangeAndClosedAreRefused() {
    assertThrows(IndexOutOfBoundsException.class, () -> region.getAndAddLong(64, 1));
    assertThrows(IndexOutOfBoundsException.class, () -> region.getAndAddLong(-8, 1));
    assertThrows(IndexOutOfBoundsException.class, () -> region.getLong(57));
    assertThrows(IndexOutOfBoundsException.class, () -> region.putLong(Long.MIN_VALUE, 1));
    assertEquals(0, region.getAndAddLong(56, 1), "the last 8 octets");
    MemoryRegion gone = pd.allocate(16, ATOMIC);
    gone.close();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> gone.compareAndExchangeLong(0, 0, 1));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
  }

  @Test
  void concurrentFetchAddsAndCasLoopsLoseNothing() throws Exception {
    int threads = 4;
    int perThread = 10_000;
    CountDownLatch go = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      boolean useCas = (t & 1) == 1;
      Thread w = new Thread(() -> {
        try {
          go.await();
          for (int i = 0; i < perThread; i++) {
            if (useCas) {
              long seen = region.getLong(8);
              long witness;
              while ((witness = region.compareAndExchangeLong(8, seen, seen + 1)) != seen) {
                seen = witness;
              }
            } else {
              region.getAndAddLong(0, 1);
            }
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      workers.add(w);
      w.start();
    }
    go.countDown();
    for (Thread w : workers) {
      w.join();
    }
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    assertEquals((long) perThread * threads / 2, region.getLong(0), "fetch-add total");
    assertEquals((long) perThread * threads / 2, region.getLong(8), "compare-and-exchange total");
  }
}
