package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    CompositeByteBuf composite = Unpooled.compositeBuffer();
    composite.addComponent(true, Unpooled.wrappedBuffer(data, 0, 1234));
    composite.addComponent(true, Unpooled.directBuffer(5000 - 1234).writeBytes(data, 1234,
        5000 - 1234));
    ByteBuf[] kinds = {
        Unpooled.wrappedBuffer(data),
        Unpooled.directBuffer(5000).writeBytes(data),
        pooledDirect.slice(10, 5000),
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
        }
      }
    } finally {
      pooledDirect.release();
      kinds[1].release();
      composite.release();
    }
  }
}
