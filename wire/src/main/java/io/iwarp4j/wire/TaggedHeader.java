package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * The Tagged Buffer Model header (RFC 5041 §4.2): 14 octets.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *                                 +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *                                 |T|L| Rsvd  |DV |    RsvdULP    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                             STag                              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * +                           TO (64 bits)                        +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * (The diagram starts at bit 16 because MPA's ULPDU_Length precedes it on the wire; the offsets
 * below count from the first DDP octet.) RsvdULP is the ULP's 8 bits (RDMAP: its control field),
 * the STag names the Data Sink's tagged buffer, TO is where this segment's payload goes in it.
 *
 * <p>A stateless codec: static accessors, no object per segment. 32-bit fields are returned as
 * their raw bits in an {@code int}; TO is an unsigned 64-bit value in a {@code long}.
 */
public final class TaggedHeader {
  /** Offset of the DDP Control Field. */
  public static final int CONTROL_OFFSET = 0;
  /** Offset of the 8-bit RsvdULP field. */
  public static final int RSVD_ULP_OFFSET = 1;
  /** Offset of the 32-bit STag. */
  public static final int STAG_OFFSET = 2;
  /** Offset of the 64-bit Tagged Offset. */
  public static final int TO_OFFSET = 6;
  /** Header length in octets. */
  public static final int LENGTH = 14;

  private TaggedHeader() {
  }

  /**
   * Appends a tagged header at {@code dst}'s writer index (T=1, DV=1, Rsvd 0).
   *
   * @param dst the buffer to write to
   * @param last the L bit
   * @param rsvdUlp the ULP's octet, 0..255
   * @param stag the Data Sink's STag
   * @param to the Tagged Offset of this segment's first payload octet
   */
  public static void write(ByteBuf dst, boolean last, int rsvdUlp, int stag, long to) {
    checkRsvdUlp(rsvdUlp);
    dst.ensureWritable(LENGTH);
    set(dst, dst.writerIndex(), last, rsvdUlp, stag, to);
    dst.writerIndex(dst.writerIndex() + LENGTH);
  }

  /**
   * Writes a tagged header at absolute index {@code ddpStart}; indexes are left unchanged.
   *
   * @param dst the buffer to write to
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @param last the L bit: whether this is the last segment of the message
   * @param rsvdUlp the 32 reserved-for-ULP bits
   * @param stag the STag
   * @param to the tagged offset
   */
  public static void set(ByteBuf dst, int ddpStart, boolean last, int rsvdUlp, int stag, long to) {
    checkRsvdUlp(rsvdUlp);
    dst.setByte(ddpStart + CONTROL_OFFSET, DdpControl.encode(true, last));
    dst.setByte(ddpStart + RSVD_ULP_OFFSET, rsvdUlp);
    dst.setInt(ddpStart + STAG_OFFSET, stag);
    dst.setLong(ddpStart + TO_OFFSET, to);
  }

  private static void checkRsvdUlp(int rsvdUlp) {
    if ((rsvdUlp & ~0xFF) != 0) {
      throw new IllegalArgumentException("tagged RsvdULP is one octet, got " + rsvdUlp);
    }
  }

  /**
   * RsvdULP of the header at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the RsvdULP of the header at absolute index {@code ddpStart}
   */
  public static int rsvdUlp(ByteBuf buf, int ddpStart) {
    return buf.getUnsignedByte(ddpStart + RSVD_ULP_OFFSET);
  }

  /**
   * STag of the header at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the STag of the header at absolute index {@code ddpStart}
   */
  public static int stag(ByteBuf buf, int ddpStart) {
    return buf.getInt(ddpStart + STAG_OFFSET);
  }

  /**
   * Tagged Offset of the header at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Tagged Offset of the header at absolute index {@code ddpStart}
   */
  public static long taggedOffset(ByteBuf buf, int ddpStart) {
    return buf.getLong(ddpStart + TO_OFFSET);
  }

  /**
   * RsvdULP of a received tagged segment.
   *
   * @param segment the received DDP segment
   * @return the RsvdULP of a received tagged segment
   */
  public static int rsvdUlp(SegmentBytes segment) {
    return segment.getUnsignedByte(RSVD_ULP_OFFSET);
  }

  /**
   * STag of a received tagged segment.
   *
   * @param segment the received DDP segment
   * @return the STag of a received tagged segment
   */
  public static int stag(SegmentBytes segment) {
    return segment.getInt(STAG_OFFSET);
  }

  /**
   * Tagged Offset of a received tagged segment.
   *
   * @param segment the received DDP segment
   * @return the Tagged Offset of a received tagged segment
   */
  public static long taggedOffset(SegmentBytes segment) {
    return segment.getLong(TO_OFFSET);
  }
}
