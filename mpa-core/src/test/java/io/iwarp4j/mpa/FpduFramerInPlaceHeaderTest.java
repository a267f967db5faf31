package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A header written in place ({@link FpduFramer#beginFpduInPlace}) puts the same octets on the
 * wire as the same header handed over in a buffer, for a copied (small) and a zero-copy (large)
 * payload, CRC on and off; a caller that writes the wrong number of header octets is told so;
 * with Markers on there is no in-place header.
 */
class FpduFramerInPlaceHeaderTest {
  private static final int SMALL = 64;
  private static final int LARGE = FpduFramer.INLINE_THRESHOLD + 100;

  private static byte[] header(int length, int seed) {
    byte[] h = new byte[length];
    for (int i = 0; i < length; i++) {
      h[i] = (byte) (seed + i);
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

  private static byte[] ulpdu(byte[] header, int payloadLength) {
    byte[] u = new byte[header.length + payloadLength];
    System.arraycopy(header, 0, u, 0, header.length);
    for (int i = 0; i < payloadLength; i++) {
      u[header.length + i] = (byte) (i * 7 + 3);
    }
    return u;
  }

  /** Frames header 14 + SMALL, header 18 + LARGE, header 28 + 0, in place or not. */
  private static byte[] frame(boolean crc, boolean inPlace) {
    try (FramingHarness.Sender s = new FramingHarness.Sender()) {
      FpduFramer f = s.framer(crc, false, 8192);
      int[][] shapes = {{14, SMALL}, {18, LARGE}, {28, 0}};
      for (int[] shape : shapes) {
        byte[] h = header(shape[0], 0x10 * shape[0]);
        if (inPlace) {
          ByteBuf out = f.beginFpduInPlace(shape[0], shape[1]);
          assertNotNull(out, "no Markers: the header goes in place");
          out.writeBytes(h);
        } else {
          f.beginFpdu(Unpooled.wrappedBuffer(h), shape[1]);
        }
        if (shape[1] > 0) {
          ByteBuf p = payload(shape[1]);
          f.addPayload(p, 0, shape[1]);
          p.release();
        }
        f.endFpdu();
      }
      f.flush();
      return s.drain();
    }
  }

  @Test
  void inPlaceOrNotTheWireIsTheSameAndMatchesTheReferenceModel() {
    for (boolean crc : new boolean[] {true, false}) {
      byte[] inPlace = frame(crc, true);
      assertArrayEquals(frame(crc, false), inPlace, "crc " + crc);
      List<byte[]> ulpdus = List.of(ulpdu(header(14, 0xE0), SMALL),
          ulpdu(header(18, 0x120), LARGE), ulpdu(header(28, 0x1C0), 0));
      assertArrayEquals(ReferenceFpdu.encode(ulpdus, crc, false), inPlace, "crc " + crc);
    }
  }

  @Test
  void aHeaderOfTheWrongLengthIsRefused() {
    try (FramingHarness.Sender s = new FramingHarness.Sender()) {
      FpduFramer f = s.framer(true, false, 8192);
      ByteBuf out = f.beginFpduInPlace(14, 4);
      out.writeBytes(header(12, 1));
      ByteBuf p = payload(4);
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> f.addPayload(p, 0, 4));
      org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("12 header octets"),
          e.getMessage());
      p.release();
      f.flush();
      s.drain();
    }
  }

  @Test
  void withMarkersTheHeaderIsNeverInPlace() {
    try (FramingHarness.Sender s = new FramingHarness.Sender()) {
      FpduFramer f = s.framer(true, true, 8192);
      assertNull(f.beginFpduInPlace(14, 4));
      // Nothing was opened: the buffer path still works.
      f.beginFpdu(Unpooled.wrappedBuffer(header(14, 1)), 0);
      f.endFpdu();
      f.flush();
      s.drain();
    }
  }
}
