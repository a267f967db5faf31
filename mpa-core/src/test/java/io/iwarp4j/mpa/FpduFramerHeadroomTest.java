package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * Without Markers the framer copies ULPDU_Length, header, a small payload and the trailer into
 * one outgoing buffer: octets before a header's reader index change nothing on the wire
 * (checked against the reference model), and a flush of small FPDUs is one buffer.
 */
class FpduFramerHeadroomTest {

  private static ByteBuf header(int headroom, int length, int seed) {
    ByteBuf h = Unpooled.directBuffer(headroom + length);
    h.writerIndex(headroom).readerIndex(headroom);
    for (int i = 0; i < length; i++) {
      h.writeByte(seed + i);
    }
    return h;
  }

  private static ByteBuf payload(int length) {
    ByteBuf p = Unpooled.directBuffer(length);
    for (int i = 0; i < length; i++) {
      p.writeByte(i * 7 + 3);
    }
    return p;
  }

  /** Frames two FPDUs (header 18 + payload 1, header 14 + payload 64); returns wire, buffers. */
  private static Object[] frame(boolean crc, int headroom) {
    try (FramingHarness.Sender s = new FramingHarness.Sender()) {
      FpduFramer f = s.framer(crc, false, 1024);
      f.write(header(headroom, 18, 0x10), payload(1));
      f.write(header(headroom, 14, 0x40), payload(64));
      f.flush();
      int buffers = s.channel.outboundMessages().size();
      return new Object[] {s.drain(), buffers};
    }
  }

  @Test
  void headroomOrNotTheSameOctetsGoOutInOneBuffer() {
    for (boolean crc : new boolean[] {true, false}) {
      Object[] separate = frame(crc, 0);
      Object[] joined = frame(crc, 2);
      assertArrayEquals((byte[]) separate[0], (byte[]) joined[0], "crc " + crc);
      assertEquals(1, (int) separate[1], "two small FPDUs, one outgoing buffer");
      assertEquals(1, (int) joined[1], "two small FPDUs, one outgoing buffer");
    }
  }

  @Test
  void theWireMatchesTheReferenceModel() {
    for (boolean crc : new boolean[] {true, false}) {
      byte[] wire = (byte[]) frame(crc, 2)[0];
      byte[] ulpdu1 = new byte[18 + 1];
      for (int i = 0; i < 18; i++) {
        ulpdu1[i] = (byte) (0x10 + i);
      }
      ulpdu1[18] = 3;
      byte[] ulpdu2 = new byte[14 + 64];
      for (int i = 0; i < 14; i++) {
        ulpdu2[i] = (byte) (0x40 + i);
      }
      for (int i = 0; i < 64; i++) {
        ulpdu2[14 + i] = (byte) (i * 7 + 3);
      }
      assertArrayEquals(ReferenceFpdu.encode(java.util.List.of(ulpdu1, ulpdu2), crc, false),
          wire, "crc " + crc);
    }
  }

  @Test
  void ulpduLimitWithMarkersIsMulpduOfTheLargestEmss() {
    // 65535 - (6 + 4 * ceil(65535 / 512) + 65535 mod 4) = 65535 - (6 + 512 + 3)
    assertEquals(65014, FpduFramer.MAX_ULPDU_LENGTH_WITH_MARKERS);
  }
}
