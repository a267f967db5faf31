package io.iwarp4j.wire;

import static io.iwarp4j.testing.Hex.buf;
import static io.iwarp4j.testing.Hex.hex;
import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** RFC 5040 §4.8 Terminate, byte-exact (mpa.md §9.6, spec README "Terminate message"). */
class TerminateMessageTest {
  /** mpa.md §9.6 ULPDU: CRC error, QN 2, MSN 1. */
  static final String CRC_ERROR_ULPDU =
      "41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 02 00 00";
  /** An untagged Send header (QN 0, MSN 5) as the terminated DDP header. */
  static final String SEND_HEADER = "41 43 00 00 00 00 00 00 00 00 00 00 00 05 00 00 00 00";

  private final TerminateMessage term = new TerminateMessage();

  @Test
  void mpaCrcErrorMatchesTheSpecVector() {
    ByteBuf b = Unpooled.buffer();
    assertEquals(22, TerminateMessage.writeLlpError(b, 1, 0x02));
    assertEquals(CRC_ERROR_ULPDU, toHex(b));
    b.release();
  }

  @Test
  void startupErrorsOfRfc6581() {
    assertEquals("20 06 00 00", control(0x06));
    assertEquals("20 07 00 00", control(0x07));
    assertEquals("20 05 00 00", control(0x05));
  }

  @Test
  void ddpErrorWithTheTerminatedHeaderMatchesTheReadmeExample() {
    ByteBuf b = Unpooled.buffer();
    ByteBuf header = buf(SEND_HEADER);
    int n = TerminateMessage.write(b, 1, 1, 2, 0x02, true, 0x0016, header, null);
    assertEquals(22 + 2 + 18, n);
    assertEquals(18, header.readableBytes(), "the header must not be consumed");
    assertEquals("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00"
        + " 12 02 c0 00 00 16 " + SEND_HEADER, toHex(b));
    term.wrap(b, 0, b.readableBytes());
    assertNull(term.check());
    assertEquals(1, term.layer());
    assertEquals(2, term.errorType());
    assertEquals(2, term.errorCode());
    assertTrue(term.segmentLengthValid());
    assertTrue(term.ddpHeaderIncluded());
    assertFalse(term.rdmaHeaderIncluded());
    assertEquals(0x16, term.ddpSegmentLength());
    assertEquals(24, term.terminatedDdpHeaderIndex());
    assertEquals(18, term.terminatedDdpHeaderLength());
    assertEquals(42, term.expectedLength());
    assertEquals(-1, term.llpErrorCode());
    b.release();
  }

  @Test
  void readRequestTerminateCarriesBothHeaders() {
    ByteBuf readHeader = buf(
        "41 41 00 00 00 00 00 00 00 01 00 00 00 07 00 00 00 00");
    ByteBuf rdma = Unpooled.buffer(28);
    for (int i = 0; i < 28; i++) {
      rdma.writeByte(i + 1);
    }
    ByteBuf b = Unpooled.buffer();
    int n = TerminateMessage.write(b, 3, 0, 1, 0x00, false, 46, readHeader, rdma);
    assertEquals(22 + 2 + 18 + 28, n);
    term.wrap(b, 0, n);
    assertNull(term.check());
    assertEquals(3, term.msn());
    assertEquals(0x20, b.getUnsignedByte(TerminateMessage.HDRCT_OFFSET) & 0xE0 & ~0x40);
    assertEquals(0x60, b.getUnsignedByte(TerminateMessage.HDRCT_OFFSET));
    assertEquals(42, term.terminatedRdmaHeaderIndex());
    assertEquals(1, b.getUnsignedByte(term.terminatedRdmaHeaderIndex()));
    assertEquals(28, b.getUnsignedByte(n - 1));
    b.release();
    rdma.release();
  }

  @Test
  void taggedTerminatedHeaderIsFourteenOctets() {
    ByteBuf b = Unpooled.buffer();
    ByteBuf writeHeader = buf("c1 40 00 00 12 34 00 00 00 00 00 00 10 00");
    int n = TerminateMessage.write(b, 1, 1, 1, 0x00, true, 1038, writeHeader, null);
    assertEquals(22 + 2 + 14, n);
    term.wrap(b, 0, n);
    assertNull(term.check());
    assertEquals(14, term.terminatedDdpHeaderLength());
    b.release();
  }

  @Test
  void writerRejectsInconsistentHeaders() {
    ByteBuf b = Unpooled.buffer();
    assertThrows(IllegalArgumentException.class, () -> TerminateMessage.write(b, 1, 1, 2, 2,
        true, 0, buf("c1 40 00 00"), null));
    assertThrows(IllegalArgumentException.class, () -> TerminateMessage.write(b, 1, 1, 2, 2,
        true, 0, buf(SEND_HEADER), buf("00")));
    assertThrows(IllegalArgumentException.class, () -> TerminateMessage.write(b, 1, 16, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> TerminateMessage.write(b, 1, 0, 0, 256));
    b.release();
  }

  @Test
  void decodesMpaErrorsIncludingChelsiosEtype() {
    term.wrap(buf(CRC_ERROR_ULPDU), 0, 22);
    assertNull(term.check());
    assertEquals(2, term.queueNumber());
    assertEquals(1, term.msn());
    assertEquals(0x02, term.llpErrorCode());
    assertEquals(22, term.expectedLength());
    assertThrows(IllegalStateException.class, term::ddpSegmentLength);

    term.wrap(buf(CRC_ERROR_ULPDU.replace("20 02 00 00", "23 03 00 00")), 0, 22);
    assertEquals(0x03, term.llpErrorCode());
    term.wrap(buf(CRC_ERROR_ULPDU.replace("20 02 00 00", "21 02 00 00")), 0, 22);
    assertEquals(-1, term.llpErrorCode());
    // A code MPA does not define is still reported; MpaError.of maps it to null.
    term.wrap(buf(CRC_ERROR_ULPDU.replace("20 02 00 00", "20 99 00 00")), 0, 22);
    assertEquals(0x99, term.llpErrorCode());
  }

  @Test
  void checkNamesWhatIsWrong() {
    term.wrap(buf(CRC_ERROR_ULPDU), 0, 21);
    assertTrue(term.check().contains("shorter than 22"));
    term.wrap(buf(CRC_ERROR_ULPDU.replace("00 00 00 02", "00 00 00 01")), 0, 22);
    assertTrue(term.check().contains("QN 1"));
    term.wrap(buf("41 43" + CRC_ERROR_ULPDU.substring(5)), 0, 22);
    assertTrue(term.check().contains("Terminate"));
    term.wrap(buf("c1" + CRC_ERROR_ULPDU.substring(2)), 0, 22);
    assertTrue(term.check().contains("untagged"));
    // D=1 announced but the header is missing
    term.wrap(buf(CRC_ERROR_ULPDU.replace("20 02 00 00", "12 02 c0 00")
        + " 00 16 41 43 00 00"), 0, 28);
    assertTrue(term.check().contains("shorter than the 42"), term.check());
  }

  @Test
  void offsets() {
    assertEquals(18, TerminateMessage.TERMINATE_CONTROL_OFFSET);
    assertEquals(22, TerminateMessage.DDP_SEGMENT_LENGTH_OFFSET);
    assertEquals(24, TerminateMessage.TERMINATED_DDP_HEADER_OFFSET);
    byte[] all = hex(CRC_ERROR_ULPDU);
    assertEquals(0x47, all[RdmapControl.OFFSET]);
    assertEquals(2, all[UntaggedHeader.QN_OFFSET + 3]);
    assertEquals(1, all[UntaggedHeader.MSN_OFFSET + 3]);
  }

  private static String control(int mpaErrorCode) {
    ByteBuf b = Unpooled.buffer();
    TerminateMessage.writeLlpError(b, 1, mpaErrorCode);
    String s = toHex(b).substring(3 * 18);
    b.release();
    return s;
  }
}
