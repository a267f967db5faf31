package io.iwarp4j.tools.ping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** Byte-exact vectors of rping's {@code struct rping_rdma_info}, taken from siw captures. */
class RpingAdvertisementTest {
  /**
   * The advertisement our Python peer sent to siw (docs/interop.md, siw finding §5): buf 0x10000,
   * rkey 0x00c0ffee.
   */
  private static final String TO_SIW = "0000000000010000 00c0ffee 00000040";
  /**
   * siw's rping client advertising its start buffer (docs/interop.md, siw finding §6): an rkey
   * whose key is 0.
   */
  private static final String FROM_SIW = "000055a0cbb33460 82e37f00 00000040";

  @Test
  void encodesBigEndianAddrRkeySize() {
    ByteBuf buf = Unpooled.buffer(20);
    buf.setZero(0, 20);
    RpingAdvertisement.encode(buf, 2, 0x10000L, 0x00c0ffee, 64);
    byte[] expected = ByteBufUtil.decodeHexDump("0000" + TO_SIW.replace(" ", "") + "0000");
    assertArrayEquals(expected, ByteBufUtil.getBytes(buf, 0, 20));
  }

  @Test
  void decodesSiwsAdvertisementWithoutAssumingKeyBits() {
    ByteBuf buf = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(FROM_SIW.replace(" ", "")));
    assertEquals(0x55a0cbb33460L, RpingAdvertisement.addr(buf, 0));
    assertEquals(0x82e37f00, RpingAdvertisement.rkey(buf, 0));
    assertEquals(64, RpingAdvertisement.size(buf, 0));
  }

  @Test
  void sizeAndAddressAreUnsigned() {
    ByteBuf buf = Unpooled.buffer(16);
    RpingAdvertisement.encode(buf, 0, 0xffff_ffff_ffff_fff0L, 0xffffff00, 0xffff_ffff);
    assertEquals("fffffffffffffff0ffffff00ffffffff", ByteBufUtil.hexDump(buf, 0, 16));
    assertEquals(0xffff_ffff_ffff_fff0L, RpingAdvertisement.addr(buf, 0));
    assertEquals(0xffff_ffffL, RpingAdvertisement.size(buf, 0));
  }
}
