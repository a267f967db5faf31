package io.iwarp4j.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** Byte-exact vectors for the tagged header (RFC 5041 §4.2, ddp.md §12). */
class TaggedHeaderTest {

  /** ddp.md §12: RDMA Write, last segment, STag 0x1234, TO 0x1000. */
  private static final String WRITE_LAST = "C1 40 00 00 12 34 00 00 00 00 00 00 10 00";

  @Test
  void writeLastSegmentVectorDecodesAndReencodes() {
    ByteBuf wire = Hex.buf(WRITE_LAST);
    try {
      assertEquals(TaggedHeader.LENGTH, wire.readableBytes());
      int ctl = DdpControl.get(wire, 0);
      assertTrue(DdpControl.isTagged(ctl));
      assertTrue(DdpControl.isLast(ctl));
      assertEquals(1, DdpControl.version(ctl));
      assertEquals(0x40, TaggedHeader.rsvdUlp(wire, 0));
      assertEquals(0x1234, TaggedHeader.stag(wire, 0));
      assertEquals(0x1000L, TaggedHeader.taggedOffset(wire, 0));

      assertReencodes(wire, true, 0x40, 0x1234, 0x1000L);
    } finally {
      wire.release();
    }
  }

  @Test
  void middleSegmentHasTheLastBitClear() {
    ByteBuf out = Unpooled.buffer();
    try {
      TaggedHeader.write(out, false, 0x40, 0x1234, 0x1000L);
      assertEquals("8140", Hex.of(out.slice(0, 2)));
      assertFalse(DdpControl.isLast(DdpControl.get(out, 0)));
    } finally {
      out.release();
    }
  }

  @Test
  void readsFromAReceivedSegmentSplitAcrossPieces() {
    ByteBuf wire = Hex.buf(WRITE_LAST + " AA BB");
    try {
      // Cuts inside the STag and inside the TO: accessors must stitch the pieces.
      SegmentBytes seg = Segments.segment(wire, 3, 9);
      assertEquals(0xC1, DdpControl.get(seg));
      assertEquals(0x40, TaggedHeader.rsvdUlp(seg));
      assertEquals(0x1234, TaggedHeader.stag(seg));
      assertEquals(0x1000L, TaggedHeader.taggedOffset(seg));
    } finally {
      wire.release();
    }
  }

  @Test
  void setWritesAtAnAbsoluteIndexWithoutMovingIndexes() {
    ByteBuf out = Unpooled.buffer(20).writeZero(20);
    try {
      TaggedHeader.set(out, 3, true, 0x42, 0xFFFF_FFFF, -1L);
      assertEquals(0, out.readerIndex());
      assertEquals(20, out.writerIndex());
      assertEquals(0xFFFF_FFFF, TaggedHeader.stag(out, 3));
      assertEquals(-1L, TaggedHeader.taggedOffset(out, 3));
      assertEquals("000000c142ffffffffffffffffffffffff000000", Hex.of(out));
    } finally {
      out.release();
    }
  }

  @Test
  void rejectsRsvdUlpWiderThanOneOctet() {
    ByteBuf out = Unpooled.buffer();
    try {
      assertThrows(IllegalArgumentException.class, () -> TaggedHeader.write(out, true, 0x100, 0, 0));
      assertThrows(IllegalArgumentException.class, () -> TaggedHeader.write(out, true, -1, 0, 0));
      assertEquals(0, out.writerIndex());
    } finally {
      out.release();
    }
  }

  static void assertReencodes(ByteBuf wire, boolean last, int rsvdUlp, int stag, long to) {
    ByteBuf out = Unpooled.buffer();
    try {
      TaggedHeader.write(out, last, rsvdUlp, stag, to);
      assertEquals(Hex.of(wire.slice(wire.readerIndex(), TaggedHeader.LENGTH)), Hex.of(out));
    } finally {
      out.release();
    }
  }
}
