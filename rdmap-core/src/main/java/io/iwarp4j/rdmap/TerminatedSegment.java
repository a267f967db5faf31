package io.iwarp4j.rdmap;

import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.ReadRequestHeader;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * What a Terminate echoes about the segment that caused it (RFC 5040 §4.8): the DDP Segment
 * Length, the terminated DDP header (14 octets if tagged, 18 if untagged) and, for a Read Request,
 * the 28-octet Read Request header. Copied out of the segment while it is valid (segments are
 * views valid only during a callback), into buffers this object owns and reuses: capturing
 * allocates nothing.
 */
final class TerminatedSegment {
  // Made on first capture: most of a queue pair's captures never happen (an idle one has none).
  private ByteBuf ddpHeader;
  private ByteBuf rdmaHeader;
  private int segmentLength;
  private boolean captured;
  private boolean withRdmaHeader;

  /**
   * Copies the DDP header of {@code segment} (which holds a whole one: DDP checked that) and
   * remembers its length; forgets any RDMA header.
   */
  void capture(Ulpdu segment) {
    boolean tagged = DdpControl.isTagged(DdpControl.get(segment));
    int n = tagged ? TaggedHeader.LENGTH : UntaggedHeader.LENGTH;
    ByteBuf ddpHeader = ddpHeaderBuffer();
    segment.getBytes(0, ddpHeader, 0, n);
    ddpHeader.writerIndex(n);
    segmentLength = segment.length();
    captured = true;
    withRdmaHeader = false;
  }

  /** Copies another capture (the last untagged segment's header, when a message fails). */
  void copyFrom(TerminatedSegment other) {
    ByteBuf ddpHeader = ddpHeaderBuffer();
    if (other.ddpHeader != null) {
      ddpHeader.writeBytes(other.ddpHeader, other.ddpHeader.readerIndex(),
          other.ddpHeader.readableBytes());
    }
    segmentLength = other.segmentLength;
    captured = other.captured;
    withRdmaHeader = false;
  }

  /** Adds the Read Request header: the 28 readable octets of {@code request} (R=1). */
  void withReadRequest(ByteBuf request) {
    if (rdmaHeader == null) {
      rdmaHeader = Unpooled.wrappedBuffer(new byte[ReadRequestHeader.LENGTH]);
    }
    rdmaHeader.clear();
    rdmaHeader.writeBytes(request, request.readerIndex(), ReadRequestHeader.LENGTH);
    withRdmaHeader = true;
  }

  /** The DDP header buffer, cleared; made on first use. */
  private ByteBuf ddpHeaderBuffer() {
    if (ddpHeader == null) {
      ddpHeader = Unpooled.wrappedBuffer(new byte[UntaggedHeader.LENGTH]);
    }
    return ddpHeader.clear();
  }

  /** Whether a header was captured (else the Terminate carries none: HdrCt 000). */
  boolean isCaptured() {
    return captured;
  }

  /** The terminated DDP header (readable octets), or null when none was captured. */
  ByteBuf ddpHeader() {
    return captured ? ddpHeader : null;
  }

  /** The DDP Segment Length of the captured segment. */
  int segmentLength() {
    return segmentLength;
  }

  /** The terminated RDMA header (28 readable octets), or null. */
  ByteBuf rdmaHeader() {
    return captured && withRdmaHeader ? rdmaHeader : null;
  }
}
