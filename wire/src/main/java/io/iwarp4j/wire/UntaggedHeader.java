package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * The Untagged Buffer Model header (RFC 5041 §4.3): 18 octets.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *                                 +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *                                 |T|L| Rsvd  |DV | RsvdULP[0:7]  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         RsvdULP[8:39]                         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                              QN                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                              MSN                              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                              MO                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * (The diagram starts at bit 16 because MPA's ULPDU_Length precedes it on the wire; the offsets
 * below count from the first DDP octet.) RsvdULP is the ULP's 40 bits (RDMAP: control octet then
 * the Invalidate STag), handled here as the low 40 bits of a {@code long}. QN selects the Data
 * Sink's queue, MSN numbers the message on that queue, MO is the offset of this segment's payload
 * within the message.
 *
 * <p>A stateless codec: static accessors, no object per segment. QN, MSN and MO are unsigned
 * 32-bit values returned as their raw bits in an {@code int}.
 */
public final class UntaggedHeader {
  /** Offset of the DDP Control Field. */
  public static final int CONTROL_OFFSET = 0;
  /** Offset of the 40-bit RsvdULP field. */
  public static final int RSVD_ULP_OFFSET = 1;
  /** Length of the RsvdULP field in octets. */
  public static final int RSVD_ULP_LENGTH = 5;
  /** Offset of the 32-bit Queue Number. */
  public static final int QN_OFFSET = 6;
  /** Offset of the 32-bit Message Sequence Number. */
  public static final int MSN_OFFSET = 10;
  /** Offset of the 32-bit Message Offset. */
  public static final int MO_OFFSET = 14;
  /** Header length in octets. */
  public static final int LENGTH = 18;
  /** The largest RsvdULP value (40 bits). */
  public static final long RSVD_ULP_MAX = (1L << 40) - 1;

  private UntaggedHeader() {
  }

  /**
   * Appends an untagged header at {@code dst}'s writer index (T=0, DV=1, Rsvd 0).
   *
   * @param dst the buffer to write to
   * @param last the L bit
   * @param rsvdUlp the ULP's 40 bits, 0..{@link #RSVD_ULP_MAX}
   * @param qn the queue number
   * @param msn the message sequence number
   * @param mo the message offset of this segment's first payload octet
   */
  public static void write(ByteBuf dst, boolean last, long rsvdUlp, int qn, int msn, int mo) {
    checkRsvdUlp(rsvdUlp);
    dst.ensureWritable(LENGTH);
    set(dst, dst.writerIndex(), last, rsvdUlp, qn, msn, mo);
    dst.writerIndex(dst.writerIndex() + LENGTH);
  }

  /**
   * Writes an untagged header at absolute index {@code ddpStart}; indexes are left unchanged.
   *
   * @param dst the buffer to write to
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @param last the L bit: whether this is the last segment of the message
   * @param rsvdUlp the 32 reserved-for-ULP bits
   * @param qn the queue number
   * @param msn the message sequence number
   * @param mo the message offset
   */
  public static void set(ByteBuf dst, int ddpStart, boolean last, long rsvdUlp, int qn, int msn,
      int mo) {
    checkRsvdUlp(rsvdUlp);
    dst.setByte(ddpStart + CONTROL_OFFSET, DdpControl.encode(false, last));
    dst.setByte(ddpStart + RSVD_ULP_OFFSET, (int) (rsvdUlp >>> 32));
    dst.setInt(ddpStart + RSVD_ULP_OFFSET + 1, (int) rsvdUlp);
    dst.setInt(ddpStart + QN_OFFSET, qn);
    dst.setInt(ddpStart + MSN_OFFSET, msn);
    dst.setInt(ddpStart + MO_OFFSET, mo);
  }

  private static void checkRsvdUlp(long rsvdUlp) {
    if ((rsvdUlp & ~RSVD_ULP_MAX) != 0) {
      throw new IllegalArgumentException(
          "untagged RsvdULP is 40 bits, got 0x" + Long.toHexString(rsvdUlp));
    }
  }

  /**
   * RsvdULP (40 bits) of the header at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the RsvdULP (40 bits) of the header at absolute index {@code ddpStart}
   */
  public static long rsvdUlp(ByteBuf buf, int ddpStart) {
    return ((long) buf.getUnsignedByte(ddpStart + RSVD_ULP_OFFSET) << 32)
        | buf.getUnsignedInt(ddpStart + RSVD_ULP_OFFSET + 1);
  }

  /**
   * Queue Number of the header at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Queue Number of the header at absolute index {@code ddpStart}
   */
  public static int queueNumber(ByteBuf buf, int ddpStart) {
    return buf.getInt(ddpStart + QN_OFFSET);
  }

  /**
   * Message Sequence Number of the header at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Message Sequence Number of the header at absolute index {@code ddpStart}
   */
  public static int msn(ByteBuf buf, int ddpStart) {
    return buf.getInt(ddpStart + MSN_OFFSET);
  }

  /**
   * Message Offset of the header at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Message Offset of the header at absolute index {@code ddpStart}
   */
  public static int messageOffset(ByteBuf buf, int ddpStart) {
    return buf.getInt(ddpStart + MO_OFFSET);
  }

  /**
   * RsvdULP (40 bits) of a received untagged segment.
   *
   * @param segment the received DDP segment
   * @return the RsvdULP (40 bits) of a received untagged segment
   */
  public static long rsvdUlp(SegmentBytes segment) {
    return ((long) segment.getUnsignedByte(RSVD_ULP_OFFSET) << 32)
        | (segment.getInt(RSVD_ULP_OFFSET + 1) & 0xFFFF_FFFFL);
  }

  /**
   * Queue Number of a received untagged segment.
   *
   * @param segment the received DDP segment
   * @return the Queue Number of a received untagged segment
   */
  public static int queueNumber(SegmentBytes segment) {
    return segment.getInt(QN_OFFSET);
  }

  /**
   * Message Sequence Number of a received untagged segment.
   *
   * @param segment the received DDP segment
   * @return the Message Sequence Number of a received untagged segment
   */
  public static int msn(SegmentBytes segment) {
    return segment.getInt(MSN_OFFSET);
  }

  /**
   * Message Offset of a received untagged segment.
   *
   * @param segment the received DDP segment
   * @return the Message Offset of a received untagged segment
   */
  public static int messageOffset(SegmentBytes segment) {
    return segment.getInt(MO_OFFSET);
  }
}
