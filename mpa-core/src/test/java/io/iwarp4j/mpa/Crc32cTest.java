package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.wire.FpduHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** CRC32c over ByteBuf ranges agrees with the reference model for every kind of buffer. */
class Crc32cTest {

  private static int crcOf(ByteBuf buf, int index, int length) {
    CRC32C crc = new CRC32C();
    Crc32c.update(crc, buf, index, length);
    return (int) crc.getValue();
  }

  /** The same through the small-range path the framer and deframer use. */
  private static int crcViaScratch(ByteBuf buf, int index, int length) {
    CRC32C crc = new CRC32C();
    Crc32c.update(crc, buf, index, length, new byte[Crc32c.SMALL_RANGE]);
    return (int) crc.getValue();
  }

  @Test
  void referenceValuesOnTheWire() {
    ByteBuf zeros = Unpooled.directBuffer(32).writeZero(32);
    try {
      ByteBuf field = Unpooled.buffer(4);
      FpduHeader.writeCrc(field, crcOf(zeros, 0, 32));
      assertEquals("aa36918a", io.netty.buffer.ByteBufUtil.hexDump(field));
      assertEquals(0x8A9136AA, FpduHeader.getCrc(field, 0));
    } finally {
      zeros.release();
    }
  }

  @Test
  void everyBufferKindAndRangeAgreesWithTheModel() {
    Random r = new Random(3720);
    byte[] data = new byte[5000];
    r.nextBytes(data);
    ByteBuf pooledDirect = PooledByteBufAllocator.DEFAULT.directBuffer(5010).writeZero(10)
        .writeBytes(data);
    ByteBuf outer = pooledDirect.retainedSlice(5, 5005);
    CompositeByteBuf composite = Unpooled.compositeBuffer();
    composite.addComponent(true, Unpooled.wrappedBuffer(data, 0, 1234));
    composite.addComponent(true, Unpooled.directBuffer(5000 - 1234).writeBytes(data, 1234,
        5000 - 1234));
    ByteBuf[] kinds = {
        Unpooled.wrappedBuffer(data),
        Unpooled.directBuffer(5000).writeBytes(data),
        pooledDirect.slice(10, 5000),
        pooledDirect.retainedSlice(10, 5000),
        Unpooled.unreleasableBuffer(pooledDirect.duplicate()).slice(10, 5000),
        outer.retainedSlice(5, 5000),
        Unpooled.wrappedBuffer(data).asReadOnly(),
        composite,
    };
    try {
      for (int i = 0; i < 200; i++) {
        int from = r.nextInt(5000);
        int len = r.nextInt(5000 - from + 1);
        int expected = ReferenceFpdu.crc32c(data, from, len);
        for (ByteBuf b : kinds) {
          int base = b.readerIndex();
          assertEquals(expected, crcOf(b, base + from, len), b.getClass() + " [" + from + "+"
              + len + ")");
          assertEquals(expected, crcViaScratch(b, base + from, len), "scratch: " + b.getClass()
              + " [" + from + "+" + len + ")");
          int small = Math.min(len, r.nextInt(Crc32c.SMALL_RANGE + 1));
          assertEquals(ReferenceFpdu.crc32c(data, from, small),
              crcViaScratch(b, base + from, small), "small: " + b.getClass());
        }
      }
    } finally {
      kinds[1].release();
      kinds[3].release();
      kinds[5].release();
      outer.release();
      pooledDirect.release();
      composite.release();
    }
  }

  /**
   * A pooled slice (what registered memory hands the framer) is fed through its root's cached
   * view: no ByteBuffer per call. Allocation is counted in octets, not timed.
   */
  @Test
  void slicesOfPooledMemoryAreFedWithoutAllocating() {
    AllocationMeter mx = AllocationMeter.create();
    org.junit.jupiter.api.Assumptions.assumeTrue(io.netty.util.internal.PlatformDependent
        .hasUnsafe(), "Netty runs without Unsafe here: buffers have no memory address");
    ByteBuf root = PooledByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
    // Sliced from the buffer inside the leak tracker's wrapper: a tracked buffer records a stack
    // trace per access under PARANOID. The slice shares the tracked buffer's reference count.
    ByteBuf raw = root.unwrap() != null ? root.unwrap() : root;
    ByteBuf slice = raw.retainedSlice(100, 3000);
    CRC32C crc = new CRC32C();
    try {
      for (int round = 0; round < 2; round++) { // round 0 warms up
        long before = mx.allocatedBytes();
        for (int i = 0; i < 10_000; i++) {
          Crc32c.update(crc, slice, i & 1023, 64);
        }
        long allocated = mx.allocatedBytes() - before;
        if (round == 1) {
          // One ByteBuffer view per call would be about 10 000 * 48 octets.
          org.junit.jupiter.api.Assertions.assertTrue(allocated < 16 * 1024,
              allocated + " octets allocated for 10 000 CRC updates over a pooled slice");
        }
      }
    } finally {
      slice.release();
      root.release();
    }
  }

  /**
   * A small pooled buffer that Netty serves from its arena rather than its thread cache comes
   * without a cached NIO view (headers and trailers are such buffers when many FPDUs are in
   * flight). Through the scratch array their CRC allocates nothing; through a view it would be a
   * ByteBuffer per buffer. Counted in octets, not timed.
   */
  @Test
  void smallRangesOfArenaBuffersGoThroughTheScratchWithoutAllocating() {
    AllocationMeter mx = AllocationMeter.create();
    // More than the thread cache holds per size class (256), so most come from the arena.
    ByteBuf[] headers = new ByteBuf[4000];
    for (int i = 0; i < headers.length; i++) {
      headers[i] = PooledByteBufAllocator.DEFAULT.directBuffer(46).writeZero(46);
    }
    CRC32C crc = new CRC32C();
    byte[] scratch = new byte[Crc32c.SMALL_RANGE];
    try {
      // Warm up on other octets of the same buffers (the scratch path never creates a view).
      for (int i = 0; i < 20_000; i++) {
        ByteBuf b = headers[i % headers.length];
        ByteBuf raw = b.unwrap() != null ? b.unwrap() : b; // no PARANOID access records
        Crc32c.update(crc, raw, 0, 30, scratch);
      }
      long before = mx.allocatedBytes();
      for (ByteBuf b : headers) {
        ByteBuf raw = b.unwrap() != null ? b.unwrap() : b;
        Crc32c.update(crc, raw, 0, 46, scratch);
      }
      long allocated = mx.allocatedBytes() - before;
      // A view per buffer would be about 4000 * 64 octets.
      org.junit.jupiter.api.Assertions.assertTrue(allocated < 16 * 1024,
          allocated + " octets allocated for the CRC of 4000 small arena buffers");
    } finally {
      for (ByteBuf h : headers) {
        h.release();
      }
    }
  }
}
