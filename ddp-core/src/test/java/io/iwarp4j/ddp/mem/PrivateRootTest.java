package io.iwarp4j.ddp.mem;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/**
 * Memory registered from an allocator that is not the pooled one gets a root buffer of its own
 * over the same octets (Netty's scratch NIO view is per root), and the registration still shares
 * the caller's memory and reference count.
 */
class PrivateRootTest {
  private final StagTable table = new StagTable(64);
  private final ProtectionDomain pd = table.newProtectionDomain();

  @Test
  void defaultAllocatorMemoryIsRegisteredThroughARootOfItsOwnOverTheSameOctets() {
    ByteBuf buf = ByteBufAllocator.DEFAULT.directBuffer(256);
    try {
      MemoryRegion r = pd.register(buf, 16, 128, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE,
          RegionOptions.defaults());
      assertEquals(2, buf.refCnt(), "the region holds one reference to the caller's buffer");
      assertEquals(buf.memoryAddress() + 16, r.baseTo(), "same memory, native-address base TO");
      r.buffer().setLong(8, 0x1122334455667788L);
      assertEquals(0x1122334455667788L, buf.getLong(16 + 8), "writes land in the caller's memory");
      r.close();
      assertEquals(1, buf.refCnt(), "closing gives the reference back and frees nothing");
      assertEquals(0x1122334455667788L, buf.getLong(16 + 8), "the caller's memory stays valid");
    } finally {
      buf.release();
    }
  }

  @Test
  void pooledMemoryIsSlicedDirectly() {
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(256);
    try {
      MemoryRegion r = pd.register(buf, 0, 256, AccessFlags.LOCAL_WRITE, RegionOptions.defaults());
      r.buffer().setInt(0, 7);
      assertEquals(7, buf.getInt(0));
      r.close();
      assertEquals(1, buf.refCnt());
    } finally {
      buf.release();
    }
  }
}
