package io.iwarp4j.ddp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.testing.RecordingUntaggedListener;
import io.iwarp4j.ddp.testing.RecordingUntaggedListener.Error;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Data Sink validation of untagged segments (RFC 5041 §7.1 U1-U6, §7.2 codes): one crafted
 * segment per error code, each checked for the exact code, the echoed header and segment length,
 * an untouched target buffer (guard octets included), and silence afterwards.
 */
class UntaggedValidationTest {
  private static final int GUARD = 16;
  private static final int REGION = 32;
  private static final long BUFFER_ID = 77;
  private static final long RSVD_SEND = 0x43_0000_0000L;

  private RecordingUntaggedListener listener;
  private UntaggedDispatcher dispatcher;
  private ByteBuf target;
  private byte[] before;

  @BeforeEach
  void setUp() {
    listener = new RecordingUntaggedListener();
    dispatcher = new UntaggedDispatcher(listener);
    // 16 guard octets | 32-octet posted region | 16 guard octets, all patterned.
    target = Unpooled.buffer(GUARD + REGION + GUARD);
    for (int i = 0; i < target.capacity(); i++) {
      target.writeByte(0xE0 | (i & 0x0F));
    }
    before = snapshot();
    dispatcher.enableQueue(0, 4).post(target, GUARD, REGION, BUFFER_ID);
    dispatcher.enableQueue(1, 4); // enabled, nothing posted
  }

  @AfterEach
  void tearDown() {
    target.release();
  }

  private byte[] snapshot() {
    byte[] b = new byte[target.capacity()];
    target.getBytes(0, b);
    return b;
  }

  /** Builds one untagged segment with a patterned payload. */
  private static ByteBuf segment(int control, long rsvdUlp, int qn, int msn, int mo, int payload) {
    ByteBuf b = Unpooled.buffer(UntaggedHeader.LENGTH + payload);
    UntaggedHeader.write(b, true, rsvdUlp, qn, msn, mo);
    b.setByte(0, control);
    for (int i = 0; i < payload; i++) {
      b.writeByte(0x30 + i);
    }
    return b;
  }

  /** Feeds {@code seg} (split into two pieces) to the dispatcher and releases it. */
  private void receive(ByteBuf seg) {
    try {
      int cut = seg.readableBytes() / 2;
      dispatcher.onSegment(cut == 0 ? UlpduPieces.ulpdu(seg) : UlpduPieces.ulpdu(seg, cut));
    } finally {
      seg.release();
    }
  }

  /** The one reported error, the untouched target and the silence that must follow. */
  private void assertRejected(int errorType, int errorCode, ByteBuf seg) {
    String header = ByteBufUtil.hexDump(seg, 0, Math.min(18, seg.readableBytes()));
    int length = seg.readableBytes();
    receive(seg);

    assertEquals(1, listener.errors.size(), "exactly one error");
    Error e = listener.errors.get(0);
    assertEquals(errorType, e.errorType(), "Error Type");
    assertEquals(errorCode, e.errorCode(), "error code");
    assertEquals(header, e.headerHex(), "the offending DDP header, for the Terminate");
    assertEquals(length, e.segmentLength(), "the DDP segment length, for the Terminate");
    assertTrue(listener.deliveries.isEmpty());
    assertArrayEquals(before, snapshot(), "not one octet of the target may change");
    assertTrue(dispatcher.isErroneous());

    // Every later segment is dropped silently, even a perfectly valid one.
    receive(segment(0x41, RSVD_SEND, 0, 1, 0, 8));
    assertEquals(1, listener.errors.size());
    assertTrue(listener.deliveries.isEmpty());
    assertArrayEquals(before, snapshot());
  }

  @ParameterizedTest(name = "QN {0}")
  @CsvSource({"2", "3", "4", "-1", "-2147483648"})
  void u1QueueNotEnabledIs0x01(int qn) {
    assertRejected(0x2, 0x01, segment(0x41, RSVD_SEND, qn, 1, 0, 8));
  }

  @Test
  void u2NoBufferPostedForTheExpectedMsnIs0x02() {
    assertRejected(0x2, 0x02, segment(0x41, 0x41_0000_0000L, 1, 1, 0, 8));
  }

  @Test
  void u2AppliesToZeroLengthMessagesToo() {
    assertRejected(0x2, 0x02, segment(0x41, RSVD_SEND, 1, 1, 0, 0));
  }

  @ParameterizedTest(name = "MSN {0}")
  @CsvSource({"2", "0", "-1"})
  void u3MsnOtherThanTheExpectedOneIs0x03(int msn) {
    assertRejected(0x2, 0x03, segment(0x41, RSVD_SEND, 0, msn, 0, 8));
  }

  @Test
  void u3WinsOverU2WhenTheMsnIsWrongAndNoBufferIsPosted() {
    assertRejected(0x2, 0x03, segment(0x41, RSVD_SEND, 1, 5, 0, 8));
  }

  @ParameterizedTest(name = "MO {0}")
  @CsvSource({"4", "1", "32", "-1"})
  void u4MoOtherThanTheOctetsReceivedIs0x04(int mo) {
    assertRejected(0x2, 0x04, segment(0x41, RSVD_SEND, 0, 1, mo, 8));
  }

  @Test
  void u5MessageLongerThanTheBufferIs0x05() {
    assertRejected(0x2, 0x05, segment(0x41, RSVD_SEND, 0, 1, 0, REGION + 1));
  }

  @ParameterizedTest(name = "control 0x{0}")
  @CsvSource({"42", "40", "43", "00", "7E"})
  void u6DdpVersionOtherThanOneIs0x06(String control) {
    // Otherwise a perfectly valid first segment for QN 0: only DV is wrong.
    assertRejected(0x2, 0x06, segment(Integer.parseInt(control, 16), RSVD_SEND, 0, 1, 0, 8));
  }

  @Test
  void u6IsCheckedBeforeEverythingElseEvenOnAZeroLengthSegment() {
    assertRejected(0x2, 0x06, segment(0x42, RSVD_SEND, 9, 9, 9, 0));
  }

  @Test
  void aSegmentShorterThanTheHeaderIsLocalCatastrophic() {
    ByteBuf shortSeg = Unpooled.buffer(10);
    shortSeg.writeByte(0x41).writeByte(0x43).writeZero(8);
    assertRejected(0x0, 0x00, shortSeg);
    assertEquals(10, listener.errors.get(0).headerLength());
  }

  @Test
  void reservedControlBitsAreNotChecked() {
    receive(segment(0x41 | DdpControl.RSVD_MASK, RSVD_SEND, 0, 1, 0, 8));
    assertTrue(listener.errors.isEmpty());
    assertEquals(1, listener.deliveries.size());
  }

  @Test
  void anErrorInTheSecondSegmentLeavesTheFirstPlacedAndTheSecondNot() {
    ByteBuf first = segment(0x01, RSVD_SEND, 0, 1, 0, 10); // L=0
    receive(first);
    byte[] afterFirst = snapshot();
    assertTrue(dispatcher.queue(0).messageInProgress());
    assertEquals(0x30, afterFirst[GUARD]);
    assertEquals(0x39, afterFirst[GUARD + 9]);

    receive(segment(0x41, RSVD_SEND, 0, 1, 12, 4)); // MO skips two octets
    assertEquals(1, listener.errors.size());
    assertEquals(0x04, listener.errors.get(0).errorCode());
    assertArrayEquals(afterFirst, snapshot(), "nothing of the bad segment is placed");
    assertTrue(listener.deliveries.isEmpty());
  }

  @Test
  void aNewMsnWhileAMessageIsInProgressIs0x03() {
    receive(segment(0x01, RSVD_SEND, 0, 1, 0, 10));
    dispatcher.queue(0).post(target, 0, GUARD, 78); // a second buffer does not make MSN 2 legal
    receive(segment(0x41, RSVD_SEND, 0, 2, 0, 4));
    assertEquals(0x03, listener.errors.get(0).errorCode());
  }

  @Test
  void overflowingTheBufferOnALaterSegmentIs0x05() {
    receive(segment(0x01, RSVD_SEND, 0, 1, 0, 30));
    byte[] afterFirst = snapshot();
    receive(segment(0x41, RSVD_SEND, 0, 1, 30, 3));
    assertEquals(0x05, listener.errors.get(0).errorCode());
    assertArrayEquals(afterFirst, snapshot());
  }

  @Test
  void aMessageFillingTheBufferExactlyIsDelivered() {
    receive(segment(0x41, RSVD_SEND, 0, 1, 0, REGION));
    assertTrue(listener.errors.isEmpty());
    assertEquals(new RecordingUntaggedListener.Delivery(0, 1, REGION, RSVD_SEND, BUFFER_ID),
        listener.deliveries.get(0));
    byte[] after = snapshot();
    assertArrayEquals(Arrays.copyOfRange(before, 0, GUARD), Arrays.copyOfRange(after, 0, GUARD));
    assertArrayEquals(Arrays.copyOfRange(before, GUARD + REGION, before.length),
        Arrays.copyOfRange(after, GUARD + REGION, after.length));
  }

  @Test
  void anErrorFoundElsewhereSilencesTheUntaggedPath() {
    dispatcher.markErroneous();
    receive(segment(0x41, RSVD_SEND, 0, 1, 0, 8));
    assertTrue(listener.errors.isEmpty());
    assertTrue(listener.deliveries.isEmpty());
    assertArrayEquals(before, snapshot());
  }

  @Test
  void aTaggedSegmentIsARoutingBugNotAPeerError() {
    ByteBuf tagged = Unpooled.buffer(14);
    TaggedHeader.write(tagged, true, 0x40, 1, 0);
    try {
      assertThrows(IllegalArgumentException.class, () -> dispatcher.onSegment(UlpduPieces.ulpdu(tagged)));
    } finally {
      tagged.release();
    }
    assertFalse(dispatcher.isErroneous());
  }
}
