package io.iwarp4j.ddp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.testing.RecordingSegmentWriter;
import io.iwarp4j.ddp.testing.RecordingSegmentWriter.Segment;
import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Segmentation on the Data Source side (RFC 5041 §5.2, §5.3; ddp.md §4). */
class DdpSegmenterTest {
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private RecordingSegmentWriter writer;
  private DdpSegmenter segmenter;
  private final List<ByteBuf> sources = new ArrayList<>();

  @BeforeEach
  void setUp() {
    writer = new RecordingSegmentWriter(1500);
    segmenter = new DdpSegmenter(writer, ALLOC);
  }

  @AfterEach
  void tearDown() {
    writer.releaseAll();
    for (ByteBuf b : sources) {
      assertEquals(1, b.refCnt(), "every piece was released exactly once");
      b.release();
    }
  }

  /** A pooled direct source buffer of {@code n} patterned octets, released after the test. */
  private ByteBuf source(int n, int seed) {
    byte[] pattern = new byte[n];
    for (int i = 0; i < n; i++) {
      pattern[i] = (byte) (seed + i * 7);
    }
    // One bulk write: the PARANOID leak detector records every single-octet access.
    ByteBuf b = ALLOC.directBuffer(n).writeBytes(pattern);
    sources.add(b);
    return b;
  }

  private static byte[] bytesOf(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.getBytes(b.readerIndex(), out);
    return out;
  }

  private static byte[] concat(List<Segment> segs) {
    int n = segs.stream().mapToInt(s -> s.payloadLength).sum();
    byte[] out = new byte[n];
    int at = 0;
    for (Segment s : segs) {
      byte[] p = s.payload();
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  @Test
  void untagged2048AtMulpdu1500Is1482Then566() {
    ByteBuf data = source(2048, 1);
    int msn = segmenter.sendUntagged(0x43_0000_0000L, 0, null, new GatherList().add(data));

    assertEquals(1, msn);
    assertEquals(2, writer.segments.size());
    Segment s1 = writer.segments.get(0);
    Segment s2 = writer.segments.get(1);
    // ddp.md §4 example: MO 0 / 1482 octets / L=0, then MO 1482 / 566 octets / L=1.
    assertEquals("01" + "4300000000" + "00000000" + "00000001" + "00000000", Hex.of(s1.header));
    assertEquals(1482, s1.payloadLength);
    assertEquals(1500, s1.ulpduLength());
    assertEquals("41" + "4300000000" + "00000000" + "00000001" + "000005ca", Hex.of(s2.header));
    assertEquals(566, s2.payloadLength);
    assertArrayEquals(bytesOf(data), concat(writer.segments));
  }

  @Test
  void tagged2048AtTo16384Is1486ThenTo17870With562() {
    ByteBuf data = source(2048, 2);
    segmenter.sendTagged(0x40, 0x1234, 16384, new GatherList().add(data));

    assertEquals(2, writer.segments.size());
    Segment s1 = writer.segments.get(0);
    Segment s2 = writer.segments.get(1);
    assertEquals("81" + "40" + "00001234" + "0000000000004000", Hex.of(s1.header));
    assertEquals(1486, s1.payloadLength);
    assertEquals("c1" + "40" + "00001234" + "00000000000045ce", Hex.of(s2.header)); // TO 17870
    assertEquals(562, s2.payloadLength);
    assertArrayEquals(bytesOf(data), concat(writer.segments));
  }

  @Test
  void zeroLengthTaggedMessageIsOneLastSegment() {
    segmenter.sendTagged(0x40, 0, 0, null);
    assertEquals(1, writer.segments.size());
    Segment s = writer.segments.get(0);
    // The RFC 6581 Write-RTR frame siw accepts (docs/interop.md, siw finding §5):
    // c1 40 | STag 0 | TO 0.
    assertEquals("c140" + "00000000" + "0000000000000000", Hex.of(s.header));
    assertEquals(0, s.payloadLength);
    assertTrue(s.pieces.isEmpty());
  }

  @Test
  void zeroLengthUntaggedMessageIsOneLastSegmentAndConsumesAnMsn() {
    assertEquals(1, segmenter.sendUntagged(0x43_0000_0000L, 0, null, new GatherList()));
    assertEquals(2, segmenter.sendUntagged(0x43_0000_0000L, 0, null, null));
    assertEquals(2, writer.segments.size());
    assertEquals("41" + "4300000000" + "00000000" + "00000001" + "00000000",
        Hex.of(writer.segments.get(0).header));
    assertEquals("41" + "4300000000" + "00000000" + "00000002" + "00000000",
        Hex.of(writer.segments.get(1).header));
    assertEquals(0, writer.segments.get(1).payloadLength);
  }

  @Test
  void exactMultiplesProduceNoTrailingEmptySegment() {
    ByteBuf untagged = source(2 * 1482, 3);
    segmenter.sendUntagged(0, 0, null, new GatherList().add(untagged));
    assertEquals(2, writer.segments.size());
    assertEquals(1482, writer.segments.get(1).payloadLength);
    assertTrue(DdpControl.isLast(DdpControl.get(writer.segments.get(1).header, 0)));
    writer.releaseAll();

    ByteBuf tagged = source(3 * 1486, 4);
    segmenter.sendTagged(0x40, 7, 0, new GatherList().add(tagged));
    assertEquals(3, writer.segments.size());
    for (int i = 0; i < 3; i++) {
      Segment s = writer.segments.get(i);
      assertEquals(1486, s.payloadLength);
      assertEquals(i == 2, DdpControl.isLast(DdpControl.get(s.header, 0)), "L only on the last");
      assertEquals(1486L * i, TaggedHeader.taggedOffset(s.header, 0));
    }
    assertArrayEquals(bytesOf(tagged), concat(writer.segments));
  }

  @Test
  void oneOctetOverAMultipleAddsAOneOctetLastSegment() {
    ByteBuf data = source(1482 + 1, 5);
    segmenter.sendUntagged(0, 0, null, new GatherList().add(data));
    assertEquals(2, writer.segments.size());
    assertEquals(1, writer.segments.get(1).payloadLength);
    assertEquals(1482, UntaggedHeader.messageOffset(writer.segments.get(1).header, 0));
  }

  @Test
  void gatherEntriesSpanSegmentBoundariesAsZeroCopySlices() {
    ByteBuf a = source(1000, 10);
    ByteBuf b = source(1000, 20);
    ByteBuf c = source(100, 30);
    ByteBuf d = source(900, 40);
    // b contributes from index 5; an empty entry sits in the middle and is skipped.
    GatherList list = new GatherList(1)
        .add(a).add(b, 5, 995).add(c, 0, 0).add(c, 10, 48).add(d, 0, 700);
    segmenter.sendUntagged(0, 0, null, list);

    assertEquals(2, writer.segments.size());
    Segment s1 = writer.segments.get(0);
    Segment s2 = writer.segments.get(1);
    assertEquals(1482, s1.payloadLength);
    assertEquals(2, s1.pieces.size());
    assertEquals(1000, s1.pieces.get(0).readableBytes());
    assertEquals(482, s1.pieces.get(1).readableBytes());
    assertEquals(1000 + 995 + 48 + 700 - 1482, s2.payloadLength);
    assertEquals(3, s2.pieces.size());
    assertEquals(995 - 482, s2.pieces.get(0).readableBytes());
    assertEquals(48, s2.pieces.get(1).readableBytes());
    assertEquals(700, s2.pieces.get(2).readableBytes());

    byte[] expected = new byte[1000 + 995 + 48 + 700];
    a.getBytes(0, expected, 0, 1000);
    b.getBytes(5, expected, 1000, 995);
    c.getBytes(10, expected, 1995, 48);
    d.getBytes(0, expected, 2043, 700);
    assertArrayEquals(expected, concat(writer.segments));

    // Zero copy: each piece is a view of the sender's buffer and holds one reference on it.
    assertEquals(1 + 2, b.refCnt(), "b appears in one piece per segment");
    b.setByte(5 + 482, 0x5A);
    ByteBuf firstOfS2 = s2.pieces.get(0);
    assertEquals(0x5A, firstOfS2.getByte(firstOfS2.readerIndex()));
    // The gather list and the sources' indexes are left as they were.
    assertEquals(5, list.size());
    assertEquals(0, a.readerIndex());
    assertEquals(1000, a.writerIndex());
  }

  @Test
  void msnCountsPerQueueFromOne() {
    int[][] sends = {{0, 1}, {0, 2}, {1, 1}, {0, 3}, {2, 1}, {3, 1}, {1, 2}, {3, 2}};
    for (int[] send : sends) {
      assertEquals(send[1], segmenter.nextMsn(send[0]));
      assertEquals(send[1], segmenter.sendUntagged(0, send[0], null, null), "queue " + send[0]);
    }
    for (int i = 0; i < sends.length; i++) {
      ByteBuf h = writer.segments.get(i).header;
      assertEquals(sends[i][0], UntaggedHeader.queueNumber(h, 0));
      assertEquals(sends[i][1], UntaggedHeader.msn(h, 0));
    }
    // Tagged messages do not touch the untagged counters.
    segmenter.sendTagged(0x40, 1, 0, null);
    assertEquals(4, segmenter.nextMsn(0));
  }

  @Test
  void aQueueStartsAtMsn2AfterAnRtrOnlyBeforeItsFirstMessage() {
    segmenter.startAtMsn2(0);
    assertEquals(2, segmenter.sendUntagged(0, 0, null, null));
    assertEquals(3, segmenter.nextMsn(0));
    assertEquals(1, segmenter.nextMsn(1), "other queues are unaffected");
    assertThrows(IllegalStateException.class, () -> segmenter.startAtMsn2(0));
    segmenter.sendUntagged(0, 1, null, null);
    assertThrows(IllegalStateException.class, () -> segmenter.startAtMsn2(1));
  }

  @Test
  void rdmapHeaderTravelsWholeInTheFirstSegmentAndCountsTowardsMo() {
    writer = new RecordingSegmentWriter(100);
    segmenter = new DdpSegmenter(writer, ALLOC);
    ByteBuf rdmap = Unpooled.buffer(28);
    try {
      for (int i = 0; i < 28; i++) {
        rdmap.writeByte(0xA0 + i);
      }
      ByteBuf data = source(100, 6);
      segmenter.sendUntagged(0x41_0000_0000L, 1, rdmap, new GatherList().add(data));

      assertEquals(0, rdmap.readerIndex(), "the caller's header is read, not consumed");
      assertEquals(1, rdmap.refCnt(), "and stays the caller's");
      assertEquals(2, writer.segments.size());
      Segment s1 = writer.segments.get(0);
      Segment s2 = writer.segments.get(1);
      assertEquals(18 + 28, s1.header.readableBytes());
      assertEquals(Hex.of(rdmap), Hex.of(s1.header.slice(18, 28)));
      assertEquals(100 - 18 - 28, s1.payloadLength);
      assertEquals(0, UntaggedHeader.messageOffset(s1.header, 0));
      assertFalse(DdpControl.isLast(DdpControl.get(s1.header, 0)));
      assertEquals(18, s2.header.readableBytes(), "only the first segment carries it");
      assertEquals(28 + 54, UntaggedHeader.messageOffset(s2.header, 0));
      assertEquals(46, s2.payloadLength);
      assertArrayEquals(bytesOf(data), concat(writer.segments));
    } finally {
      rdmap.release();
    }
  }

  @Test
  void rdmapHeaderFillingTheFirstSegmentLeavesThePayloadToTheNext() {
    writer = new RecordingSegmentWriter(18 + 28);
    segmenter = new DdpSegmenter(writer, ALLOC);
    ByteBuf rdmap = Unpooled.buffer(28).writeZero(28);
    try {
      ByteBuf data = source(10, 7);
      segmenter.sendUntagged(0, 1, rdmap, new GatherList().add(data));
      assertEquals(2, writer.segments.size());
      assertEquals(0, writer.segments.get(0).payloadLength);
      assertEquals(28, UntaggedHeader.messageOffset(writer.segments.get(1).header, 0));
      assertEquals(10, writer.segments.get(1).payloadLength);
    } finally {
      rdmap.release();
    }
  }

  @Test
  void mulpduShrinkingMidMessageAppliesToLaterSegmentsOnly() {
    writer.mulpduSchedule(written -> written == 0 ? 1500 : 500);
    ByteBuf data = source(3000, 8);
    segmenter.sendTagged(0x42, 9, 1000, new GatherList().add(data));
    int[] expected = {1486, 486, 486, 486, 56};
    assertEquals(expected.length, writer.segments.size());
    long to = 1000;
    for (int i = 0; i < expected.length; i++) {
      Segment s = writer.segments.get(i);
      assertEquals(expected[i], s.payloadLength, "segment " + i);
      assertEquals(to, TaggedHeader.taggedOffset(s.header, 0));
      to += expected[i];
    }
    assertArrayEquals(bytesOf(data), concat(writer.segments));
  }

  @Test
  void tagged0ToEndingExactlyAt2To64IsAllowedButAWrapIsNot() {
    ByteBuf data = source(100, 9);
    segmenter.sendTagged(0x40, 1, -100L, new GatherList().add(data));
    assertEquals(1, writer.segments.size());
    assertThrows(IllegalArgumentException.class,
        () -> segmenter.sendTagged(0x40, 1, -99L, new GatherList().add(data)));
    assertEquals(1, writer.segments.size(), "a rejected send writes nothing");
  }

  @Test
  void messagesOf2To32OctetsAreRejectedBeforeAnythingIsWritten() {
    ByteBuf mib = source(1 << 20, 11);
    GatherList huge = new GatherList(4096);
    for (int i = 0; i < 4096; i++) {
      huge.add(mib);
    }
    assertEquals(1L << 32, huge.totalLength());
    assertThrows(IllegalArgumentException.class, () -> segmenter.sendTagged(0x40, 1, 0, huge));
    assertThrows(IllegalArgumentException.class, () -> segmenter.sendUntagged(0, 0, null, huge));
    assertTrue(writer.segments.isEmpty());
    assertEquals(1, segmenter.nextMsn(0), "a rejected send does not consume an MSN");
  }

  @Test
  void misuseIsRejectedWithANamedProblemAndWritesNothing() {
    GatherList none = new GatherList();
    assertThrows(IllegalArgumentException.class, () -> segmenter.sendUntagged(0, 4, null, none));
    assertThrows(IllegalArgumentException.class, () -> segmenter.sendUntagged(0, -1, null, none));
    assertThrows(IllegalArgumentException.class,
        () -> segmenter.sendUntagged(1L << 40, 0, null, none));
    assertThrows(IllegalArgumentException.class, () -> segmenter.sendTagged(256, 0, 0, none));
    assertThrows(IllegalArgumentException.class, () -> segmenter.nextMsn(4));

    ByteBuf released = Unpooled.buffer(8).writeZero(8);
    GatherList stale = new GatherList().add(released);
    released.release();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> segmenter.sendTagged(0x40, 0, 0, stale));
    assertTrue(e.getMessage().contains("released"), e.getMessage());
    assertTrue(writer.segments.isEmpty());
  }

  @Test
  void mulpduTooSmallForTheHeadersIsAnIllegalState() {
    writer = new RecordingSegmentWriter(18);
    segmenter = new DdpSegmenter(writer, ALLOC);
    ByteBuf data = source(1, 12);
    assertThrows(IllegalStateException.class,
        () -> segmenter.sendUntagged(0, 0, null, new GatherList().add(data)));
    ByteBuf rdmap = Unpooled.buffer(28).writeZero(28);
    try {
      assertThrows(IllegalStateException.class, () -> segmenter.sendUntagged(0, 1, rdmap, null));
    } finally {
      rdmap.release();
    }
    // A zero-length message still fits in a bare header.
    segmenter.sendUntagged(0, 0, null, null);
    assertEquals(1, writer.segments.size());
    assertEquals(1, UntaggedHeader.msn(writer.segments.get(0).header, 0));
  }

  @Test
  void everyPieceAddressesTheSendersMemoryAtTheRightOffset() {
    ByteBuf data = source(4000, 13);
    segmenter.sendTagged(0x40, 1, 0, new GatherList().add(data));
    assertTrue(data.hasMemoryAddress(), "pooled direct buffers expose their address");
    long expected = data.memoryAddress();
    for (Segment s : writer.segments) {
      for (ByteBuf piece : s.pieces) {
        assertEquals(expected, piece.memoryAddress() + piece.readerIndex(), "a view, not a copy");
        expected += piece.readableBytes();
      }
    }
    assertEquals(data.memoryAddress() + 4000, expected);
  }
}
