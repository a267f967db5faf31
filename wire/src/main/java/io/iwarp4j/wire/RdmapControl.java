package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * The RDMAP Control Field and Invalidate STag (RFC 5040 §4.1): RDMAP's use of the DDP RsvdULP
 * field. The control field is the second octet of every DDP header; in untagged headers RsvdULP
 * octets 2..5 carry the Invalidate STag (Send with Invalidate variants only, else 0).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *                                 +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *                                 |T|L| Resrv | DV| RV|Rsv| Opcode|
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                        Invalidate STag                        |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * RV (RDMAP version) = 01b for RFC 5040 (00b was the RDMA Consortium's); Rsv is sent as 0 and
 * ignored on receipt; Opcode is an {@link RdmapOpcode} code. Offsets count from the first DDP
 * octet. A stateless codec: static accessors, no object per message.
 */
public final class RdmapControl {
  /** Offset of the RDMAP Control Field: the first DDP RsvdULP octet. */
  public static final int OFFSET = 1;
  /** Offset of the Invalidate STag: DDP RsvdULP octets 2..5 (untagged headers only). */
  public static final int INVALIDATE_STAG_OFFSET = 2;
  /** The RDMAP Version bits. */
  public static final int RV_MASK = 0xC0;
  /** Shift of the RDMAP Version bits. */
  public static final int RV_SHIFT = 6;
  /** The reserved bits: 0 when sending, ignored on receipt. */
  public static final int RSV_MASK = 0x30;
  /** The opcode bits. */
  public static final int OPCODE_MASK = 0x0F;
  /** The RDMAP version of RFC 5040. */
  public static final int VERSION = 1;

  private RdmapControl() {
  }

  /**
   * The control octet for {@code opcode}: RV 01b, Rsv 0.
   *
   * @param opcode the RDMAP opcode
   * @return the control octet for {@code opcode}: RV 01b, Rsv 0
   */
  public static int encode(RdmapOpcode opcode) {
    return (VERSION << RV_SHIFT) | opcode.code();
  }

  /**
   * The RV field of a control octet (0..3).
   *
   * @param control the control field value
   * @return the RV field of a control octet (0..3)
   */
  public static int version(int control) {
    return (control & RV_MASK) >>> RV_SHIFT;
  }

  /**
   * The raw 4-bit opcode of a control octet; see {@link RdmapOpcode#fromCode}.
   *
   * @param control the control field value
   * @return the raw 4-bit opcode of a control octet; see {@link RdmapOpcode#fromCode}
   */
  public static int opcode(int control) {
    return control & OPCODE_MASK;
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

  /**
   * The Invalidate STag of the untagged header starting at absolute index {@code ddpStart}.
   *
   * @param buf the buffer holding the segment
   * @param ddpStart the index of the first DDP octet in {@code buf}
   * @return the Invalidate STag of the untagged header starting at absolute index {@code ddpStart}
   */
  public static int invalidateStag(ByteBuf buf, int ddpStart) {
    return buf.getInt(ddpStart + INVALIDATE_STAG_OFFSET);
  }

  /**
   * The Invalidate STag of a received untagged segment.
   *
   * @param segment the received DDP segment
   * @return the Invalidate STag of a received untagged segment
   */
  public static int invalidateStag(SegmentBytes segment) {
    return segment.getInt(INVALIDATE_STAG_OFFSET);
  }

  /**
   * The 40-bit DDP RsvdULP value of an untagged RDMAP message: control octet, then the
   * Invalidate STag.
   *
   * @param opcode the RDMAP opcode
   * @param invalidateStag the STag to invalidate; must be 0 unless the opcode carries one
   *     (RFC 5040 §4.1: set to zero on transmit for the others)
   * @return the 40-bit DDP RsvdULP value of an untagged RDMAP message: control octet, then the
   *     Invalidate STag
   * @throws IllegalArgumentException for a tagged opcode, or a non-zero STag on an opcode that
   *     carries none
   */
  public static long untaggedRsvdUlp(RdmapOpcode opcode, int invalidateStag) {
    if (opcode.tagged()) {
      throw new IllegalArgumentException(opcode + " is tagged: its RsvdULP is one octet");
    }
    if (invalidateStag != 0 && !opcode.carriesInvalidateStag()) {
      throw new IllegalArgumentException(opcode + " carries no Invalidate STag; it must be 0");
    }
    return ((long) encode(opcode) << 32) | (invalidateStag & 0xFFFF_FFFFL);
  }

  /**
   * The control octet inside a 40-bit untagged RsvdULP value.
   *
   * @param rsvdUlp40 the 40 reserved-for-ULP bits of an untagged header
   * @return the control octet inside a 40-bit untagged RsvdULP value
   */
  public static int controlOf(long rsvdUlp40) {
    return (int) (rsvdUlp40 >>> 32) & 0xFF;
  }

  /**
   * The Invalidate STag inside a 40-bit untagged RsvdULP value.
   *
   * @param rsvdUlp40 the 40 reserved-for-ULP bits of an untagged header
   * @return the Invalidate STag inside a 40-bit untagged RsvdULP value
   */
  public static int invalidateStagOf(long rsvdUlp40) {
    return (int) rsvdUlp40;
  }
}
