package io.iwarp4j.verbs;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * What a peer needs to address registered memory with an RDMA Write or Read: the STag (the
 * verbs {@code rkey}), the Tagged Offset of the first octet (the verbs {@code addr}) and the
 * length. Applications usually exchange it in connection private data or in a Send; {@link
 * #toBytes()} and {@link #fromBytes(byte[], int)} give a fixed 16-octet big-endian encoding for
 * that: STag (4), base TO (8), length (4).
 *
 * @param stag the STag
 * @param address the Tagged Offset of the first octet (unsigned)
 * @param length the number of octets, 0 to 2<sup>32</sup>-1
 */
public record RemoteBuffer(int stag, long address, long length) {
  /** Octets of the {@link #toBytes()} encoding. */
  public static final int ENCODED_LENGTH = 16;

  /**
   * Checks the length.
   *
   * @param stag the STag
   * @param address the Tagged Offset of the first octet
   * @param length the number of octets
   * @throws IllegalArgumentException if {@code length} is outside 0..2^32-1
   */
  public RemoteBuffer {
    if (length < 0 || length > SendWorkRequest.MAX_MESSAGE_LENGTH) {
      throw new IllegalArgumentException("remote buffer length " + length + " is outside 0.."
          + SendWorkRequest.MAX_MESSAGE_LENGTH);
    }
  }

  /**
   * The 16-octet encoding: STag, address, length, big-endian.
   *
   * @return a new array
   */
  public byte[] toBytes() {
    byte[] out = new byte[ENCODED_LENGTH];
    ByteBuffer.wrap(out).putInt(stag).putLong(address).putInt((int) length);
    return out;
  }

  /**
   * Decodes the 16-octet encoding of {@link #toBytes()}.
   *
   * @param bytes the array holding it
   * @param offset where it starts
   * @return the decoded descriptor
   * @throws IllegalArgumentException if fewer than 16 octets follow {@code offset}
   */
  public static RemoteBuffer fromBytes(byte[] bytes, int offset) {
    Objects.requireNonNull(bytes, "bytes");
    if (offset < 0 || bytes.length - offset < ENCODED_LENGTH) {
      throw new IllegalArgumentException("a RemoteBuffer takes " + ENCODED_LENGTH
          + " octets; " + Math.max(0, bytes.length - offset) + " follow offset " + offset);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, offset, ENCODED_LENGTH);
    return new RemoteBuffer(b.getInt(), b.getLong(), Integer.toUnsignedLong(b.getInt()));
  }

  @Override
  public String toString() {
    return "RemoteBuffer{stag=0x" + Integer.toHexString(stag) + ", address=0x"
        + Long.toHexString(address) + ", length=" + length + '}';
  }
}
