package io.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;

/**
 * The RFC 6581 §9.2 Ready-to-Receive (RTR) ULPDUs an Initiator sends as its first FPDU in the
 * peer-to-peer model, and the zero-length RDMA Read Response a Responder returns for a Read
 * RTR. Each is one complete DDP Segment (DDP header + RDMAP control), without the MPA framing.
 *
 * <pre>
 * Send RTR (untagged, QN 0, MSN 1), 18 octets:
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |0|1| Rsvd  |0 1|0 1|Rsv|0 0 1 1|   41 43: T=0 L=1 DV=1 | RV=1 Send
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          RsvdULP (Invalidate STag, 0)                         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          QN = 0                                               |   QN_OFFSET 6
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          MSN = 1                                              |   MSN_OFFSET 10
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          MO = 0                                               |   MO_OFFSET 14
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * RDMA Write RTR (tagged), 14 octets: c1 40 | STag 0 | TO 0 (zero length: neither is checked)
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |1|1| Rsvd  |0 1|0 1|Rsv|0 0 0 0|
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          STag                                                 |   STAG_OFFSET 2
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          TO (64 bits)                                         |   TO_OFFSET 6
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * RDMA Read RTR (untagged, QN 1, MSN 1), 46 octets: 41 41, RsvdULP 0, QN 1, MSN 1, MO 0, then
 * the 28-octet Read Request header, all zero:
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Data Sink STag                                       |   READ_SINK_STAG_OFFSET 18
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Data Sink Tagged Offset (64 bits)                    |   READ_SINK_TO_OFFSET 22
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          RDMA Read Message Size = 0                           |   READ_SIZE_OFFSET 30
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Data Source STag                                     |   34
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Data Source Tagged Offset (64 bits)                  |   38
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Zero-length Read Response (tagged), 14 octets: c1 42 | Sink STag | Sink TO of the request.
 * </pre>
 *
 * Linux siw consumes a Write RTR with STag 0 or 1 silently and answers a Read RTR with a
 * zero-length Read Response (FINDINGS §5). Receivers check T, L, DV, RV, the opcode, QN, MSN,
 * MO, the length, and the Read size; reserved bits are ignored.
 */
public final class RtrFrames {
  /** Length of the Send RTR. */
  public static final int SEND_LENGTH = 18;
  /** Length of the RDMA Write RTR. */
  public static final int WRITE_LENGTH = 14;
  /** Length of the RDMA Read RTR (a Read Request). */
  public static final int READ_REQUEST_LENGTH = 46;
  /** Length of the zero-length Read Response. */
  public static final int READ_RESPONSE_LENGTH = 14;

  /** Offset of the DDP control octet. */
  public static final int DDP_CONTROL_OFFSET = 0;
  /** Offset of the RDMAP control octet. */
  public static final int RDMAP_CONTROL_OFFSET = 1;
  /** Offset of the STag of a tagged header. */
  public static final int STAG_OFFSET = 2;
  /** Offset of the TO of a tagged header. */
  public static final int TO_OFFSET = 6;
  /** Offset of QN in an untagged header. */
  public static final int QN_OFFSET = 6;
  /** Offset of MSN in an untagged header. */
  public static final int MSN_OFFSET = 10;
  /** Offset of MO in an untagged header. */
  public static final int MO_OFFSET = 14;
  /** Offset of the Read Request's Data Sink STag. */
  public static final int READ_SINK_STAG_OFFSET = 18;
  /** Offset of the Read Request's Data Sink Tagged Offset. */
  public static final int READ_SINK_TO_OFFSET = 22;
  /** Offset of the Read Request's RDMA Read Message Size. */
  public static final int READ_SIZE_OFFSET = 30;

  /** The queue and message number every untagged RTR uses (the first message of its queue). */
  public static final int RTR_MSN = 1;

  private static final int UNTAGGED_LAST = 0x41;
  private static final int TAGGED_LAST = 0xC1;
  /** T, L and DV of the DDP control octet; the Rsvd bits are not checked. */
  private static final int DDP_CHECK_MASK = 0xC3;
  /** RV and opcode of the RDMAP control octet; the reserved bits are not checked. */
  private static final int RDMAP_CHECK_MASK = 0xCF;
  private static final int RDMAP_V1 = 0x40;
  private static final int OP_WRITE = 0x0;
  private static final int OP_READ_REQUEST = 0x1;
  private static final int OP_READ_RESPONSE = 0x2;
  private static final int OP_SEND = 0x3;

  private RtrFrames() {
  }

  /**
   * Length of the RTR ULPDU of {@code type}.
   *
   * @param type the RTR type
   * @return the length in octets
   */
  public static int length(RtrType type) {
    switch (type) {
      case SEND:
        return SEND_LENGTH;
      case WRITE:
        return WRITE_LENGTH;
      case READ:
        return READ_REQUEST_LENGTH;
      default:
        throw new IllegalArgumentException("unknown RTR type " + type);
    }
  }

  /**
   * Writes the RTR ULPDU of {@code type} at the writer index; returns its length.
   *
   * @param out the buffer to append to
   * @param type the RTR type
   * @return the number of octets written
   */
  public static int write(ByteBuf out, RtrType type) {
    switch (type) {
      case SEND:
        return writeSend(out);
      case WRITE:
        return writeWrite(out);
      case READ:
        return writeReadRequest(out);
      default:
        throw new IllegalArgumentException("unknown RTR type " + type);
    }
  }

  /**
   * Zero-length Send: {@code 41 43 00000000 00000000 00000001 00000000}.
   *
   * @param out the buffer to append to
   * @return the number of octets written
   */
  public static int writeSend(ByteBuf out) {
    out.writeByte(UNTAGGED_LAST);
    out.writeByte(RDMAP_V1 | OP_SEND);
    out.writeInt(0);
    out.writeInt(0);
    out.writeInt(RTR_MSN);
    out.writeInt(0);
    return SEND_LENGTH;
  }

  /**
   * Zero-length RDMA Write: {@code c1 40 00000000 0000000000000000}.
   *
   * @param out the buffer to append to
   * @return the number of octets written
   */
  public static int writeWrite(ByteBuf out) {
    out.writeByte(TAGGED_LAST);
    out.writeByte(RDMAP_V1 | OP_WRITE);
    out.writeInt(0);
    out.writeLong(0);
    return WRITE_LENGTH;
  }

  /**
   * Zero-length Read Request on QN 1, MSN 1, with an all-zero Read Request header.
   *
   * @param out the buffer to append to
   * @return the number of octets written
   */
  public static int writeReadRequest(ByteBuf out) {
    out.writeByte(UNTAGGED_LAST);
    out.writeByte(RDMAP_V1 | OP_READ_REQUEST);
    out.writeInt(0);
    out.writeInt(1);
    out.writeInt(RTR_MSN);
    out.writeInt(0);
    out.writeZero(READ_REQUEST_LENGTH - 18);
    return READ_REQUEST_LENGTH;
  }

  /**
   * Zero-length Read Response tagged to the request's Data Sink STag and Tagged Offset.
   *
   * @param out the buffer to append to
   * @param sinkStag the Data Sink STag
   * @param sinkTo the Data Sink tagged offset
   * @return the number of octets written
   */
  public static int writeReadResponse(ByteBuf out, int sinkStag, long sinkTo) {
    out.writeByte(TAGGED_LAST);
    out.writeByte(RDMAP_V1 | OP_READ_RESPONSE);
    out.writeInt(sinkStag);
    out.writeLong(sinkTo);
    return READ_RESPONSE_LENGTH;
  }

  /**
   * Which RTR the ULPDU is, exactly: length, T/L/DV, RDMAP version and opcode, QN/MSN/MO for the
   * untagged ones, and a Read size of 0. Null when it is none of them.
   *
   * @param u the ULPDU
   * @return which RTR the ULPDU is, exactly: length, T/L/DV, RDMAP version and opcode, QN/MSN/MO
   *     for the untagged ones, and a Read size of 0
   */
  public static RtrType match(Ulpdu u) {
    int len = u.length();
    if (len < WRITE_LENGTH) {
      return null;
    }
    int ddp = u.getUnsignedByte(DDP_CONTROL_OFFSET) & DDP_CHECK_MASK;
    int rdmap = u.getUnsignedByte(RDMAP_CONTROL_OFFSET) & RDMAP_CHECK_MASK;
    if (len == WRITE_LENGTH && ddp == TAGGED_LAST && rdmap == (RDMAP_V1 | OP_WRITE)) {
      return RtrType.WRITE;
    }
    if (ddp != UNTAGGED_LAST || len < SEND_LENGTH || u.getInt(MSN_OFFSET) != RTR_MSN
        || u.getInt(MO_OFFSET) != 0) {
      return null;
    }
    int qn = u.getInt(QN_OFFSET);
    if (len == SEND_LENGTH && qn == 0 && rdmap == (RDMAP_V1 | OP_SEND)) {
      return RtrType.SEND;
    }
    if (len == READ_REQUEST_LENGTH && qn == 1 && rdmap == (RDMAP_V1 | OP_READ_REQUEST)
        && u.getInt(READ_SIZE_OFFSET) == 0) {
      return RtrType.READ;
    }
    return null;
  }

  /**
   * Whether the ULPDU is a zero-length RDMA Read Response (the answer to a Read RTR).
   *
   * @param u the ULPDU
   * @return whether the ULPDU is a zero-length RDMA Read Response (the answer to a Read RTR)
   */
  public static boolean isZeroLengthReadResponse(Ulpdu u) {
    return u.length() == READ_RESPONSE_LENGTH
        && (u.getUnsignedByte(DDP_CONTROL_OFFSET) & DDP_CHECK_MASK) == TAGGED_LAST
        && (u.getUnsignedByte(RDMAP_CONTROL_OFFSET) & RDMAP_CHECK_MASK)
            == (RDMAP_V1 | OP_READ_RESPONSE);
  }
}
