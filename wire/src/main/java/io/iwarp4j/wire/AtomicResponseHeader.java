package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * The Atomic Operation Response Header (RFC 7306 §5.2.2, Figure 6): 12 octets right after the
 * untagged DDP header of an Atomic Response (opcode 0xB, QN 3). Big-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Original Request Identifier                |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Original Remote Data Value                 |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The Original Request Identifier echoes the request's Request Identifier; the Original Remote
 * Data Value is the 64-bit value the target held before the operation. {@code *_OFFSET}
 * constants count from the first octet after the DDP header. A stateless codec.
 */
public final class AtomicResponseHeader {
  /** Offset of the 32-bit Original Request Identifier. */
  public static final int REQUEST_ID_OFFSET = 0;
  /** Offset of the 64-bit Original Remote Data Value. */
  public static final int ORIGINAL_VALUE_OFFSET = 4;
  /** Length of the Atomic Response header in octets. */
  public static final int LENGTH = 12;
  /** Length of a whole Atomic Response DDP segment: the untagged DDP header and this header. */
  public static final int SEGMENT_LENGTH = UntaggedHeader.LENGTH + LENGTH;

  private AtomicResponseHeader() {
  }

  /**
   * Appends the 12-octet Atomic Response header at {@code dst}'s writer index.
   *
   * @param dst the buffer to write to
   * @param requestId the Original Request Identifier
   * @param originalValue the Original Remote Data Value
   */
  public static void write(ByteBuf dst, int requestId, long originalValue) {
    dst.ensureWritable(LENGTH);
    dst.writeInt(requestId);
    dst.writeLong(originalValue);
  }

  /**
   * The Original Request Identifier.
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the raw 32 bits
   */
  public static int requestId(ByteBuf buf, int start) {
    return buf.getInt(start + REQUEST_ID_OFFSET);
  }

  /**
   * The Original Remote Data Value.
   *
   * @param buf the buffer holding the header
   * @param start the index of the header's first octet
   * @return the 64-bit value
   */
  public static long originalValue(ByteBuf buf, int start) {
    return buf.getLong(start + ORIGINAL_VALUE_OFFSET);
  }
}
