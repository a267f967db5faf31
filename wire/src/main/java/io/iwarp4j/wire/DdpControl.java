package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * The DDP Control Field (RFC 5041 §4.1): the first octet of every DDP header, tagged or untagged.
 *
 * <pre>
 *  0 1 2 3 4 5 6 7
 * +-+-+-+-+-+-+-+-+
 * |T|L| Rsvd  | DV|      T = 0x80, L = 0x40, Rsvd = 0x3C, DV = 0x03
 * +-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <ul>
 *   <li>T (Tagged): 1 = a tagged header follows, 0 = an untagged one.
 *   <li>L (Last): 1 on the last segment of a message, 0 on every other segment.
 *   <li>Rsvd: sent as 0, not checked on receipt.
 *   <li>DV (DDP Version): 01b for RFC 5041.
 * </ul>
 *
 * <p>A stateless codec: static accessors over the caller's buffer, no object per segment.
 * Indexes are those of the first DDP octet (the octet after MPA's ULPDU_Length).
 */
public final class DdpControl {
  /** Offset of the control octet from the first DDP octet. */
  public static final int OFFSET = 0;
  /** The Tagged flag. */
  public static final int T_BIT = 0x80;
  /** The Last flag. */
  public static final int L_BIT = 0x40;
  /** The reserved bits: 0 when sending, ignored on receipt. */
  public static final int RSVD_MASK = 0x3C;
  /** The DDP Version bits. */
  public static final int DV_MASK = 0x03;
  /** The DDP Version of RFC 5041. */
  public static final int VERSION = 1;

  private DdpControl() {
  }

  /**
   * The control octet for a segment of this kind: Rsvd 0, DV 1.
   *
   * @param tagged whether the segment is tagged
   * @param last the L bit: whether this is the last segment of the message
   * @return the control octet for a segment of this kind: Rsvd 0, DV 1
   */
  public static int encode(boolean tagged, boolean last) {
    return (tagged ? T_BIT : 0) | (last ? L_BIT : 0) | VERSION;
  }

  /**
   * Whether the T bit of {@code control} is set.
   *
   * @param control the control field value
   * @return whether the T bit of {@code control} is set
   */
  public static boolean isTagged(int control) {
    return (control & T_BIT) != 0;
  }

  /**
   * Whether the L bit of {@code control} is set.
   *
   * @param control the control field value
   * @return whether the L bit of {@code control} is set
   */
  public static boolean isLast(int control) {
    return (control & L_BIT) != 0;
  }

  /**
   * The DV field of {@code control} (0..3).
   *
   * @param control the control field value
   * @return the DV field of {@code control} (0..3)
   */
  public static int version(int control) {
    return control & DV_MASK;
  }

  /**
   * The control octet of the DDP header starting at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the control octet of the DDP header starting at absolute index {@code ddpStart}
   */
  public static int get(ByteBuf buf, int ddpStart) {
    return buf.getUnsignedByte(ddpStart + OFFSET);
  }

  /**
   * The control octet of a received segment.
   *
   * @param segment the received DDP segment
   * @return the control octet of a received segment
   */
  public static int get(SegmentBytes segment) {
    return segment.getUnsignedByte(OFFSET);
  }
}
