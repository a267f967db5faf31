package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/**
 * Codec for the RFC 6581 §9 enhanced RDMA connection establishment data: the first four octets
 * of the Private Data of an MPA Request or Reply whose S bit is set (Rev &ge; 2). Network byte
 * order; IRD and ORD are 14-bit unsigned integers.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |A|B|           IRD             |C|D|           ORD             |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  IRD_HALF_OFFSET 0               ORD_HALF_OFFSET 2
 * </pre>
 *
 * A: peer-to-peer model. B: zero-length Send RTR. C: zero-length RDMA Write RTR (unrelated to
 * the CRC bit of the frame header). D: zero-length RDMA Read RTR. With A=0 the sender MUST
 * clear B, C and D and the receiver MUST ignore them (RFC 6581 §9.2). 0x3FFF in IRD or ORD
 * means "no automatic negotiation" (§9.1). The RTR flags are handled as one set, an {@code int}
 * of {@link #RTR_SEND}, {@link #RTR_WRITE} and {@link #RTR_READ} (MPA maps its RTR types onto
 * them).
 *
 * <p>Static accessors on a buffer and an offset: no object per frame.
 */
public final class EnhancedConnectionData {
  /** Octets of enhanced data. */
  public static final int LENGTH = 4;
  /** Offset of the 16-bit half holding A, B and IRD. */
  public static final int IRD_HALF_OFFSET = 0;
  /** Offset of the 16-bit half holding C, D and ORD. */
  public static final int ORD_HALF_OFFSET = 2;
  /** A, in the IRD half. */
  public static final int FLAG_A = 0x8000;
  /** B (zero-length Send RTR), in the IRD half. */
  public static final int FLAG_B = 0x4000;
  /** C (zero-length RDMA Write RTR), in the ORD half. */
  public static final int FLAG_C = 0x8000;
  /** D (zero-length RDMA Read RTR), in the ORD half. */
  public static final int FLAG_D = 0x4000;
  /** The 14-bit IRD / ORD field of each half. */
  public static final int DEPTH_MASK = 0x3FFF;
  /** 0x3FFF in IRD or ORD: no automatic negotiation (RFC 6581 §9.1). */
  public static final int NO_NEGOTIATION = DEPTH_MASK;

  /** In an RTR set: B, the zero-length Send. */
  public static final int RTR_SEND = 1;
  /** In an RTR set: C, the zero-length RDMA Write. */
  public static final int RTR_WRITE = 1 << 1;
  /** In an RTR set: D, the zero-length RDMA Read. */
  public static final int RTR_READ = 1 << 2;

  private EnhancedConnectionData() {
  }

  /**
   * The A flag.
   *
   * @param buf the buffer
   * @param offset the index of the enhanced data in {@code buf}
   * @return the A flag
   */
  public static boolean peerToPeer(ByteBuf buf, int offset) {
    return (buf.getUnsignedShort(offset + IRD_HALF_OFFSET) & FLAG_A) != 0;
  }

  /**
   * The RTR flags that are set (B, C, D), whatever A says; callers ignore them when A=0.
   *
   * @param buf the buffer
   * @param offset the index of the enhanced data in {@code buf}
   * @return the RTR flags that are set (B, C, D) as an RTR set, whatever A says; callers ignore
   *     them when A=0
   */
  public static int rtrFlags(ByteBuf buf, int offset) {
    int irdHalf = buf.getUnsignedShort(offset + IRD_HALF_OFFSET);
    int ordHalf = buf.getUnsignedShort(offset + ORD_HALF_OFFSET);
    return ((irdHalf & FLAG_B) != 0 ? RTR_SEND : 0) | ((ordHalf & FLAG_C) != 0 ? RTR_WRITE : 0)
        | ((ordHalf & FLAG_D) != 0 ? RTR_READ : 0);
  }

  /**
   * The 14-bit IRD.
   *
   * @param buf the buffer
   * @param offset the index of the enhanced data in {@code buf}
   * @return the 14-bit IRD
   */
  public static int ird(ByteBuf buf, int offset) {
    return buf.getUnsignedShort(offset + IRD_HALF_OFFSET) & DEPTH_MASK;
  }

  /**
   * The 14-bit ORD.
   *
   * @param buf the buffer
   * @param offset the index of the enhanced data in {@code buf}
   * @return the 14-bit ORD
   */
  public static int ord(ByteBuf buf, int offset) {
    return buf.getUnsignedShort(offset + ORD_HALF_OFFSET) & DEPTH_MASK;
  }

  /**
   * The four octets as one big-endian int.
   *
   * @param peerToPeer the A flag; when false {@code rtrFlags} must be 0
   * @param rtrFlags the B/C/D flags to set, an RTR set
   * @param ird 0..0x3FFF
   * @param ord 0..0x3FFF
   * @return the four octets as one big-endian int
   */
  public static int encode(boolean peerToPeer, int rtrFlags, int ird, int ord) {
    checkDepth("IRD", ird);
    checkDepth("ORD", ord);
    if ((rtrFlags & ~(RTR_SEND | RTR_WRITE | RTR_READ)) != 0) {
      throw new IllegalArgumentException("RTR set 0x" + Integer.toHexString(rtrFlags)
          + " has bits other than RTR_SEND, RTR_WRITE, RTR_READ");
    }
    if (!peerToPeer && rtrFlags != 0) {
      throw new IllegalArgumentException("RTR flags 0x" + Integer.toHexString(rtrFlags)
          + " need A=1 (RFC 6581 §9.2: with A=0, B=C=D=0)");
    }
    int irdHalf = (peerToPeer ? FLAG_A : 0) | ((rtrFlags & RTR_SEND) != 0 ? FLAG_B : 0) | ird;
    int ordHalf = ((rtrFlags & RTR_WRITE) != 0 ? FLAG_C : 0)
        | ((rtrFlags & RTR_READ) != 0 ? FLAG_D : 0) | ord;
    return (irdHalf << 16) | ordHalf;
  }

  /**
   * Writes the four octets at the writer index (see {@link #encode}).
   *
   * @param out the buffer to append to
   * @param peerToPeer whether the peer-to-peer model is offered
   * @param rtrFlags the RTR types offered, an RTR set
   * @param ird the IRD
   * @param ord the ORD
   */
  public static void write(ByteBuf out, boolean peerToPeer, int rtrFlags, int ird, int ord) {
    out.writeInt(encode(peerToPeer, rtrFlags, ird, ord));
  }

  private static void checkDepth(String what, int value) {
    if (value < 0 || value > DEPTH_MASK) {
      throw new IllegalArgumentException(what + " " + value + " does not fit 14 bits");
    }
  }
}
