package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** RFC 6581 §9 A|B|IRD C|D|ORD codec, byte-exact (mpa.md §3.6, §9.1, §9.2, FINDINGS §5). */
class EnhancedConnectionDataTest {

  @Test
  void flagPositions() {
    assertEquals(0x80000000, EnhancedConnectionData.encode(true, Set.of(), 0, 0));
    assertEquals(0xC0000000, EnhancedConnectionData.encode(true, Set.of(RtrType.SEND), 0, 0));
    assertEquals(0x80008000, EnhancedConnectionData.encode(true, Set.of(RtrType.WRITE), 0, 0));
    assertEquals(0x80004000, EnhancedConnectionData.encode(true, Set.of(RtrType.READ), 0, 0));
    assertEquals(0x3FFF3FFF, EnhancedConnectionData.encode(false, Set.of(), 0x3FFF, 0x3FFF));
  }

  @Test
  void vectors() {
    // mpa.md §9.1: A=1, IRD 16 | C=1 D=1, ORD 16
    assertEquals(0x8010C010, EnhancedConnectionData.encode(true,
        EnumSet.of(RtrType.WRITE, RtrType.READ), 16, 16));
    // FINDINGS §5 P2P Write-RTR and Read-RTR requests
    assertEquals(0x80018001, EnhancedConnectionData.encode(true, Set.of(RtrType.WRITE), 1, 1));
    assertEquals(0x80014001, EnhancedConnectionData.encode(true, Set.of(RtrType.READ), 1, 1));
    // siw's request
    assertEquals(0x00010001, EnhancedConnectionData.encode(false, Set.of(), 1, 1));
  }

  @Test
  void decodesEveryField() {
    ByteBuf b = Unpooled.buffer();
    b.writeByte(0x77);
    EnhancedConnectionData.write(b, true, EnumSet.allOf(RtrType.class), 0x1234, 0x0ABC);
    assertTrue(EnhancedConnectionData.peerToPeer(b, 1));
    assertEquals(EnumSet.allOf(RtrType.class), EnhancedConnectionData.rtrTypes(b, 1));
    assertEquals(0x1234, EnhancedConnectionData.ird(b, 1));
    assertEquals(0x0ABC, EnhancedConnectionData.ord(b, 1));
    assertEquals("77 d2 34 ca bc", StartupWire.toHex(StartupWire.bytes(b)));
    b.release();
  }

  @Test
  void depthsAreFourteenBitsAndFlagsDoNotLeakIn() {
    ByteBuf b = StartupWire.buf("ff ff ff ff");
    assertEquals(0x3FFF, EnhancedConnectionData.ird(b, 0));
    assertEquals(0x3FFF, EnhancedConnectionData.ord(b, 0));
    ByteBuf z = StartupWire.buf("00 00 00 00");
    assertFalse(EnhancedConnectionData.peerToPeer(z, 0));
    assertTrue(EnhancedConnectionData.rtrTypes(z, 0).isEmpty());
  }

  @Test
  void refusesWhatDoesNotFit() {
    assertThrows(IllegalArgumentException.class,
        () -> EnhancedConnectionData.encode(false, Set.of(), 0x4000, 0));
    assertThrows(IllegalArgumentException.class,
        () -> EnhancedConnectionData.encode(false, Set.of(), 0, -1));
    assertThrows(IllegalArgumentException.class,
        () -> EnhancedConnectionData.encode(false, Set.of(RtrType.SEND), 0, 0));
  }
}
