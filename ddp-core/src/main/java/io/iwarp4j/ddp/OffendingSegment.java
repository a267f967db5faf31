package io.iwarp4j.ddp;

import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * What a DDP stream keeps of the first segment it refused, for the Terminate it sends later
 * (RFC 5040 §4.8, RFC 5041 §7.1): the error, a copy of the segment's DDP header (the segment
 * itself is a view valid only while MPA hands it up) and the DDP Segment Length. The copy goes
 * into one buffer made at the first refusal and reused, so recording allocates nothing after
 * that. Event-loop confined.
 */
final class OffendingSegment {
  /** Made on the first refusal: a stream that never refuses a segment holds no buffer. */
  private ByteBuf header;
  private int segmentLength;
  private DdpError error;

  /** Keeps {@code error} and the first {@code headerLength} octets of {@code segment}. */
  void record(DdpError error, Ulpdu segment, int headerLength) {
    this.error = error;
    if (header == null) {
      header = Unpooled.wrappedBuffer(new byte[UntaggedHeader.LENGTH]);
    }
    header.clear();
    segment.getBytes(0, header, 0, headerLength);
    header.writerIndex(headerLength);
    segmentLength = segment.length();
  }

  /** The recorded error, or null. */
  DdpError error() {
    return error;
  }

  /** The DDP Segment Length of the recorded segment. */
  int segmentLength() {
    return segmentLength;
  }

  /**
   * The DDP header to echo: the copy as its readable octets when the segment held a whole header
   * (14 octets when its T bit is set, else 18), else null (the Terminate then has HdrCt 000).
   */
  ByteBuf echoedHeader() {
    if (header == null) {
      return null;
    }
    int full = header.readableBytes() > 0 && DdpControl.isTagged(header.getUnsignedByte(0))
        ? TaggedHeader.LENGTH : UntaggedHeader.LENGTH;
    return header.readableBytes() == full ? header : null;
  }
}
