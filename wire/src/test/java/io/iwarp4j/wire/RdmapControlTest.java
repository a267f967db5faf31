package io.iwarp4j.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The RDMAP Control Field and Invalidate STag (RFC 5040 §4.1). */
class RdmapControlTest {

  @Test
  void encodesVersionOneReservedZeroAndTheOpcode() {
    for (RdmapOpcode op : RdmapOpcode.values()) {
      int ctl = RdmapControl.encode(op);
      assertEquals(0x40 | op.code(), ctl, op.name());
      assertEquals(0, ctl & RdmapControl.RSV_MASK, "Rsv MUST be 0 on transmit");
      assertEquals(RdmapControl.VERSION, RdmapControl.version(ctl));
      assertEquals(op.code(), RdmapControl.opcode(ctl));
    }
  }

  @Test
  void decodesVersionAndOpcodeIgnoringTheReservedBits() {
    assertEquals(1, RdmapControl.version(0x73));
    assertEquals(3, RdmapControl.opcode(0x73));
    assertEquals(0, RdmapControl.version(0x03), "00b: RDMA Consortium RDMAP");
    assertEquals(3, RdmapControl.version(0xCF));
    assertEquals(0xF, RdmapControl.opcode(0xCF));
  }

  @Test
  void untaggedRsvdUlpCarriesControlThenInvalidateStag() {
    long rsvd = RdmapControl.untaggedRsvdUlp(RdmapOpcode.SEND_WITH_INVALIDATE, 0xCAFE0001);
    assertEquals(0x44_CAFE_0001L, rsvd);
    assertEquals(0x44, RdmapControl.controlOf(rsvd));
    assertEquals(0xCAFE0001, RdmapControl.invalidateStagOf(rsvd));
    assertEquals(0x46_FFFF_FFFFL,
        RdmapControl.untaggedRsvdUlp(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, -1));
    assertEquals(0x47_0000_0000L, RdmapControl.untaggedRsvdUlp(RdmapOpcode.TERMINATE, 0));
  }

  @Test
  void aStagOnAnOpcodeWithoutOneAndTaggedOpcodesAreMisuse() {
    assertThrows(IllegalArgumentException.class,
        () -> RdmapControl.untaggedRsvdUlp(RdmapOpcode.SEND, 1));
    assertThrows(IllegalArgumentException.class,
        () -> RdmapControl.untaggedRsvdUlp(RdmapOpcode.RDMA_READ_REQUEST, 1));
    assertThrows(IllegalArgumentException.class,
        () -> RdmapControl.untaggedRsvdUlp(RdmapOpcode.RDMA_WRITE, 0));
  }

  @Test
  void readsControlAndInvalidateStagFromAHeader() {
    // Preceded by an MPA ULPDU_Length, as on the wire: the DDP header starts at index 2.
    ByteBuf wire = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(
        "0012" + "41" + "44CAFE0001" + "00000000" + "00000001" + "00000000"));
    try {
      assertEquals(0x44, RdmapControl.get(wire, 2));
      assertEquals(0xCAFE0001, RdmapControl.invalidateStag(wire, 2));
    } finally {
      wire.release();
    }
  }
}
