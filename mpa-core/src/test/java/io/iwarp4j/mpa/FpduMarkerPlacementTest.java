package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.FramingHarness.Receiver;
import io.iwarp4j.mpa.FramingHarness.Sender;
import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.iwarp4j.testing.Hex;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where Markers go (RFC 5044 §4.3, mpa.md §4.3.2–§4.3.4): the worked layout, and each place a
 * Marker can fall — before the ULPDU_Length, inside the DDP header, between PAD and CRC — plus
 * the deferral of a Marker due right after a CRC.
 */
class FpduMarkerPlacementTest {

  private static byte[] ramp(int length, int seed) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (i * 7 + seed);
    }
    return b;
  }

  private static byte[] frame(boolean crc, int... lengths) {
    try (Sender s = new Sender()) {
      FpduFramer framer = s.framer(crc, true, FpduFramer.MAX_ULPDU_LENGTH_WITH_MARKERS);
      for (int i = 0; i < lengths.length; i++) {
        byte[] u = ramp(lengths[i], i);
        int h = Math.min(18, u.length);
        framer.write(Unpooled.wrappedBuffer(u, 0, h), Unpooled.wrappedBuffer(u, h, u.length - h));
      }
      framer.flush();
      byte[] wire = s.drain();
      assertEquals(wire.length, framer.streamPosition());
      return wire;
    }
  }

  private static String octets(byte[] wire, int from, int to) {
    return Hex.format(Arrays.copyOfRange(wire, from, to));
  }

  @Test
  void workedLayoutOfSection434() {
    // SeqStart 0, first FPDU with ULPDU_Length 600, then a second one of 600.
    byte[] wire = frame(true, 600, 600);
    assertEquals("00 00 00 00", octets(wire, 0, 4), "Marker at SeqStart, FPDUPTR 0");
    assertEquals("02 58", octets(wire, 4, 6), "ULPDU_Length 600");
    assertEquals("00 00 01 fc", octets(wire, 512, 516), "Marker at 512, FPDUPTR 508");
    assertEquals("00 00", octets(wire, 610, 612), "PAD of 2");
    int crc = ReferenceFpdu.crc32c(wire, 0, 612);
    assertEquals(Hex.format(ReferenceFpdu.crcField(crc)), octets(wire, 612, 616),
        "CRC over octets 0..611, both Markers included");
    // The next FPDU starts at 616, unmarked; the next Marker is at 1024, 408 octets after it.
    assertEquals("02 58", octets(wire, 616, 618));
    assertEquals("00 00 01 98", octets(wire, 1024, 1028));
    assertEquals(616 + 2 + 600 + 2 + 4 + 4, wire.length);
    assertEquals(2, ReferenceFpdu.decodeStrict(wire, true, true).size());
  }

  @Test
  void markerBetweenPadAndCrc() {
    // 4 (Marker) + 2 + 505 + PAD 1 = 512: the Marker due at 512 precedes the CRC.
    byte[] wire = frame(true, 505);
    assertEquals("00", octets(wire, 511, 512), "PAD");
    assertEquals("00 00 01 fc", octets(wire, 512, 516), "FPDUPTR 512 - 4");
    assertEquals(Hex.format(ReferenceFpdu.crcField(ReferenceFpdu.crc32c(wire, 0, 516))),
        octets(wire, 516, 520), "the CRC covers the Marker before it");
    assertEquals(520, wire.length);
  }

  @Test
  void markerInsideTheDdpHeaderTwoOctetsAfterTheLength() {
    // First FPDU: 4 + 2 + 498 + 4 = 508. The second starts at 508: ULPDU_Length at 508..509,
    // ULPDU octets 0 and 1 at 510..511, then the Marker at 512 with FPDUPTR 4.
    byte[] wire = frame(true, 498, 40);
    assertEquals("00 28", octets(wire, 508, 510));
    assertEquals("00 00 00 04", octets(wire, 512, 516));
    List<byte[]> ulpdus = ReferenceFpdu.decodeStrict(wire, true, true);
    assertArrayEquals(ramp(40, 1), ulpdus.get(1));
  }

  @Test
  void markerDueRightAfterACrcIsDeferredToTheNextFpdu() {
    // 4 + 2 + 502 + 4 = 512: the FPDU ends exactly on the grid.
    byte[] alone = frame(true, 502);
    assertEquals(512, alone.length, "no Marker is sent when no FPDU follows");
    byte[] wire = frame(true, 502, 10);
    assertArrayEquals(alone, Arrays.copyOf(wire, 512));
    assertEquals("00 00 00 00 00 0a", octets(wire, 512, 518),
        "the deferred Marker leads the next FPDU with FPDUPTR 0");
    int crc = ReferenceFpdu.crc32c(wire, 512, 4 + 2 + 10 + 0 + 4 - 4);
    assertEquals(Hex.format(ReferenceFpdu.crcField(crc)), octets(wire, 528, 532),
        "and is covered by that FPDU's CRC");
  }

  @Test
  void markersInsideOneFpduAllPointAtItsLength() {
    byte[] wire = frame(false, 3000);
    for (int p = 512; p < wire.length - 4; p += 512) {
      int ptr = (wire[p + 2] & 0xFF) << 8 | (wire[p + 3] & 0xFF);
      assertEquals(p - 4, ptr, "Marker at " + p);
    }
  }

  @Test
  void placementCasesDecode() {
    for (int[] lengths : new int[][] {{600, 600}, {505}, {498, 40}, {502, 10}, {3000}}) {
      for (boolean crc : new boolean[] {true, false}) {
        byte[] wire = frame(crc, lengths);
        try (Receiver r = new Receiver(crc, true)) {
          r.feedChunked(wire, new int[] {1, 3, 7, 512, 2});
          assertEquals(lengths.length, r.listener.ulpdus.size());
          for (int i = 0; i < lengths.length; i++) {
            assertArrayEquals(ramp(lengths[i], i), r.listener.ulpdus.get(i));
          }
          assertTrue(r.listener.errors.isEmpty(), () -> r.listener.errors.toString());
          assertTrue(r.allFedReleased());
        }
      }
    }
  }
}
