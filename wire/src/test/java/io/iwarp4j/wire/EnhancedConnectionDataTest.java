package io.iwarp4j.wire;

import static io.iwarp4j.wire.EnhancedConnectionData.RTR_READ;
import static io.iwarp4j.wire.EnhancedConnectionData.RTR_SEND;
import static io.iwarp4j.wire.EnhancedConnectionData.RTR_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * RFC 6581 §9 A|B|IRD C|D|ORD codec, byte-exact (mpa.md §3.6, §9.1, §9.2; docs/interop.md, siw
 * finding §5).
 */
class EnhancedConnectionDataTest {

  @Test
  void flagPositions() {
    assertEquals(0x80000000, EnhancedConnectionData.encode(true, 0, 0, 0));
    assertEquals(0xC0000000, EnhancedConnectionData.encode(true, RTR_SEND, 0, 0));
    assertEquals(0x80008000, EnhancedConnectionData.encode(true, RTR_WRITE, 0, 0));
    assertEquals(0x80004000, EnhancedConnectionData.encode(true, RTR_READ, 0, 0));
    assertEquals(0x3FFF3FFF, EnhancedConnectionData.encode(false, 0, 0x3FFF, 0x3FFF));
  }

  @Test
  void vectors() {
    // mpa.md §9.1: A=1, IRD 16 | C=1 D=1, ORD 16
    assertEquals(0x8010C010, EnhancedConnectionData.encode(true,
        RTR_WRITE | RTR_READ, 16, 16));
    // docs/interop.md, siw finding §5: P2P Write-RTR and Read-RTR requests
    assertEquals(0x80018001, EnhancedConnectionData.encode(true, RTR_WRITE, 1, 1));
    assertEquals(0x80014001, EnhancedConnectionData.encode(true, RTR_READ, 1, 1));
    // siw's request
    assertEquals(0x00010001, EnhancedConnectionData.encode(false, 0, 1, 1));
  }

  @Test
  void decodesEveryField() {
    ByteBuf b = Unpooled.buffer();
    b.writeByte(0x77);
    EnhancedConnectionData.write(b, true, RTR_SEND | RTR_WRITE | RTR_READ, 0x1234, 0x0ABC);
    assertTrue(EnhancedConnectionData.peerToPeer(b, 1));
    assertEquals(RTR_SEND | RTR_WRITE | RTR_READ, EnhancedConnectionData.rtrFlags(b, 1));
    assertEquals(0x1234, EnhancedConnectionData.ird(b, 1));
    assertEquals(0x0ABC, EnhancedConnectionData.ord(b, 1));
    assertEquals("77 d2 34 ca bc", Hex.toHex(b));
    b.release();
  }

  @Test
  void depthsAreFourteenBitsAndFlagsDoNotLeakIn() {
    ByteBuf b = Hex.buf("ff ff ff ff");
    assertEquals(0x3FFF, EnhancedConnectionData.ird(b, 0));
    assertEquals(0x3FFF, EnhancedConnectionData.ord(b, 0));
    ByteBuf z = Hex.buf("00 00 00 00");
    assertFalse(EnhancedConnectionData.peerToPeer(z, 0));
    assertEquals(0, EnhancedConnectionData.rtrFlags(z, 0));
  }

  @Test
  void refusesWhatDoesNotFit() {
    assertThrows(IllegalArgumentException.class,
        () -> EnhancedConnectionData.encode(false, 0, 0x4000, 0));
    assertThrows(IllegalArgumentException.class,
        () -> EnhancedConnectionData.encode(false, 0, 0, -1));
    assertThrows(IllegalArgumentException.class,
        () -> EnhancedConnectionData.encode(false, RTR_SEND, 0, 0));
    assertThrows(IllegalArgumentException.class,
        () -> EnhancedConnectionData.encode(true, 8, 0, 0));
  }
}
