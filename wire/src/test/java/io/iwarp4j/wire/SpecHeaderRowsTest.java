package io.iwarp4j.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * Every row of ddp.md §12 ("Worked headers"), built the way RDMAP builds it: control octet from
 * the opcode, QN from the opcode table, Invalidate STag in RsvdULP.
 */
class SpecHeaderRowsTest {

  private static String untagged(RdmapOpcode op, int invalidateStag, int msn) {
    ByteBuf b = Unpooled.buffer();
    try {
      UntaggedHeader.write(b, true, RdmapControl.untaggedRsvdUlp(op, invalidateStag),
          op.queueNumber(), msn, 0);
      return ByteBufUtil.hexDump(b);
    } finally {
      b.release();
    }
  }

  private static String tagged(RdmapOpcode op, boolean last, int stag, long to) {
    ByteBuf b = Unpooled.buffer();
    try {
      TaggedHeader.write(b, last, RdmapControl.encode(op), stag, to);
      return ByteBufUtil.hexDump(b);
    } finally {
      b.release();
    }
  }

  @Test
  void rdmaWriteLastSegment() {
    assertEquals(Hex.compact("C1 40 00 00 12 34 00 00 00 00 00 00 10 00"),
        tagged(RdmapOpcode.RDMA_WRITE, true, 0x1234, 0x1000));
  }

  @Test
  void rdmaWriteMiddleSegment() {
    assertEquals(Hex.compact("81 40"), tagged(RdmapOpcode.RDMA_WRITE, false, 0x1234, 0x1000)
        .substring(0, 4));
  }

  @Test
  void sendLastSegmentQn0Msn1() {
    assertEquals(Hex.compact("41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"),
        untagged(RdmapOpcode.SEND, 0, 1));
  }

  @Test
  void sendWithInvalidate() {
    assertEquals(Hex.compact("41 44 CA FE 00 01 00 00 00 00"),
        untagged(RdmapOpcode.SEND_WITH_INVALIDATE, 0xCAFE0001, 1).substring(0, 20));
  }

  @Test
  void readRequestQn1Msn1() {
    assertEquals(Hex.compact("41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"),
        untagged(RdmapOpcode.RDMA_READ_REQUEST, 0, 1));
  }

  @Test
  void terminateQn2Msn1() {
    assertEquals(Hex.compact("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00"),
        untagged(RdmapOpcode.TERMINATE, 0, 1));
  }
}
