package io.iwarp4j.mpa;

import io.iwarp4j.wire.SegmentBytes;
import io.netty.buffer.ByteBuf;

/**
 * A received ULPDU (one DDP Segment) as a read-only view over the socket buffers it arrived in.
 *
 * <p>The octets may be spread over several pieces (TCP reads, or the gaps left by removed
 * Markers); they are never gathered into one contiguous staging buffer. Accessors take indexes
 * relative to the first ULPDU octet (the first DDP header octet) and read big-endian, as every
 * DDP/RDMAP field is. {@link #getBytes} copies payload out piece by piece: that is the one copy
 * a payload makes on its way to registered memory.
 *
 * <p>One instance is reused by its decoder for every ULPDU; it is valid only during
 * {@link UlpduListener#onUlpdu}. Not thread-safe: it lives on the connection's event loop.
 */
public final class Ulpdu implements SegmentBytes {
  private ByteBuf[] bufs;
  private int[] offsets;
  private int[] lengths;
  /** Cumulative ULPDU index at which each piece starts. */
  private int[] starts;
  private int pieces;
  private int length;

  /**
   * Creates an empty view with room for {@code initialPieces} pieces (it grows if needed).
   *
   * @param initialPieces the number of pieces it holds before growing
   */
  public Ulpdu(int initialPieces) {
    int n = Math.max(1, initialPieces);
    bufs = new ByteBuf[n];
    offsets = new int[n];
    lengths = new int[n];
    starts = new int[n];
  }

  /** Forgets all pieces (the caller owns and releases the buffers). */
  public void clear() {
    for (int i = 0; i < pieces; i++) {
      bufs[i] = null;
    }
    pieces = 0;
    length = 0;
  }

  /**
   * Appends {@code len} octets of {@code buf} starting at absolute index {@code offset}.
   * The view does not retain the buffer: the caller keeps it alive while the view is in use.
   * Adjacent ranges of the same buffer are merged.
   *
   * @param buf the buffer holding the piece
   * @param offset the index of the piece's first octet in {@code buf}
   * @param len the number of octets
   */
  public void addPiece(ByteBuf buf, int offset, int len) {
    if (len == 0) {
      return;
    }
    if (pieces > 0) {
      int last = pieces - 1;
      if (bufs[last] == buf && offsets[last] + lengths[last] == offset) {
        lengths[last] += len;
        length += len;
        return;
      }
    }
    if (pieces == bufs.length) {
      grow();
    }
    bufs[pieces] = buf;
    offsets[pieces] = offset;
    lengths[pieces] = len;
    starts[pieces] = length;
    pieces++;
    length += len;
  }

  private void grow() {
    int n = bufs.length * 2;
    bufs = java.util.Arrays.copyOf(bufs, n);
    offsets = java.util.Arrays.copyOf(offsets, n);
    lengths = java.util.Arrays.copyOf(lengths, n);
    starts = java.util.Arrays.copyOf(starts, n);
  }

  /**
   * Number of octets in the ULPDU (the FPDU's ULPDU_Length).
   *
   * @return number of octets in the ULPDU (the FPDU's ULPDU_Length)
   */
  @Override
  public int length() {
    return length;
  }

  /**
   * Number of pieces the octets are spread over.
   *
   * @return number of pieces the octets are spread over
   */
  public int pieceCount() {
    return pieces;
  }

  /**
   * The buffer holding piece {@code i}.
   *
   * @param i the piece index, from 0
   * @return the buffer holding piece {@code i}
   */
  public ByteBuf pieceBuffer(int i) {
    checkPiece(i);
    return bufs[i];
  }

  /**
   * Absolute index of piece {@code i} in {@link #pieceBuffer}.
   *
   * @param i the piece index, from 0
   * @return the absolute index of piece {@code i} in {@link #pieceBuffer}
   */
  public int pieceOffset(int i) {
    checkPiece(i);
    return offsets[i];
  }

  /**
   * Octets in piece {@code i}.
   *
   * @param i the piece index, from 0
   * @return octets in piece {@code i}
   */
  public int pieceLength(int i) {
    checkPiece(i);
    return lengths[i];
  }

  private void checkPiece(int i) {
    if (i < 0 || i >= pieces) {
      throw new IndexOutOfBoundsException("piece " + i + " of " + pieces);
    }
  }

  private int pieceOf(int index) {
    // ULPDUs have few pieces; a linear scan beats a binary search at these sizes.
    for (int i = pieces - 1; i > 0; i--) {
      if (starts[i] <= index) {
        return i;
      }
    }
    return 0;
  }

  private void checkRange(int index, int len) {
    if (index < 0 || len < 0 || index > length - len) {
      throw new IndexOutOfBoundsException(
          "ULPDU range [" + index + ", " + index + "+" + len + ") outside length " + length);
    }
  }

  /**
   * The octet at {@code index}, unsigned.
   *
   * @param index the octet index within the ULPDU
   * @return the octet at {@code index}, unsigned
   */
  @Override
  public int getUnsignedByte(int index) {
    checkRange(index, 1);
    int p = pieceOf(index);
    return bufs[p].getUnsignedByte(offsets[p] + index - starts[p]);
  }

  /**
   * A big-endian 16-bit field, unsigned.
   *
   * @param index the octet index within the ULPDU
   * @return a big-endian 16-bit field, unsigned
   */
  @Override
  public int getUnsignedShort(int index) {
    checkRange(index, 2);
    int p = pieceOf(index);
    int rel = index - starts[p];
    if (rel + 2 <= lengths[p]) {
      return bufs[p].getUnsignedShort(offsets[p] + rel);
    }
    return (getUnsignedByte(index) << 8) | getUnsignedByte(index + 1);
  }

  /**
   * A big-endian 32-bit field.
   *
   * @param index the octet index within the ULPDU
   * @return a big-endian 32-bit field
   */
  @Override
  public int getInt(int index) {
    checkRange(index, 4);
    int p = pieceOf(index);
    int rel = index - starts[p];
    if (rel + 4 <= lengths[p]) {
      return bufs[p].getInt(offsets[p] + rel);
    }
    return (getUnsignedShort(index) << 16) | getUnsignedShort(index + 2);
  }

  /**
   * A big-endian 64-bit field.
   *
   * @param index the octet index within the ULPDU
   * @return a big-endian 64-bit field
   */
  @Override
  public long getLong(int index) {
    checkRange(index, 8);
    int p = pieceOf(index);
    int rel = index - starts[p];
    if (rel + 8 <= lengths[p]) {
      return bufs[p].getLong(offsets[p] + rel);
    }
    return ((long) getInt(index) << 32) | (getInt(index + 4) & 0xFFFFFFFFL);
  }

  /**
   * Copies {@code len} octets from {@code index} into {@code dst} at {@code dstIndex}.
   *
   * @param index the octet index within the ULPDU
   * @param dst the buffer to write to
   * @param dstIndex the first index in {@code dst}
   * @param len the number of octets
   */
  public void getBytes(int index, ByteBuf dst, int dstIndex, int len) {
    checkRange(index, len);
    int p = pieceOf(index);
    int rel = index - starts[p];
    while (len > 0) {
      int n = Math.min(len, lengths[p] - rel);
      dst.setBytes(dstIndex, bufs[p], offsets[p] + rel, n);
      dstIndex += n;
      len -= n;
      p++;
      rel = 0;
    }
  }

  /**
   * Copies {@code len} octets from {@code index} into a byte array.
   *
   * @param index the octet index within the ULPDU
   * @param dst the buffer to write to
   * @param dstIndex the first index in {@code dst}
   * @param len the number of octets
   */
  public void getBytes(int index, byte[] dst, int dstIndex, int len) {
    checkRange(index, len);
    int p = pieceOf(index);
    int rel = index - starts[p];
    while (len > 0) {
      int n = Math.min(len, lengths[p] - rel);
      bufs[p].getBytes(offsets[p] + rel, dst, dstIndex, n);
      dstIndex += n;
      len -= n;
      p++;
      rel = 0;
    }
  }

  @Override
  public String toString() {
    return "Ulpdu{length=" + length + ", pieces=" + pieces + "}";
  }
}
