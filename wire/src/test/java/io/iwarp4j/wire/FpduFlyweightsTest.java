package io.iwarp4j.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** Byte-exact tests of the FPDU framing field and Marker flyweights. */
class FpduFlyweightsTest {

  @Test
  void ulpduLengthIsBigEndianAtTheFpduStart() {
    ByteBuf b = Unpooled.wrappedBuffer(Hex.hex("ff ff 02 58 00 00"));
    FpduHeader h = new FpduHeader().wrap(b, 2);
    assertEquals(600, h.ulpduLength());
    h.ulpduLength(0x0e);
    assertEquals("ff ff 00 0e 00 00", Hex.toHex(Hex.bytes(b)));
    assertThrows(IllegalArgumentException.class, () -> h.ulpduLength(65536));
  }

  @Test
  void padAndFpduLengthArithmetic() {
    int[][] cases = {{0, 2, 8}, {1, 1, 8}, {2, 0, 8}, {3, 3, 12}, {14, 0, 20}, {23, 3, 32},
        {600, 2, 608}, {65535, 3, 65544}};
    for (int[] c : cases) {
      assertEquals(c[1], FpduHeader.padLength(c[0]), "pad for " + c[0]);
      assertEquals(c[2], FpduHeader.fpduLength(c[0]), "FPDU length for " + c[0]);
    }
    assertEquals(65544, FpduHeader.MAX_FPDU_LENGTH);
  }

  @Test
  void crcFieldIsLeastSignificantOctetFirst() {
    ByteBuf b = Unpooled.buffer();
    FpduHeader.writeCrc(b, 0x5F4CD3EB);
    assertEquals("eb d3 4c 5f", Hex.toHex(Hex.bytes(b)));
    assertEquals(0x5F4CD3EB, FpduHeader.getCrc(b, 0));
  }

  @Test
  void markerLayout() {
    ByteBuf b = Unpooled.buffer();
    MpaMarker.write(b, 508);
    assertEquals("00 00 01 fc", Hex.toHex(Hex.bytes(b)));
    MpaMarker m = new MpaMarker().wrap(Unpooled.wrappedBuffer(Hex.hex("12 34 01 ff")), 0);
    assertEquals(0x1234, m.reserved());
    assertEquals(0x01ff, m.fpduPtr());
    assertEquals(0x01fc, m.effectiveFpduPtr(), "the two low bits are treated as 0");
    m.set(4);
    assertEquals(0, m.reserved());
    assertEquals(4, m.fpduPtr());
    assertThrows(IllegalArgumentException.class, () -> MpaMarker.write(b, 6));
    assertThrows(IllegalArgumentException.class, () -> MpaMarker.write(b, 65536));
  }

  @Test
  void markerGrid() {
    assertTrue(MpaMarker.isMarkerPosition(0));
    assertTrue(MpaMarker.isMarkerPosition(1024));
    assertFalse(MpaMarker.isMarkerPosition(516));
    assertEquals(0, MpaMarker.octetsToNextMarker(512));
    assertEquals(508, MpaMarker.octetsToNextMarker(516));
    assertEquals(1, MpaMarker.octetsToNextMarker(1023));
    assertEquals(0, MpaMarker.octetsToNextMarker(1L << 40), "positions beyond 2^32 octets");
  }
}
