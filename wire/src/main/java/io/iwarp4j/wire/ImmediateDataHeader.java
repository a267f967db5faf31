package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * The Immediate Data header (RFC 7306 §6.2, Figure 7): the 8 octets that follow the untagged
 * DDP header of an Immediate Data (opcode 0x8) or Immediate Data with SE (0x9) message on QN 0.
 * They are the whole message: an Immediate Data message carries exactly 8 octets (§6.3).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                        Immediate Data                         |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The verbs API carries the 8 octets as a {@code long}, most significant octet first on the wire.
 * A stateless codec.
 */
public final class ImmediateDataHeader {
  /** Length of the immediate data in octets. */
  public static final int LENGTH = 8;
  /** Length of a whole Immediate Data DDP segment: the untagged DDP header and the data. */
  public static final int SEGMENT_LENGTH = UntaggedHeader.LENGTH + LENGTH;

  private ImmediateDataHeader() {
  }

  /**
   * Appends the 8 octets of immediate data at {@code dst}'s writer index.
   *
   * @param dst the buffer to write to
   * @param data the immediate data
   */
  public static void write(ByteBuf dst, long data) {
    dst.ensureWritable(LENGTH);
    dst.writeLong(data);
  }

  /**
   * The immediate data of a received segment: the 8 octets after its DDP header.
   *
   * @param segment the received untagged segment, at least {@link #SEGMENT_LENGTH} octets
   * @return the immediate data
   */
  public static long data(SegmentBytes segment) {
    return segment.getLong(UntaggedHeader.LENGTH);
  }
}
