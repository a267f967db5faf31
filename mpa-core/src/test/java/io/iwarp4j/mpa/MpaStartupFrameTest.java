package io.iwarp4j.mpa;

import static io.iwarp4j.mpa.StartupWire.REPLY_KEY;
import static io.iwarp4j.mpa.StartupWire.REQUEST_KEY;
import static io.iwarp4j.testing.Hex.hex;
import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.MpaStartupFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Byte-exact vectors for the Request/Reply frame (mpa.md §3.1, §9.1, §9.2; docs/interop.md, siw
 * findings §5, §6).
 */
class MpaStartupFrameTest {
  /** mpa.md §9.1. */
  static final String SPEC_REQUEST = REQUEST_KEY + " 50 02 00 08 80 10 c0 10 de ad be ef";
  /** mpa.md §9.2. */
  static final String SPEC_REPLY = REPLY_KEY + " 50 02 00 04 80 10 80 10";
  /** siw's Request as Initiator (docs/interop.md, siw finding §6). */
  static final String SIW_REQUEST = REQUEST_KEY + " 10 02 00 04 00 01 00 01";

  private final MpaStartupFrame frame = new MpaStartupFrame();

  @Test
  void offsetsMatchTheDiagram() {
    assertEquals(0, MpaStartupFrame.KEY_OFFSET);
    assertEquals(16, MpaStartupFrame.FLAGS_OFFSET);
    assertEquals(17, MpaStartupFrame.REVISION_OFFSET);
    assertEquals(18, MpaStartupFrame.PD_LENGTH_OFFSET);
    assertEquals(20, MpaStartupFrame.PRIVATE_DATA_OFFSET);
    assertEquals(532, MpaStartupFrame.MAX_FRAME_LENGTH);
  }

  @Test
  void decodesTheSpecRequest() {
    ByteBuf b = Hex.buf(SPEC_REQUEST);
    frame.wrap(b, 0);
    assertEquals(MpaStartupFrame.Kind.REQUEST, frame.kind());
    assertNull(frame.checkHeader(MpaStartupFrame.Kind.REQUEST));
    assertEquals(28, frame.frameLength());
    MpaPeerParameters p = StartupFrames.decode(frame);
    assertEquals(2, p.revision());
    assertFalse(p.markers());
    assertTrue(p.crc());
    assertFalse(p.rejected());
    assertTrue(p.enhanced());
    assertTrue(p.peerToPeer());
    assertEquals(EnumSet.of(RtrType.WRITE, RtrType.READ), p.rtrTypes());
    assertEquals(16, p.ird());
    assertEquals(16, p.ord());
    assertArrayEquals(hex("de ad be ef"), p.privateData());
  }

  @Test
  void encodesTheSpecRequest() {
    MpaPeerParameters p = new MpaPeerParameters(2, false, true, false, true, true,
        EnumSet.of(RtrType.WRITE, RtrType.READ), 16, 16, hex("de ad be ef"));
    assertEquals(SPEC_REQUEST, encode(MpaStartupFrame.Kind.REQUEST, p));
  }

  @Test
  void specReplyRoundTrips() {
    ByteBuf b = Hex.buf(SPEC_REPLY);
    frame.wrap(b, 0);
    assertNull(frame.checkHeader(MpaStartupFrame.Kind.REPLY));
    MpaPeerParameters p = StartupFrames.decode(frame);
    assertTrue(p.crc());
    assertTrue(p.peerToPeer());
    assertEquals(Set.of(RtrType.WRITE), p.rtrTypes());
    assertEquals(16, p.ird());
    assertEquals(16, p.ord());
    assertEquals(0, p.privateDataLength());
    assertEquals(SPEC_REPLY, encode(MpaStartupFrame.Kind.REPLY, p));
  }

  @Test
  void siwRequestDecodesAndReencodesIdentically() {
    ByteBuf b = Hex.buf(SIW_REQUEST);
    frame.wrap(b, 0);
    assertNull(frame.checkHeader(MpaStartupFrame.Kind.REQUEST));
    MpaPeerParameters p = StartupFrames.decode(frame);
    assertEquals(2, p.revision());
    assertFalse(p.crc());
    assertFalse(p.markers());
    assertTrue(p.enhanced());
    assertFalse(p.peerToPeer());
    assertTrue(p.rtrTypes().isEmpty());
    assertEquals(1, p.ird());
    assertEquals(1, p.ord());
    assertEquals(SIW_REQUEST, encode(MpaStartupFrame.Kind.REQUEST, p));
  }

  @Test
  void decodesAtAnOffset() {
    byte[] body = hex(SPEC_REQUEST);
    ByteBuf b = Unpooled.buffer();
    b.writeBytes(hex("ff ff ff"));
    b.writeBytes(body);
    frame.wrap(b, 3);
    assertEquals(16, StartupFrames.decode(frame).ird());
  }

  @Test
  void reservedBitsAreNotChecked() {
    // siw's experimental GSO bit 0x08, and every other Res bit.
    for (int res = 1; res <= 0x0F; res++) {
      ByteBuf b = Hex.buf(SIW_REQUEST);
      b.setByte(16, 0x10 | res);
      frame.wrap(b, 0);
      assertNull(frame.checkHeader(MpaStartupFrame.Kind.REQUEST), "Res " + res);
      assertEquals(1, StartupFrames.decode(frame).ord());
    }
  }

  @Test
  void sBitIsReservedInRevisionOne() {
    ByteBuf b = Hex.buf(REQUEST_KEY + " 10 01 00 02 ab cd");
    frame.wrap(b, 0);
    assertNull(frame.checkHeader(MpaStartupFrame.Kind.REQUEST));
    MpaPeerParameters p = StartupFrames.decode(frame);
    assertFalse(p.enhanced());
    assertEquals(-1, p.ird());
    assertArrayEquals(hex("ab cd"), p.privateData());
  }

  @Test
  void rtrFlagsAreIgnoredWhenAIsZero() {
    ByteBuf b = Hex.buf(REQUEST_KEY + " 10 02 00 04 40 05 c0 06");
    frame.wrap(b, 0);
    MpaPeerParameters p = StartupFrames.decode(frame);
    assertFalse(p.peerToPeer());
    assertTrue(p.rtrTypes().isEmpty());
    assertEquals(5, p.ird());
    assertEquals(6, p.ord());
  }

  @Test
  void everyKeyOctetIsCompared() {
    for (int i = 0; i < 16; i++) {
      ByteBuf b = Hex.buf(SIW_REQUEST);
      b.setByte(i, b.getByte(i) ^ 0x80);
      frame.wrap(b, 0);
      assertEquals(MpaStartupFrame.Kind.UNKNOWN, frame.kind(), "octet " + i);
      String reason = frame.checkHeader(MpaStartupFrame.Kind.REQUEST);
      assertNotNull(reason);
      assertTrue(reason.startsWith("bad key"), reason);
    }
  }

  @Test
  void requestWhereReplyExpectedIsACollision() {
    frame.wrap(Hex.buf(SIW_REQUEST), 0);
    String reason = frame.checkHeader(MpaStartupFrame.Kind.REPLY);
    assertTrue(reason.contains("initiator/initiator collision"), reason);
  }

  @Test
  void replyWhereRequestExpectedIsABadKey() {
    frame.wrap(Hex.buf(SPEC_REPLY), 0);
    assertTrue(frame.checkHeader(MpaStartupFrame.Kind.REQUEST).startsWith("bad key"));
  }

  /**
   * A TLS ClientHello where a Request is expected (a TLS client of a listener without TLS), and a
   * TLS alert where a Reply is expected (a client without TLS answered by a TLS listener), are
   * named as TLS: record header type 22 or 21, version major 3 (RFC 8446 §5.1).
   */
  @Test
  void tlsRecordsInPlaceOfAStartupFrameAreNamed() {
    // The first 20 octets of a TLS 1.3 ClientHello: record header, then the handshake header.
    frame.wrap(Hex.buf("16 03 01 01 2c 01 00 01 28 03 03 5e 7a 11 02 9c 44 10 20 aa"), 0);
    String reason = frame.checkHeader(MpaStartupFrame.Kind.REQUEST);
    assertTrue(reason.startsWith("bad key 16 03 01 01") && reason.contains("TLS handshake record"),
        reason);
    ByteBuf alert = Hex.buf("15 03 03 00 02 02 0a");
    assertTrue(MpaStartupFrame.tlsRecordHint(alert, 0, 7).contains("TLS alert record: the peer"
        + " expects TLS"), MpaStartupFrame.tlsRecordHint(alert, 0, 7));
    // Not TLS: an MPA Reply key, a record type outside 21/22, a version that is not 3.x, too short.
    assertEquals("", MpaStartupFrame.tlsRecordHint(Hex.buf(REPLY_KEY + " 00 01 00 00"), 0, 20));
    assertEquals("", MpaStartupFrame.tlsRecordHint(Hex.buf("17 03 03 00 10"), 0, 5));
    assertEquals("", MpaStartupFrame.tlsRecordHint(Hex.buf("16 02 00 00 10"), 0, 5));
    assertEquals("", MpaStartupFrame.tlsRecordHint(Hex.buf("15 03"), 0, 2));
    // A bad key that is no TLS record says nothing of TLS.
    ByteBuf b = Hex.buf(SIW_REQUEST);
    b.setByte(0, 0x16);
    frame.wrap(b, 0);
    assertFalse(frame.checkHeader(MpaStartupFrame.Kind.REQUEST).contains("TLS"));
  }

  @Test
  void revisionsZeroAndThreeAreUnusable() {
    frame.wrap(Hex.buf(REQUEST_KEY + " 00 00 00 00"), 0);
    assertTrue(frame.checkHeader(MpaStartupFrame.Kind.REQUEST).contains("revision 0"));
    frame.wrap(Hex.buf(REQUEST_KEY + " 00 03 00 00"), 0);
    assertTrue(frame.checkHeader(MpaStartupFrame.Kind.REQUEST).contains("revision 3"));
  }

  @Test
  void pdLengthAbove512IsRejectedAnd512Accepted() {
    frame.wrap(Hex.buf(REQUEST_KEY + " 00 01 02 01"), 0);
    assertTrue(frame.checkHeader(MpaStartupFrame.Kind.REQUEST).contains("PD_Length 513"));
    frame.wrap(Hex.buf(REQUEST_KEY + " 00 01 02 00"), 0);
    assertNull(frame.checkHeader(MpaStartupFrame.Kind.REQUEST));
  }

  @Test
  void enhancedFrameNeedsFourOctets() {
    frame.wrap(Hex.buf(REQUEST_KEY + " 10 02 00 03 00 00 00"), 0);
    assertTrue(frame.checkHeader(MpaStartupFrame.Kind.REQUEST).contains("too short"));
  }

  @Test
  void writerRefusesReservedBitsAndOversizedPrivateData() {
    ByteBuf out = Unpooled.buffer();
    assertThrows(IllegalArgumentException.class, () ->
        MpaStartupFrame.writeHeader(out, MpaStartupFrame.Kind.REQUEST, 0x08, 2, 0));
    assertThrows(IllegalArgumentException.class, () ->
        MpaStartupFrame.writeHeader(out, MpaStartupFrame.Kind.REQUEST, 0, 2, 513));
    assertThrows(IllegalArgumentException.class, () ->
        MpaStartupFrame.writeHeader(out, MpaStartupFrame.Kind.UNKNOWN, 0, 2, 0));
    assertEquals(0, out.readableBytes());
  }

  @Test
  void requestNeverCarriesR() {
    MpaPeerParameters p = new MpaPeerParameters(1, false, false, true, false, false, Set.of(), -1,
        -1, new byte[0]);
    assertEquals(REQUEST_KEY + " 00 01 00 00", encode(MpaStartupFrame.Kind.REQUEST, p));
    assertEquals(REPLY_KEY + " 20 01 00 00", encode(MpaStartupFrame.Kind.REPLY, p));
  }

  static String encode(MpaStartupFrame.Kind kind, MpaPeerParameters p) {
    ByteBuf out = Unpooled.buffer();
    int n = StartupFrames.encode(out, kind, p);
    assertEquals(out.readableBytes(), n);
    return toHex(Hex.bytes(out));
  }
}
