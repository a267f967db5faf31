package io.iwarp4j.wire;

import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The RFC 6581 §9.2 RTR ULPDUs, byte-exact (mpa.md §9.3; docs/interop.md, siw finding §5). */
class RtrFramesTest {
  static final String SEND = "41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00";
  static final String WRITE = "c1 40 00 00 00 00 00 00 00 00 00 00 00 00";
  static final String READ = "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"
      + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
  static final String READ_RESPONSE = "c1 42 00 00 00 00 00 00 00 00 00 00 00 00";

  @Test
  void sendRtr() {
    assertEquals(SEND, write(RdmapOpcode.SEND));
  }

  @Test
  void writeRtr() {
    assertEquals(WRITE, write(RdmapOpcode.RDMA_WRITE));
  }

  @Test
  void readRtr() {
    assertEquals(READ, write(RdmapOpcode.RDMA_READ_REQUEST));
    assertEquals(46, RtrFrames.length(RdmapOpcode.RDMA_READ_REQUEST));
  }

  @Test
  void readResponseCarriesTheSinkStagAndTo() {
    ByteBuf b = Unpooled.buffer();
    assertEquals(14, RtrFrames.writeReadResponse(b, 0x11fe7900, 0x56291da5b130L));
    assertEquals("c1 42 11 fe 79 00 00 00 56 29 1d a5 b1 30", toHex(b));
    b.release();
  }

  @Test
  void eachRtrMatchesItsType() {
    assertEquals(RdmapOpcode.SEND, match(SEND));
    assertEquals(RdmapOpcode.RDMA_WRITE, match(WRITE));
    assertEquals(RdmapOpcode.RDMA_READ_REQUEST, match(READ));
    // siw's Write RTR with STag 1 (mpa.md §9.3), and reserved bits set, still match.
    assertEquals(RdmapOpcode.RDMA_WRITE, match("c1 40 00 00 00 01 00 00 00 00 00 00 00 00"));
    assertEquals(RdmapOpcode.RDMA_WRITE, match("fd 70 00 00 00 01 00 00 00 00 00 00 00 00"));
  }

  @Test
  void nearMissesAreNotRtrs() {
    assertNull(match(READ_RESPONSE));
    // Send on MSN 2, on QN 1, with payload, not last
    assertNull(match(SEND.replace("00 01 00 00 00 00", "00 02 00 00 00 00")));
    assertNull(match("41 43 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"));
    assertNull(match(SEND + " 68"));
    assertNull(match("01" + SEND.substring(2)));
    // Write with payload; Write with RDMAP version 0
    assertNull(match(WRITE + " 00"));
    assertNull(match("c1 00 00 00 00 00 00 00 00 00 00 00 00 00"));
    // Read with a non-zero size
    assertNull(match(withOctet(READ, ReadRequestHeader.RDMARDSZ_OFFSET + 3, 0x40)));
    assertEquals(RdmapOpcode.RDMA_READ_REQUEST, match(withOctet(READ, ReadRequestHeader.SINK_STAG_OFFSET, 0x12)));
    assertNull(match("41"));
  }

  @Test
  void zeroLengthReadResponse() {
    assertTrue(RtrFrames.isZeroLengthReadResponse(view(READ_RESPONSE)));
    assertFalse(RtrFrames.isZeroLengthReadResponse(view(WRITE)));
    assertFalse(RtrFrames.isZeroLengthReadResponse(view(READ_RESPONSE + " 00")));
  }

  private static String write(RdmapOpcode t) {
    ByteBuf b = Unpooled.buffer();
    int n = RtrFrames.write(b, t);
    assertEquals(n, b.readableBytes());
    assertEquals(RtrFrames.length(t), n);
    String s = toHex(b);
    b.release();
    return s;
  }

  private static String withOctet(String hex, int index, int value) {
    byte[] b = Hex.hex(hex);
    b[index] = (byte) value;
    return toHex(b);
  }

  private static RdmapOpcode match(String hex) {
    return RtrFrames.match(view(hex));
  }

  /** A received segment split into 3-octet pieces, to exercise reads across pieces. */
  static SegmentBytes view(String hex) {
    ByteBuf b = Hex.buf(hex);
    int[] cuts = new int[(b.readableBytes() - 1) / 3];
    for (int i = 0; i < cuts.length; i++) {
      cuts[i] = 3 * (i + 1);
    }
    return Segments.segment(b, cuts);
  }
}
