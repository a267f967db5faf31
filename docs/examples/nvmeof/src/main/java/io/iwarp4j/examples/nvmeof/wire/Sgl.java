package io.iwarp4j.examples.nvmeof.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The one SGL descriptor in a command's data pointer (octets 24-39 of the command; NVMe Base
 * 2.0 section 4.1.8, NVMe over Fabrics 1.1 section 2.3; Linux {@code struct nvme_sgl_desc} and
 * {@code struct nvme_keyed_sgl_desc}). Octet 15 is the identifier: type in bits 7:4, subtype in
 * bits 3:0. Little-endian.
 *
 * <pre>
 * Keyed SGL Data Block (type 0x4): the data is in host memory, reached by RDMA
 *   octets 0-7    address (the Tagged Offset the host registered)
 *   octets 8-10   length, 24 bits
 *   octets 11-14  key (the STag)
 *   octet  15     0x40: subtype 0x0 address; 0x4F: subtype 0xF, invalidate the key
 *                 (the target answers with Send with Invalidate naming it)
 *
 * SGL Data Block (type 0x0), subtype 0x1 offset: the data is in the capsule
 *   octets 0-7    offset from the start of the capsule's data (after the 64-octet command)
 *   octets 8-11   length, 32 bits
 *   octets 12-14  reserved
 *   octet  15     0x01
 * </pre>
 * A command without data carries a keyed descriptor of length 0 (0x40), as Linux sends.
 */
public final class Sgl {
  /** Identifier octet: keyed data block, address subtype. */
  public static final int KEYED_ADDRESS = 0x40;
  /** Identifier octet: keyed data block, invalidate the key with the response. */
  public static final int KEYED_INVALIDATE = 0x4F;
  /** Identifier octet: data block in the capsule, offset subtype. */
  public static final int INLINE_OFFSET = 0x01;
  /** The most a keyed descriptor can describe: 2^24 - 1 octets. */
  public static final int MAX_KEYED_LENGTH = 0xFF_FFFF;

  private Sgl() {
  }

  private static ByteBuffer le(ByteBuffer b) {
    return b.order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The identifier octet of the descriptor at {@code at}. */
  public static int identifier(ByteBuffer b, int at) {
    return b.get(at + 15) & 0xFF;
  }

  public static boolean isKeyed(ByteBuffer b, int at) {
    return (identifier(b, at) >>> 4) == 0x4;
  }

  public static long address(ByteBuffer b, int at) {
    return le(b).getLong(at);
  }

  /** The length of either kind: 24 bits if keyed, 32 otherwise. */
  public static long length(ByteBuffer b, int at) {
    le(b);
    if (isKeyed(b, at)) {
      return (b.get(at + 8) & 0xFF) | (b.get(at + 9) & 0xFF) << 8 | (b.get(at + 10) & 0xFF) << 16;
    }
    return b.getInt(at + 8) & 0xFFFF_FFFFL;
  }

  public static int key(ByteBuffer b, int at) {
    return le(b).getInt(at + 11);
  }

  /**
   * Writes a keyed data block descriptor.
   *
   * @param b the command's memory
   * @param at where the descriptor starts (the command's offset + {@link Sqe#DPTR})
   * @param address the Tagged Offset of the host's buffer
   * @param length octets, at most {@link #MAX_KEYED_LENGTH}
   * @param key the STag
   * @param invalidate whether the target should invalidate the key with its response
   */
  public static void putKeyed(ByteBuffer b, int at, long address, int length, int key,
      boolean invalidate) {
    if (length < 0 || length > MAX_KEYED_LENGTH) {
      throw new IllegalArgumentException("a keyed SGL length is 24 bits, not " + length);
    }
    le(b).putLong(at, address);
    b.put(at + 8, (byte) length).put(at + 9, (byte) (length >>> 8))
        .put(at + 10, (byte) (length >>> 16));
    b.putInt(at + 11, key);
    b.put(at + 15, (byte) (invalidate ? KEYED_INVALIDATE : KEYED_ADDRESS));
  }

  /** Writes a data block descriptor for {@code length} octets of in-capsule data at offset 0. */
  public static void putInline(ByteBuffer b, int at, int length) {
    le(b).putLong(at, 0);
    b.putInt(at + 8, length);
    b.put(at + 12, (byte) 0).put(at + 13, (byte) 0).put(at + 14, (byte) 0);
    b.put(at + 15, (byte) INLINE_OFFSET);
  }
}
