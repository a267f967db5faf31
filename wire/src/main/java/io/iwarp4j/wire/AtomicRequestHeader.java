package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * The Atomic Operation Request Header (RFC 7306 §5.2.1, Figure 4): 52 octets right after the
 * untagged DDP header of an Atomic Request (opcode 0xA, QN 1). Every field is big-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      Reserved (Not Used)              |AOpCode|
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       Request Identifier                      |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          Remote STag                          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      Remote Tagged Offset                     |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       Add or Swap Data                        |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       Add or Swap Mask                        |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         Compare Data                          |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         Compare Mask                          |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The 28 reserved bits are sent as zero and ignored on receive. For FetchAdd the Compare Data is
 * sent as zero and the Compare Mask as all ones (both ignored on receive). {@code *_OFFSET}
 * constants count from the first octet of the RDMAP header (the octet after the DDP header);
 * {@link #write} appends the bare 52 octets. A stateless codec: static accessors over a buffer
 * and an index, no object per message.
 */
public final class AtomicRequestHeader {
  /** Offset of the word holding the 4-bit AOpCode in its low bits. */
  public static final int AOPCODE_WORD_OFFSET = 0;
  /** Offset of the 32-bit Request Identifier. */
  public static final int REQUEST_ID_OFFSET = 4;
  /** Offset of the 32-bit Remote STag. */
  public static final int REMOTE_STAG_OFFSET = 8;
  /** Offset of the 64-bit Remote Tagged Offset. */
  public static final int REMOTE_TO_OFFSET = 12;
  /** Offset of the 64-bit Add or Swap Data. */
  public static final int ADD_OR_SWAP_DATA_OFFSET = 20;
  /** Offset of the 64-bit Add or Swap Mask. */
  public static final int ADD_OR_SWAP_MASK_OFFSET = 28;
  /** Offset of the 64-bit Compare Data. */
  public static final int COMPARE_DATA_OFFSET = 36;
  /** Offset of the 64-bit Compare Mask. */
  public static final int COMPARE_MASK_OFFSET = 44;
  /** Length of the Atomic Request header in octets. */
  public static final int LENGTH = 52;
  /** Length of a whole Atomic Request DDP segment: the untagged DDP header and this header. */
  public static final int SEGMENT_LENGTH = UntaggedHeader.LENGTH + LENGTH;

  private AtomicRequestHeader() {
  }

  /**
   * Appends the 52-octet Atomic Request header at {@code dst}'s writer index.
   *
   * @param dst the buffer to write to
   * @param aopcode the 4-bit Atomic Operation Code
   * @param requestId the Request Identifier
   * @param remoteStag the Remote STag
   * @param remoteTo the Remote Tagged Offset
   * @param addOrSwapData the Add Data (FetchAdd) or Swap Data (CmpSwap)
   * @param addOrSwapMask the Add Mask or Swap Mask
   * @param compareData the Compare Data (0 for FetchAdd)
   * @param compareMask the Compare Mask (all ones for FetchAdd)
   * @throws IllegalArgumentException when {@code aopcode} does not fit 4 bits
   */
  public static void write(ByteBuf dst, int aopcode, int requestId, int remoteStag, long remoteTo,
      long addOrSwapData, long addOrSwapMask, long compareData, long compareMask) {
    if ((aopcode & ~0xF) != 0) {
      throw new IllegalArgumentException("AOpCode is 4 bits, got " + aopcode);
    }
    dst.ensureWritable(LENGTH);
    dst.writeInt(aopcode);
    dst.writeInt(requestId);
    dst.writeInt(remoteStag);
    dst.writeLong(remoteTo);
    dst.writeLong(addOrSwapData);
    dst.writeLong(addOrSwapMask);
    dst.writeLong(compareData);
    dst.writeLong(compareMask);
  }

  /**
   * The 4-bit AOpCode (the 28 reserved bits before it are ignored).
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the AOpCode, 0..15
   */
  public static int aopcode(ByteBuf buf, int start) {
    return buf.getInt(start + AOPCODE_WORD_OFFSET) & 0xF;
  }

  /**
   * The Request Identifier.
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the raw 32 bits
   */
  public static int requestId(ByteBuf buf, int start) {
    return buf.getInt(start + REQUEST_ID_OFFSET);
  }

  /**
   * The Remote STag.
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the raw 32 bits
   */
  public static int remoteStag(ByteBuf buf, int start) {
    return buf.getInt(start + REMOTE_STAG_OFFSET);
  }

  /**
   * The Remote Tagged Offset.
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the TO, unsigned
   */
  public static long remoteTo(ByteBuf buf, int start) {
    return buf.getLong(start + REMOTE_TO_OFFSET);
  }

  /**
   * The Add Data (FetchAdd) or Swap Data (CmpSwap).
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the 64-bit value
   */
  public static long addOrSwapData(ByteBuf buf, int start) {
    return buf.getLong(start + ADD_OR_SWAP_DATA_OFFSET);
  }

  /**
   * The Add Mask (FetchAdd) or Swap Mask (CmpSwap).
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the 64-bit mask
   */
  public static long addOrSwapMask(ByteBuf buf, int start) {
    return buf.getLong(start + ADD_OR_SWAP_MASK_OFFSET);
  }

  /**
   * The Compare Data (CmpSwap).
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the 64-bit value
   */
  public static long compareData(ByteBuf buf, int start) {
    return buf.getLong(start + COMPARE_DATA_OFFSET);
  }

  /**
   * The Compare Mask (CmpSwap).
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the 64-bit mask
   */
  public static long compareMask(ByteBuf buf, int start) {
    return buf.getLong(start + COMPARE_MASK_OFFSET);
  }
}
