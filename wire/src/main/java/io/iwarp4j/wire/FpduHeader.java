package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * Flyweight codec for the framing fields of an FPDU (RFC 5044 §4.1): the 2-octet ULPDU_Length in
 * front of the ULPDU, and the PAD and CRC fields behind it. Wraps a buffer at the offset of the
 * ULPDU_Length field; holds no data of its own, so one instance serves any number of FPDUs.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |         ULPDU_Length          |                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 * |                                                               |
 * ~                 ULPDU (ULPDU_Length octets)                   ~
 * |                                                               |
 * +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                               |        PAD (0..3 octets)      |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                        CRC (4 octets)                         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>ULPDU_Length is big-endian and counts the ULPDU only (never itself, PAD, CRC or Markers).
 * PAD makes ULPDU_Length + ULPDU + PAD a multiple of 4 and is sent as zeros. The CRC field holds
 * the CRC32c value least significant octet first (RFC 5044 §4.4; the iSCSI convention). Markers
 * (see {@link MpaMarker}) are inserted by stream position and are not shown.
 */
public final class FpduHeader {
  /** Offset of ULPDU_Length from the start of the FPDU (Markers aside). */
  public static final int ULPDU_LENGTH_OFFSET = 0;
  /** Octets of the ULPDU_Length field. */
  public static final int ULPDU_LENGTH_SIZE = 2;
  /** Offset of the first ULPDU octet (Markers aside). */
  public static final int ULPDU_OFFSET = ULPDU_LENGTH_OFFSET + ULPDU_LENGTH_SIZE;
  /** Octets of the CRC field; present even when CRC is not in use. */
  public static final int CRC_SIZE = 4;
  /** The largest value ULPDU_Length can hold. */
  public static final int MAX_ULPDU_LENGTH = 0xFFFF;
  /** The largest FPDU without Markers: ULPDU_Length + 65535 + PAD 3 + CRC. */
  public static final int MAX_FPDU_LENGTH =
      ULPDU_LENGTH_SIZE + MAX_ULPDU_LENGTH + 3 + CRC_SIZE;

  private ByteBuf buf;
  private int offset;

  /**
   * Points this flyweight at the ULPDU_Length field at absolute index {@code offset}.
   *
   * @param buf the buffer
   * @param offset the index of the header in {@code buf}
   * @return this flyweight
   */
  public FpduHeader wrap(ByteBuf buf, int offset) {
    this.buf = buf;
    this.offset = offset;
    return this;
  }

  /**
   * ULPDU_Length: the number of ULPDU octets that follow.
   *
   * @return this flyweight
   */
  public int ulpduLength() {
    return buf.getUnsignedShort(offset + ULPDU_LENGTH_OFFSET);
  }

  /**
   * Sets ULPDU_Length.
   *
   * @param length the ULPDU length
   * @return this flyweight
   */
  public FpduHeader ulpduLength(int length) {
    buf.setShort(offset + ULPDU_LENGTH_OFFSET, checkUlpduLength(length));
    return this;
  }

  /**
   * Number of PAD octets after a ULPDU of {@code ulpduLength} octets: {@code (-(L + 2)) & 3}.
   *
   * @param ulpduLength the ULPDU length in octets
   * @return number of PAD octets after a ULPDU of {@code ulpduLength} octets: {@code (-(L + 2)) &
   *     3}
   */
  public static int padLength(int ulpduLength) {
    return -(ulpduLength + ULPDU_LENGTH_SIZE) & 3;
  }

  /**
   * Octets of an FPDU carrying {@code ulpduLength} ULPDU octets, Markers not counted.
   *
   * @param ulpduLength the ULPDU length in octets
   * @return octets of an FPDU carrying {@code ulpduLength} ULPDU octets, Markers not counted
   */
  public static int fpduLength(int ulpduLength) {
    return ULPDU_LENGTH_SIZE + ulpduLength + padLength(ulpduLength) + CRC_SIZE;
  }

  /**
   * Reads a CRC field (least significant octet first) at absolute index {@code index}.
   *
   * @param buf the buffer
   * @param index the index of the CRC field
   * @return the CRC value
   */
  public static int getCrc(ByteBuf buf, int index) {
    return buf.getIntLE(index);
  }

  /**
   * Appends a CRC field (least significant octet first) holding {@code crc}.
   *
   * @param buf the buffer
   * @param crc the CRC32c value
   * @return {@code buf}
   */
  public static ByteBuf writeCrc(ByteBuf buf, int crc) {
    return buf.writeIntLE(crc);
  }

  private static int checkUlpduLength(int length) {
    if (length < 0 || length > MAX_ULPDU_LENGTH) {
      throw new IllegalArgumentException("ULPDU_Length must be 0..65535, not " + length);
    }
    return length;
  }
}
