package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.FramingHarness.Receiver;
import io.iwarp4j.mpa.FramingHarness.Sender;
import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Byte-exact FPDUs from mpa.md §9 and from Linux siw captures (docs/interop.md, siw findings §5,
 * §6): each is encoded by the framer and compared octet for octet, and decoded by the deframer
 * (in one read and one octet per read) and compared with the ULPDU.
 */
class FpduVectorsTest {

  /**
   * @param name where the vector comes from
   * @param wire the complete FPDU (Markers included)
   * @param headerLength how many ULPDU octets to pass as the header (the rest is payload)
   */
  record Vector(String name, boolean crc, boolean markers, int headerLength, String wire) {
    byte[] bytes() {
      return Hex.hex(wire);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> vectors() {
    return Stream.of(
        // mpa.md §9.3: RTR as a zero-length RDMA Write, CRC 0x5F4CD3EB.
        new Vector("mpa.md 9.3 zero-length Write RTR", true, false, 14,
            "00 0e | c1 40 | 00 00 00 01 | 00 00 00 00 00 00 00 00 | eb d3 4c 5f"),
        // mpa.md §9.4: Send "hello", PAD 3, CRC 0x0CB190B9.
        new Vector("mpa.md 9.4 Send hello", true, false, 18,
            "00 17 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
                + "68 65 6c 6c 6f 00 00 00 | b9 90 b1 0c"),
        // mpa.md §9.5: the same as the first FPDU of a Marker-enabled direction.
        new Vector("mpa.md 9.5 Send hello with leading Marker", true, true, 18,
            "00 00 00 00 | 00 17 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
                + "68 65 6c 6c 6f 00 00 00 | 7a 61 e9 71"),
        // mpa.md §9.6: Terminate for a CRC error (2/0/0x02).
        new Vector("mpa.md 9.6 Terminate", true, false, 18,
            "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 | 20 02 00 00"
                + "| 7f e4 25 85"),
        // docs/interop.md, siw finding §5: ping 0 of rping over siw with C=1 (these are its
        // octets).
        new Vector("siw h2g Send buf advert", true, false, 18,
            "00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
                + "00 00 00 00 00 01 00 00 00 c0 ff ee 00 00 00 40 | 97 cd a9 ed"),
        new Vector("siw h2g Read Request", true, false, 46,
            "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00"
                + "11 fe 79 00 00 00 56 29 1d a5 b1 30 00 00 00 40 00 c0 ff ee"
                + "00 00 00 00 00 01 00 00 | db 01 74 dd"),
        new Vector("siw h2g Read Response", true, false, 14,
            "00 4e c1 42 11 fe 79 00 00 00 56 29 1d a5 b1 30"
                + "72 64 6d 61 2d 70 69 6e 67 2d 30 3a 20 41 42 43"
                + "44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51 52 53"
                + "54 55 56 57 58 59 5a 5b 5c 5d 5e 5f 60 61 62 63"
                + "64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 00 | 42 37 f0 56"),
        new Vector("siw h2g Send go-ahead", true, false, 18,
            "00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
                + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 | 84 60 9a 12"),
        new Vector("siw h2g Send write-buf advert", true, false, 18,
            "00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00"
                + "00 00 00 00 00 02 00 00 00 be ef 01 00 00 00 40 | 2f 05 f3 49"),
        new Vector("siw h2g RDMA Write", true, false, 14,
            "00 4e c1 40 00 be ef 01 00 00 00 00 00 02 00 00"
                + "72 64 6d 61 2d 70 69 6e 67 2d 30 3a 20 41 42 43"
                + "44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51 52 53"
                + "54 55 56 57 58 59 5a 5b 5c 5d 5e 5f 60 61 62 63"
                + "64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 00 | 4c c4 e6 80"),
        new Vector("siw h2g Send done", true, false, 18,
            "00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00"
                + "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 | b3 e6 84 05"),
        // docs/interop.md, siw finding §6: siw as initiator after a Reply that imposed C=1
        // (the lab's connection 2, siw's first Send; these are its octets).
        new Vector("siw g2h Send with responder-imposed CRC", true, false, 18,
            "00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
                + "00 00 55 f5 85 1c f4 60 20 27 8d 00 00 00 00 40 | b1 b2 91 f5"),
        // docs/interop.md, siw finding §6: siw without CRC sends a zero CRC field (the lab's
        // connection 1, first Send).
        new Vector("siw g2h Send without CRC", false, false, 18,
            "00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"
                + "00 00 55 a0 cb b3 34 60 82 e3 7f 00 00 00 00 40 | 00 00 00 00")
    ).map(Arguments::of);
  }

  /** The ULPDU a single-FPDU vector carries, recovered by the independent reference model. */
  private static byte[] ulpduOf(Vector v) {
    List<byte[]> ulpdus = ReferenceFpdu.decodeStrict(v.bytes(), v.crc(), v.markers());
    assertEquals(1, ulpdus.size(), "vector holds one FPDU");
    return ulpdus.get(0);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void framerProducesTheVectorOctetForOctet(Vector v) {
    byte[] ulpdu = ulpduOf(v);
    try (Sender s = new Sender()) {
      FpduFramer framer = s.framer(v.crc(), v.markers(), 65014);
      ByteBuf header = Unpooled.directBuffer().writeBytes(ulpdu, 0, v.headerLength());
      ByteBuf payload = Unpooled.buffer().writeBytes(ulpdu, v.headerLength(),
          ulpdu.length - v.headerLength());
      framer.write(header, payload);
      framer.flush();
      assertEquals(Hex.format(v.bytes()), Hex.format(s.drain()));
      assertEquals(v.bytes().length, framer.streamPosition());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void framerProducesTheVectorFromAGatherList(Vector v) {
    byte[] ulpdu = ulpduOf(v);
    try (Sender s = new Sender()) {
      FpduFramer framer = s.framer(v.crc(), v.markers(), 65014);
      int payloadLength = ulpdu.length - v.headerLength();
      framer.beginFpdu(Unpooled.wrappedBuffer(ulpdu, 0, v.headerLength()), payloadLength);
      // One piece per octet, plus empty pieces: the CRC must not depend on how it was gathered.
      for (int i = 0; i < payloadLength; i++) {
        framer.addPayload(Unpooled.wrappedBuffer(ulpdu, v.headerLength() + i, 1));
        framer.addPayload(Unpooled.EMPTY_BUFFER);
      }
      framer.endFpdu();
      framer.flush();
      assertArrayEquals(v.bytes(), s.drain());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void deframerDeliversTheVectorsUlpdu(Vector v) {
    byte[] ulpdu = ulpduOf(v);
    try (Receiver r = new Receiver(v.crc(), v.markers())) {
      r.feed(v.bytes());
      assertEquals(1, r.listener.ulpdus.size());
      assertArrayEquals(ulpdu, r.listener.ulpdus.get(0));
      assertTrue(r.listener.errors.isEmpty(), () -> r.listener.errors.toString());
      assertEquals(v.bytes().length, r.deframer.streamPosition());
      assertTrue(r.allFedReleased());
    }
    try (Receiver r = new Receiver(v.crc(), v.markers())) {
      r.direct = false;
      r.feedChunked(v.bytes(), new int[] {1});
      assertEquals(1, r.listener.ulpdus.size());
      assertArrayEquals(ulpdu, r.listener.ulpdus.get(0));
      assertTrue(r.listener.errors.isEmpty(), () -> r.listener.errors.toString());
      assertTrue(r.allFedReleased());
    }
  }

  @Test
  void crcReferenceValuesMatchTheModelAndTheJdk() {
    // iSCSI vectors (RFC 3720 B.4) as they appear in the CRC field: LSB first.
    assertEquals("aa 36 91 8a", Hex.format(ReferenceFpdu.crcField(
        ReferenceFpdu.crc32c(new byte[32], 0, 32))));
    byte[] ones = new byte[32];
    Arrays.fill(ones, (byte) 0xFF);
    assertEquals("43 ab a8 62", Hex.format(ReferenceFpdu.crcField(
        ReferenceFpdu.crc32c(ones, 0, 32))));
    byte[] ramp = new byte[32];
    for (int i = 0; i < 32; i++) {
      ramp[i] = (byte) i;
    }
    assertEquals("4e 79 dd 46", Hex.format(ReferenceFpdu.crcField(
        ReferenceFpdu.crc32c(ramp, 0, 32))));
    byte[] check = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertEquals(0xE3069283, ReferenceFpdu.crc32c(check, 0, check.length));
  }
}
