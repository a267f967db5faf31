package io.iwarp4j.mpa;

import static io.iwarp4j.mpa.StartupWire.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** The RFC 6581 §9.2 RTR ULPDUs, byte-exact (mpa.md §9.3, FINDINGS §5). */
class RtrFramesTest {
  static final String SEND = "41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00";
  static final String WRITE = "c1 40 00 00 00 00 00 00 00 00 00 00 00 00";
  static final String READ = "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"
      + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
  static final String READ_RESPONSE = "c1 42 00 00 00 00 00 00 00 00 00 00 00 00";

  @Test
  void sendRtr() {
    assertEquals(SEND, write(RtrType.SEND));
  }

  @Test
  void writeRtr() {
    assertEquals(WRITE, write(RtrType.WRITE));
  }

  @Test
  void readRtr() {
    assertEquals(READ, write(RtrType.READ));
    assertEquals(46, RtrFrames.length(RtrType.READ));
  }

  @Test
  void readResponseCarriesTheSinkStagAndTo() {
    ByteBuf b = Unpooled.buffer();
    assertEquals(14, RtrFrames.writeReadResponse(b, 0x11fe7900, 0x56291da5b130L));
    assertEquals("c1 42 11 fe 79 00 00 00 56 29 1d a5 b1 30", toHex(StartupWire.bytes(b)));
    b.release();
  }

  @Test
  void eachRtrMatchesItsType() {
    assertEquals(RtrType.SEND, match(SEND));
    assertEquals(RtrType.WRITE, match(WRITE));
    assertEquals(RtrType.READ, match(READ));
    // siw's Write RTR with STag 1 (mpa.md §9.3), and reserved bits set, still match.
    assertEquals(RtrType.WRITE, match("c1 40 00 00 00 01 00 00 00 00 00 00 00 00"));
    assertEquals(RtrType.WRITE, match("fd 70 00 00 00 01 00 00 00 00 00 00 00 00"));
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
    assertNull(match(withOctet(READ, RtrFrames.READ_SIZE_OFFSET + 3, 0x40)));
    assertEquals(RtrType.READ, match(withOctet(READ, RtrFrames.READ_SINK_STAG_OFFSET, 0x12)));
    assertNull(match("41"));
  }

  @Test
  void zeroLengthReadResponse() {
    assertTrue(RtrFrames.isZeroLengthReadResponse(view(READ_RESPONSE)));
    assertFalse(RtrFrames.isZeroLengthReadResponse(view(WRITE)));
    assertFalse(RtrFrames.isZeroLengthReadResponse(view(READ_RESPONSE + " 00")));
  }

  private static String write(RtrType t) {
    ByteBuf b = Unpooled.buffer();
    int n = RtrFrames.write(b, t);
    assertEquals(n, b.readableBytes());
    assertEquals(RtrFrames.length(t), n);
    String s = toHex(StartupWire.bytes(b));
    b.release();
    return s;
  }

  private static String withOctet(String hex, int index, int value) {
    byte[] b = StartupWire.hex(hex);
    b[index] = (byte) value;
    return toHex(b);
  }

  private static RtrType match(String hex) {
    return RtrFrames.match(view(hex));
  }

  /** A ULPDU view split into 3-octet pieces, to exercise reads across pieces. */
  static Ulpdu view(String hex) {
    ByteBuf b = StartupWire.buf(hex);
    Ulpdu u = new Ulpdu(2);
    for (int i = 0; i < b.readableBytes(); i += 3) {
      u.addPiece(b.copy(i, Math.min(3, b.readableBytes() - i)), 0,
          Math.min(3, b.readableBytes() - i));
    }
    return u;
  }
}
