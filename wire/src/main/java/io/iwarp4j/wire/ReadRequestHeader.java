package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * The RDMA Read Request Header (RFC 5040 §4.4): 28 octets right after the untagged DDP header
 * of a Read Request (QN 1).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                   Data Sink STag (SinkSTag)                   |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * +                 Data Sink Tagged Offset (SinkTO)              +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                RDMA Read Message Size (RDMARDSZ)              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Data Source STag (SrcSTag)                   |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * +                Data Source Tagged Offset (SrcTO)              +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * SinkSTag/SinkTO name where the Read Response goes (copied into it unchanged), RDMARDSZ is the
 * octet count (0..2^32-1), SrcSTag/SrcTO name the buffer read. {@code *_OFFSET} constants count
 * from the first DDP octet of the Read Request segment; {@link #write} appends the bare 28
 * octets (the RDMAP header handed to the DDP segmenter). A stateless codec: static accessors, no
 * object per message; 32-bit fields are returned as their raw bits.
 */
public final class ReadRequestHeader {
  /** Offset of the Read Request header itself: right after the untagged DDP header. */
  public static final int START_OFFSET = UntaggedHeader.LENGTH;
  /** Offset of the 32-bit Data Sink STag. */
  public static final int SINK_STAG_OFFSET = START_OFFSET;
  /** Offset of the 64-bit Data Sink Tagged Offset. */
  public static final int SINK_TO_OFFSET = START_OFFSET + 4;
  /** Offset of the 32-bit RDMA Read Message Size. */
  public static final int RDMARDSZ_OFFSET = START_OFFSET + 12;
  /** Offset of the 32-bit Data Source STag. */
  public static final int SRC_STAG_OFFSET = START_OFFSET + 16;
  /** Offset of the 64-bit Data Source Tagged Offset. */
  public static final int SRC_TO_OFFSET = START_OFFSET + 20;
  /** Length of the Read Request header in octets. */
  public static final int LENGTH = 28;

  private ReadRequestHeader() {
  }

  /**
   * Appends the 28-octet Read Request header at {@code dst}'s writer index.
   *
   * @param dst the buffer to write to
   * @param sinkStag the Data Sink STag
   * @param sinkTo the Data Sink tagged offset
   * @param srcStag the Data Source STag
   * @param srcTo the Data Source tagged offset
   * @param size RDMARDSZ, the octets to read (unsigned)
   */
  public static void write(ByteBuf dst, int sinkStag, long sinkTo, int size, int srcStag,
      long srcTo) {
    dst.ensureWritable(LENGTH);
    dst.writeInt(sinkStag);
    dst.writeLong(sinkTo);
    dst.writeInt(size);
    dst.writeInt(srcStag);
    dst.writeLong(srcTo);
  }

  /**
   * Data Sink STag of the Read Request whose DDP header starts at {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Data Sink STag of the Read Request whose DDP header starts at {@code ddpStart}
   */
  public static int sinkStag(ByteBuf buf, int ddpStart) {
    return buf.getInt(ddpStart + SINK_STAG_OFFSET);
  }

  /**
   * Data Sink Tagged Offset of the Read Request whose DDP header starts at {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Data Sink Tagged Offset of the Read Request whose DDP header starts at {@code
   *     ddpStart}
   */
  public static long sinkTo(ByteBuf buf, int ddpStart) {
    return buf.getLong(ddpStart + SINK_TO_OFFSET);
  }

  /**
   * RDMARDSZ (unsigned) of the Read Request whose DDP header starts at {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the RDMARDSZ (unsigned) of the Read Request whose DDP header starts at {@code ddpStart}
   */
  public static int readSize(ByteBuf buf, int ddpStart) {
    return buf.getInt(ddpStart + RDMARDSZ_OFFSET);
  }

  /**
   * Data Source STag of the Read Request whose DDP header starts at {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Data Source STag of the Read Request whose DDP header starts at {@code ddpStart}
   */
  public static int srcStag(ByteBuf buf, int ddpStart) {
    return buf.getInt(ddpStart + SRC_STAG_OFFSET);
  }

  /**
   * Data Source Tagged Offset of the Read Request whose DDP header starts at {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Data Source Tagged Offset of the Read Request whose DDP header starts at {@code
   *     ddpStart}
   */
  public static long srcTo(ByteBuf buf, int ddpStart) {
    return buf.getLong(ddpStart + SRC_TO_OFFSET);
  }

  /**
   * Data Sink STag of a received Read Request segment.
   *
   * @param segment the received DDP segment
   * @return the Data Sink STag of a received Read Request segment
   */
  public static int sinkStag(SegmentBytes segment) {
    return segment.getInt(SINK_STAG_OFFSET);
  }

  /**
   * Data Sink Tagged Offset of a received Read Request segment.
   *
   * @param segment the received DDP segment
   * @return the Data Sink Tagged Offset of a received Read Request segment
   */
  public static long sinkTo(SegmentBytes segment) {
    return segment.getLong(SINK_TO_OFFSET);
  }

  /**
   * RDMARDSZ (unsigned) of a received Read Request segment.
   *
   * @param segment the received DDP segment
   * @return the RDMARDSZ (unsigned) of a received Read Request segment
   */
  public static int readSize(SegmentBytes segment) {
    return segment.getInt(RDMARDSZ_OFFSET);
  }

  /**
   * Data Source STag of a received Read Request segment.
   *
   * @param segment the received DDP segment
   * @return the Data Source STag of a received Read Request segment
   */
  public static int srcStag(SegmentBytes segment) {
    return segment.getInt(SRC_STAG_OFFSET);
  }

  /**
   * Data Source Tagged Offset of a received Read Request segment.
   *
   * @param segment the received DDP segment
   * @return the Data Source Tagged Offset of a received Read Request segment
   */
  public static long srcTo(SegmentBytes segment) {
    return segment.getLong(SRC_TO_OFFSET);
  }
}
