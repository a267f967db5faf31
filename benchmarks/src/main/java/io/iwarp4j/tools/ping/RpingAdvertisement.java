package io.iwarp4j.tools.ping;

import io.netty.buffer.ByteBuf;

/**
 * Codec of rping's buffer advertisement, {@code struct rping_rdma_info}: the 16 octets a client
 * sends to name a buffer the server may RDMA Read (the start buffer) or RDMA Write (the sink
 * buffer), all big-endian. The server's "go ahead" Sends have the same size (rping sends its
 * unused advertisement buffer, zeros).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                        buf (addr, 64 bits)                    |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       rkey (STag, 32 bits)                    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       size (octets, 32 bits)                  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Note the order differs from {@link io.iwarp4j.verbs.RemoteBuffer#toBytes()} (STag first).
 * Flyweight over absolute indexes: nothing is allocated.
 */
public final class RpingAdvertisement {
  /** Octets of an advertisement (and of every rping Send). */
  public static final int LENGTH = 16;

  private RpingAdvertisement() {
  }

  /**
   * Writes an advertisement at {@code index} without moving the buffer's indexes.
   *
   * @param buf the buffer, at least {@code index + 16} octets long
   * @param index where it starts
   * @param addr the buffer's address (Tagged Offset)
   * @param rkey the STag
   * @param size the buffer's length in octets (unsigned 32 bits)
   */
  public static void encode(ByteBuf buf, int index, long addr, int rkey, int size) {
    buf.setLong(index, addr);
    buf.setInt(index + 8, rkey);
    buf.setInt(index + 12, size);
  }

  /**
   * The advertised address.
   *
   * @param buf the buffer
   * @param index where the advertisement starts
   * @return the address (Tagged Offset), unsigned
   */
  public static long addr(ByteBuf buf, int index) {
    return buf.getLong(index);
  }

  /**
   * The advertised STag.
   *
   * @param buf the buffer
   * @param index where the advertisement starts
   * @return the STag; no assumption about its key bits (siw's are 0)
   */
  public static int rkey(ByteBuf buf, int index) {
    return buf.getInt(index + 8);
  }

  /**
   * The advertised length.
   *
   * @param buf the buffer
   * @param index where the advertisement starts
   * @return the length in octets, unsigned
   */
  public static long size(ByteBuf buf, int index) {
    return buf.getUnsignedInt(index + 12);
  }
}
