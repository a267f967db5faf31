package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.FramingHarness.Receiver;
import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Protocol violations and ends of input (RFC 5044 §5.2, §8): each reports exactly one
 * {@link MpaError}, delivers nothing unverified, delivers nothing after the error, and leaks
 * nothing.
 */
class FpduDeframerErrorsTest {

  private static byte[] ramp(int length, int seed) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (i * 13 + seed);
    }
    return b;
  }

  /** Two FPDUs (ULPDU_Length 600 and 40) as a stream from position 0. */
  private static byte[] twoFpdus(boolean crc, boolean markers) {
    return ReferenceFpdu.encode(List.of(ramp(600, 1), ramp(40, 2)), crc, markers);
  }

  /** Octets of the first FPDU of {@link #twoFpdus}: 2 + 600 + 2 + 4, plus 2 Markers. */
  private static int firstFpduLength(boolean markers) {
    return 608 + (markers ? 8 : 0);
  }

  /** Rewrites the CRC field of the FPDU occupying wire[from, to) to match its content. */
  private static void fixCrc(byte[] wire, int from, int to) {
    byte[] field = ReferenceFpdu.crcField(ReferenceFpdu.crc32c(wire, from, to - from - 4));
    System.arraycopy(field, 0, wire, to - 4, 4);
  }

  private static void assertOneError(Receiver r, MpaError expected) {
    assertEquals(1, r.listener.errors.size(), () -> r.listener.errors.toString());
    assertSame(expected, r.listener.errors.get(0).error(), () -> r.listener.errors.toString());
    assertTrue(r.deframer.isFailed());
    assertEquals(0, r.deframer.heldBufferCount());
    assertEquals(0, r.deframer.heldCapacity());
    assertTrue(r.allFedReleased(), "every read buffer released");
  }

  /** Feeds a valid FPDU after the error: it must be released unread and not delivered. */
  private static void assertLaterInputDropped(Receiver r, boolean crc, boolean markers) {
    int delivered = r.listener.ulpdus.size();
    long position = r.deframer.streamPosition();
    r.feed(ReferenceFpdu.encode(List.of(ramp(20, 9)), crc, markers));
    assertEquals(delivered, r.listener.ulpdus.size(), "nothing delivered after an error");
    assertEquals(1, r.listener.errors.size(), "the error is reported once");
    assertEquals(position, r.deframer.streamPosition(), "input after an error is not parsed");
    assertTrue(r.allFedReleased());
  }

  @Test
  void corruptedCrcFieldIsCrcMismatch() {
    byte[] wire = twoFpdus(true, false);
    wire[firstFpduLength(false) - 1] ^= 0x01;
    try (Receiver r = new Receiver(true, false)) {
      r.feed(wire);
      assertOneError(r, MpaError.CRC_MISMATCH);
      assertTrue(r.listener.ulpdus.isEmpty(), "neither the bad FPDU nor the next one delivered");
      assertLaterInputDropped(r, true, false);
    }
  }

  @Test
  void corruptedPayloadWithCrcIsCrcMismatchEvenWhenSplitOverReads() {
    for (boolean markers : new boolean[] {false, true}) {
      byte[] wire = twoFpdus(true, markers);
      wire[300] ^= 0x40;
      try (Receiver r = new Receiver(true, markers)) {
        r.feedChunked(wire, new int[] {1, 100, 7});
        assertOneError(r, MpaError.CRC_MISMATCH);
        assertTrue(r.listener.ulpdus.isEmpty());
        assertLaterInputDropped(r, true, markers);
      }
    }
  }

  @Test
  void corruptedCrcOfTheSecondFpduDeliversOnlyTheFirst() {
    byte[] wire = twoFpdus(true, false);
    wire[wire.length - 2] ^= 0x10;
    try (Receiver r = new Receiver(true, false)) {
      r.feed(wire);
      assertEquals(1, r.listener.ulpdus.size());
      assertArrayEquals(ramp(600, 1), r.listener.ulpdus.get(0));
      assertOneError(r, MpaError.CRC_MISMATCH);
    }
  }

  @Test
  void withoutCrcTheFieldIsIgnored() {
    byte[] wire = twoFpdus(false, false);
    wire[firstFpduLength(false) - 4] = 0x55;
    wire[wire.length - 1] = (byte) 0xAA;
    try (Receiver r = new Receiver(false, false)) {
      r.feed(wire);
      assertEquals(2, r.listener.ulpdus.size());
      assertTrue(r.listener.errors.isEmpty());
    }
  }

  @Test
  void wrongFpduPtrWithValidCrcIsMarkerMismatch() {
    byte[] wire = twoFpdus(true, true);
    // The Marker at 512 must say 508; make it 512 and keep the CRC valid.
    wire[514] = 0x02;
    wire[515] = 0x00;
    fixCrc(wire, 0, firstFpduLength(true));
    try (Receiver r = new Receiver(true, true)) {
      r.feed(wire);
      assertOneError(r, MpaError.MARKER_MISMATCH);
      assertTrue(r.listener.ulpdus.isEmpty());
      assertLaterInputDropped(r, true, true);
    }
  }

  @Test
  void nonZeroLeadingMarkerIsMarkerMismatch() {
    byte[] wire = twoFpdus(false, true);
    wire[3] = 0x04;
    try (Receiver r = new Receiver(false, true)) {
      r.feedChunked(wire, new int[] {2});
      assertOneError(r, MpaError.MARKER_MISMATCH);
      assertTrue(r.listener.ulpdus.isEmpty());
    }
  }

  @Test
  void badCrcWinsOverABadMarker() {
    byte[] wire = twoFpdus(true, true);
    wire[515] = 0x00;
    try (Receiver r = new Receiver(true, true)) {
      r.feed(wire);
      assertOneError(r, MpaError.CRC_MISMATCH);
    }
  }

  @Test
  void fpduPtrLowBitsAndReservedAreIgnored() {
    byte[] wire = twoFpdus(true, true);
    wire[512] = 0x7F; // RESERVED
    wire[515] |= 0x03; // FPDUPTR 508 | 3
    fixCrc(wire, 0, firstFpduLength(true));
    try (Receiver r = new Receiver(true, true)) {
      r.feed(wire);
      assertEquals(2, r.listener.ulpdus.size());
      assertTrue(r.listener.errors.isEmpty(), () -> r.listener.errors.toString());
    }
  }

  @Test
  void finInsideAnFpduIsTcpConnectionLost() {
    byte[] wire = twoFpdus(true, false);
    try (Receiver r = new Receiver(true, false)) {
      r.feed(wire, 0, 100);
      r.channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
      assertOneError(r, MpaError.TCP_CONNECTION_LOST);
      assertEquals(0, r.listener.inputClosed);
      assertTrue(r.listener.ulpdus.isEmpty());
      r.channel.close();
      assertEquals(1, r.listener.errors.size(), "channelInactive reports nothing more");
    }
  }

  @Test
  void connectionLossInsideAnFpduIsTcpConnectionLost() {
    byte[] wire = twoFpdus(false, true);
    try (Receiver r = new Receiver(false, true)) {
      // The first FPDU and the first 5 octets of the second.
      r.feed(wire, 0, firstFpduLength(true) + 5);
      r.channel.close();
      assertEquals(1, r.listener.ulpdus.size());
      assertOneError(r, MpaError.TCP_CONNECTION_LOST);
    }
  }

  @Test
  void finAfterOnlyALeadingMarkerIsTcpConnectionLost() {
    byte[] wire = twoFpdus(false, true);
    try (Receiver r = new Receiver(false, true)) {
      r.feed(wire, 0, 4);
      r.channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
      assertOneError(r, MpaError.TCP_CONNECTION_LOST);
    }
  }

  @Test
  void cleanFinAtAnFpduBoundaryIsInputClosedOnce() {
    byte[] wire = twoFpdus(true, true);
    try (Receiver r = new Receiver(true, true)) {
      r.feed(wire);
      r.channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
      assertEquals(1, r.listener.inputClosed);
      r.channel.close();
      assertEquals(1, r.listener.inputClosed, "channelInactive after the FIN adds nothing");
      assertTrue(r.listener.errors.isEmpty());
      assertEquals(2, r.listener.ulpdus.size());
      assertTrue(r.allFedReleased());
    }
    try (Receiver r = new Receiver(true, false)) {
      r.channel.close();
      assertEquals(1, r.listener.inputClosed, "close before any FPDU is at a boundary");
      assertTrue(r.listener.errors.isEmpty());
    }
  }

  @Test
  void userEventsAndOtherMessagesPassThrough() {
    try (Receiver r = new Receiver(true, false)) {
      r.channel.pipeline().fireUserEventTriggered("custom");
      r.channel.pipeline().fireChannelRead("not a buffer");
      assertEquals("not a buffer", r.channel.readInbound());
      assertNull(r.channel.readInbound());
    }
  }

  @Test
  void listenerFailureGoesToTheExceptionChainAndTheStreamContinues() {
    byte[] wire = twoFpdus(true, false);
    RuntimeException boom = new IllegalStateException("listener bug");
    try (Receiver r = new Receiver(true, false)) {
      r.deframer.setListener(new RecordingUlpduListener() {
        @Override
        public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
          super.onUlpdu(ctx, ulpdu);
          if (ulpdus.size() == 1) {
            throw boom;
          }
        }
      });
      r.channel.pipeline().fireChannelRead(Unpooled.wrappedBuffer(wire));
      Exception thrown = assertThrows(Exception.class, r.channel::checkException);
      assertSame(boom, thrown);
      assertEquals(2, r.deframer.fpdusDelivered());
      assertEquals(0, r.deframer.heldBufferCount());
    }
  }

  @Test
  void handlerRemovalReleasesAPartialFpdu() {
    byte[] wire = twoFpdus(true, false);
    try (Receiver r = new Receiver(true, false)) {
      r.feedChunked(Arrays.copyOf(wire, 300), new int[] {100});
      assertEquals(3, r.deframer.heldBufferCount());
      r.channel.pipeline().remove(r.deframer);
      assertEquals(0, r.deframer.heldBufferCount());
      assertTrue(r.allFedReleased());
    }
  }

  @Test
  void nullListenerIsRejected() {
    assertInstanceOf(NullPointerException.class,
        assertThrows(NullPointerException.class, () -> new FpduDeframer(true, false, null)));
  }
}
