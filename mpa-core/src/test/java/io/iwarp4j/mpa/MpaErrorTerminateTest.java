package io.iwarp4j.mpa;

import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.TerminateMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** MPA errors as Terminate messages (RFC 6581 §8; mpa.md §9.6): the framed vector and decoding. */
class MpaErrorTerminateTest {
  /** mpa.md §9.6 ULPDU: CRC error, QN 2, MSN 1. */
  static final String CRC_ERROR_ULPDU =
      "41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 02 00 00";

  private final TerminateMessage term = new TerminateMessage();

  @Test
  void crcErrorFpduMatchesTheSpecVector() {
    ByteBuf b = Unpooled.buffer();
    assertEquals(22, TerminateMessage.writeLlpError(b, 1, MpaError.CRC_MISMATCH.code()));
    byte[] ulpdu = Hex.bytes(b);
    assertEquals(CRC_ERROR_ULPDU, toHex(ulpdu));
    assertEquals("00 16 " + CRC_ERROR_ULPDU + " 7f e4 25 85",
        toHex(StartupWire.fpdu(ulpdu, true)));
    b.release();
  }

  @Test
  void decodesMpaErrorsIncludingChelsiosEtype() {
    assertEquals(MpaError.CRC_MISMATCH, of(CRC_ERROR_ULPDU));
    assertEquals(MpaError.MARKER_MISMATCH, of(CRC_ERROR_ULPDU.replace("20 02 00 00", "23 03 00 00")));
    assertNull(of(CRC_ERROR_ULPDU.replace("20 02 00 00", "21 02 00 00")), "a DDP error");
    assertNull(of(CRC_ERROR_ULPDU.replace("20 02 00 00", "20 99 00 00")), "an unknown code");
  }

  private MpaError of(String ulpdu) {
    ByteBuf b = Hex.buf(ulpdu);
    try {
      term.wrap(b, 0, b.readableBytes());
      assertNull(term.check());
      return MpaError.of(term);
    } finally {
      b.release();
    }
  }
}
