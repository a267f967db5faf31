package io.iwarp4j.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Byte-exact vectors for the untagged header (RFC 5041 §4.3, ddp.md §12). */
class UntaggedHeaderTest {

  /** The untagged rows of ddp.md §12, as (hex, RsvdULP, QN, MSN, MO). */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
      // Send, last segment, QN 0, MSN 1, MO 0
      "41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00, 4300000000, 0, 1, 0",
      // Send with Invalidate, STag 0xCAFE0001 (QN 0, MSN 1, MO 0 for the rest)
      "41 44 CA FE 00 01 00 00 00 00 00 00 00 01 00 00 00 00, 44CAFE0001, 0, 1, 0",
      // Read Request, QN 1, MSN 1
      "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00, 4100000000, 1, 1, 0",
      // Terminate, QN 2, MSN 1
      "41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00, 4700000000, 2, 1, 0",
  })
  void specRowDecodesAndReencodes(String hex, String rsvdUlpHex, int qn, int msn, int mo) {
    long rsvdUlp = Long.parseLong(rsvdUlpHex, 16);
    ByteBuf wire = Hex.buf(hex);
    try {
      int ctl = DdpControl.get(wire, 0);
      assertFalse(DdpControl.isTagged(ctl));
      assertTrue(DdpControl.isLast(ctl));
      assertEquals(1, DdpControl.version(ctl));
      assertEquals(rsvdUlp, UntaggedHeader.rsvdUlp(wire, 0));
      assertEquals(qn, UntaggedHeader.queueNumber(wire, 0));
      assertEquals(msn, UntaggedHeader.msn(wire, 0));
      assertEquals(mo, UntaggedHeader.messageOffset(wire, 0));

      // Every cut position: the SegmentBytes accessors must read the same fields across pieces.
      for (int cut = 1; cut < UntaggedHeader.LENGTH; cut++) {
        SegmentBytes seg = Segments.segment(wire, cut);
        assertEquals(rsvdUlp, UntaggedHeader.rsvdUlp(seg), "cut " + cut);
        assertEquals(qn, UntaggedHeader.queueNumber(seg), "cut " + cut);
        assertEquals(msn, UntaggedHeader.msn(seg), "cut " + cut);
        assertEquals(mo, UntaggedHeader.messageOffset(seg), "cut " + cut);
      }

      assertReencodes(wire, true, rsvdUlp, qn, msn, mo);
    } finally {
      wire.release();
    }
  }

  @Test
  void fullWidthFieldsSurviveARoundTrip() {
    ByteBuf out = Unpooled.buffer();
    try {
      UntaggedHeader.write(out, false, UntaggedHeader.RSVD_ULP_MAX, -1, 0x8000_0000, -2);
      assertEquals("01ffffffffffffffffff80000000fffffffe", Hex.of(out));
      assertEquals(UntaggedHeader.RSVD_ULP_MAX, UntaggedHeader.rsvdUlp(out, 0));
      assertEquals(-1, UntaggedHeader.queueNumber(out, 0));
      assertEquals(0x8000_0000, UntaggedHeader.msn(out, 0));
      assertEquals(-2, UntaggedHeader.messageOffset(out, 0));
      SegmentBytes seg = Segments.segment(out, 2, 7);
      assertEquals(UntaggedHeader.RSVD_ULP_MAX, UntaggedHeader.rsvdUlp(seg));
    } finally {
      out.release();
    }
  }

  @Test
  void rejectsRsvdUlpWiderThanFortyBits() {
    ByteBuf out = Unpooled.buffer();
    try {
      assertThrows(IllegalArgumentException.class,
          () -> UntaggedHeader.write(out, true, 1L << 40, 0, 1, 0));
      assertThrows(IllegalArgumentException.class,
          () -> UntaggedHeader.write(out, true, -1L, 0, 1, 0));
      assertEquals(0, out.writerIndex());
    } finally {
      out.release();
    }
  }

  static void assertReencodes(ByteBuf wire, boolean last, long rsvdUlp, int qn, int msn, int mo) {
    ByteBuf out = Unpooled.buffer();
    try {
      UntaggedHeader.write(out, last, rsvdUlp, qn, msn, mo);
      assertEquals(Hex.of(wire.slice(wire.readerIndex(), UntaggedHeader.LENGTH)), Hex.of(out));
    } finally {
      out.release();
    }
  }
}
