package io.iwarp4j.wire;

/**
 * The octets of one received DDP Segment (one ULPDU), read big-endian by index from its first
 * DDP octet, whatever buffers they arrived in. The flyweights here read received headers through
 * it; MPA's {@code SegmentBytes} (a view over the socket buffers, Markers removed) is the
 * implementation, so the headers are defined once and below every layer.
 */
public interface SegmentBytes {
  /**
   * The number of octets in the segment.
   *
   * @return the number of octets in the segment
   */
  int length();

  /**
   * The octet at {@code index}, unsigned.
   *
   * @param index the octet index within the segment
   * @return the octet at {@code index}, unsigned
   */
  int getUnsignedByte(int index);

  /**
   * A big-endian 16-bit field, unsigned.
   *
   * @param index the octet index within the segment
   * @return a big-endian 16-bit field, unsigned
   */
  int getUnsignedShort(int index);

  /**
   * A big-endian 32-bit field.
   *
   * @param index the octet index within the segment
   * @return a big-endian 32-bit field
   */
  int getInt(int index);

  /**
   * A big-endian 64-bit field.
   *
   * @param index the octet index within the segment
   * @return a big-endian 64-bit field
   */
  long getLong(int index);
}
