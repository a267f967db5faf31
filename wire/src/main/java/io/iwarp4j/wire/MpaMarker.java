package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * Flyweight codec for an MPA Marker (RFC 5044 §4.2): four octets inserted at every 512th octet
 * of a Full Operation stream in a direction whose receiver asked for Markers (§4.3).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |           RESERVED            |            FPDUPTR            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>RESERVED is sent as 0 and ignored on receipt (it is still covered by the CRC). FPDUPTR is
 * the number of stream octets from the first octet of the ULPDU_Length of the FPDU containing
 * the Marker back to the Marker's first octet; a Marker immediately before a ULPDU_Length has
 * FPDUPTR 0. Its two low bits are sent as 0 and treated as 0 on receipt ({@link #FPDUPTR_MASK}).
 */
public final class MpaMarker {
  /** Octets of a Marker. */
  public static final int SIZE = 4;
  /** Offset of the RESERVED field. */
  public static final int RESERVED_OFFSET = 0;
  /** Offset of the FPDUPTR field. */
  public static final int FPDUPTR_OFFSET = 2;
  /** Markers start at every stream position that is a multiple of this. */
  public static final int INTERVAL = 512;
  /** The FPDUPTR bits a receiver looks at: the two low bits are treated as 0. */
  public static final int FPDUPTR_MASK = 0xFFFC;

  private ByteBuf buf;
  private int offset;

  /**
   * Points this flyweight at a Marker starting at absolute index {@code offset}.
   *
   * @param buf the buffer
   * @param offset the index of its first octet in {@code buf}
   * @return this flyweight
   */
  public MpaMarker wrap(ByteBuf buf, int offset) {
    this.buf = buf;
    this.offset = offset;
    return this;
  }

  /**
   * The RESERVED field (ignored by receivers).
   *
   * @return the RESERVED field (ignored by receivers)
   */
  public int reserved() {
    return buf.getUnsignedShort(offset + RESERVED_OFFSET);
  }

  /**
   * FPDUPTR as sent, all 16 bits.
   *
   * @return the FPDUPTR as sent, all 16 bits
   */
  public int fpduPtr() {
    return buf.getUnsignedShort(offset + FPDUPTR_OFFSET);
  }

  /**
   * FPDUPTR as a receiver interprets it: the two low bits cleared.
   *
   * @return the FPDUPTR as a receiver interprets it: the two low bits cleared
   */
  public int effectiveFpduPtr() {
    return fpduPtr() & FPDUPTR_MASK;
  }

  /**
   * Sets RESERVED to 0 and FPDUPTR to {@code fpduPtr}.
   *
   * @param fpduPtr the FPDU pointer
   * @return this flyweight
   */
  public MpaMarker set(int fpduPtr) {
    buf.setInt(offset, checkFpduPtr(fpduPtr));
    return this;
  }

  /**
   * Appends a Marker with RESERVED 0 and the given FPDUPTR to {@code buf}.
   *
   * @param buf the buffer
   * @param fpduPtr the FPDU pointer
   * @return {@code buf}
   */
  public static ByteBuf write(ByteBuf buf, int fpduPtr) {
    return buf.writeInt(checkFpduPtr(fpduPtr));
  }

  /**
   * Whether a Marker starts at stream position {@code pos} (counted from SeqStart).
   *
   * @param pos the TCP stream position
   * @return whether a Marker starts at stream position {@code pos} (counted from SeqStart)
   */
  public static boolean isMarkerPosition(long pos) {
    return (pos & (INTERVAL - 1)) == 0;
  }

  /**
   * Octets from {@code pos} to the next Marker position; 0 when a Marker is due at pos.
   *
   * @param pos the TCP stream position
   * @return octets from {@code pos} to the next Marker position; 0 when a Marker is due at pos
   */
  public static int octetsToNextMarker(long pos) {
    return (int) (-pos & (INTERVAL - 1));
  }

  private static int checkFpduPtr(int fpduPtr) {
    if (fpduPtr < 0 || fpduPtr > 0xFFFF || (fpduPtr & 3) != 0) {
      throw new IllegalArgumentException(
          "FPDUPTR must be a multiple of 4 in 0..65532, not " + fpduPtr);
    }
    return fpduPtr;
  }
}
