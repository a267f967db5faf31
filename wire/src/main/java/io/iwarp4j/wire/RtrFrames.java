package io.iwarp4j.wire;

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
 * |          QN = 0                                               |   6
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          MSN = 1                                              |   10
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          MO = 0                                               |   14
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * RDMA Write RTR (tagged), 14 octets: c1 40 | STag 0 | TO 0 (zero length: neither is checked)
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |1|1| Rsvd  |0 1|0 1|Rsv|0 0 0 0|
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          STag                                                 |   2
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          TO (64 bits)                                         |   6
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * RDMA Read RTR (untagged, QN 1, MSN 1), 46 octets: 41 41, RsvdULP 0, QN 1, MSN 1, MO 0, then
 * the 28-octet Read Request header, all zero:
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Data Sink STag                                       |   18
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Data Sink Tagged Offset (64 bits)                    |   22
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          RDMA Read Message Size = 0                           |   30
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Data Source STag                                     |   34
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Data Source Tagged Offset (64 bits)                  |   38
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Zero-length Read Response (tagged), 14 octets: c1 42 | Sink STag | Sink TO of the request.
 * </pre>
 *
 * Linux siw consumes a Write RTR (STag 0, TO 0) silently and answers a Read RTR with a
 * zero-length Read Response (docs/interop.md, siw finding §5). Receivers check T, L, DV, RV, the
 * opcode, QN, MSN, MO, the length, and the Read size; reserved bits are ignored. The field
 * offsets are those of {@link UntaggedHeader}, {@link TaggedHeader} and {@link ReadRequestHeader};
 * an RTR is named by the {@link RdmapOpcode} it is a zero-length message of (MPA maps its RTR
 * types onto these).
 */
public final class RtrFrames {
  /** Length of the Send RTR. */
  public static final int SEND_LENGTH = UntaggedHeader.LENGTH;
  /** Length of the RDMA Write RTR. */
  public static final int WRITE_LENGTH = TaggedHeader.LENGTH;
  /** Length of the RDMA Read RTR (a Read Request). */
  public static final int READ_REQUEST_LENGTH = UntaggedHeader.LENGTH + ReadRequestHeader.LENGTH;
  /** Length of the zero-length Read Response. */
  public static final int READ_RESPONSE_LENGTH = TaggedHeader.LENGTH;

  /** The message number every untagged RTR uses (the first message of its queue). */
  public static final int RTR_MSN = 1;

  /** T, L and DV of the DDP control octet; the Rsvd bits are not checked. */
  private static final int DDP_CHECK_MASK = DdpControl.T_BIT | DdpControl.L_BIT | DdpControl.DV_MASK;
  /** RV and opcode of the RDMAP control octet; the reserved bits are not checked. */
  private static final int RDMAP_CHECK_MASK = RdmapControl.RV_MASK | RdmapControl.OPCODE_MASK;
  private static final int UNTAGGED_LAST = DdpControl.encode(false, true);
  private static final int TAGGED_LAST = DdpControl.encode(true, true);

  private RtrFrames() {
  }

  /**
   * Length of the RTR of {@code opcode}.
   *
   * @param opcode {@link RdmapOpcode#SEND}, {@link RdmapOpcode#RDMA_WRITE} or
   *     {@link RdmapOpcode#RDMA_READ_REQUEST}
   * @return the length in octets
   */
  public static int length(RdmapOpcode opcode) {
    switch (opcode) {
      case SEND:
        return SEND_LENGTH;
      case RDMA_WRITE:
        return WRITE_LENGTH;
      case RDMA_READ_REQUEST:
        return READ_REQUEST_LENGTH;
      default:
        throw new IllegalArgumentException("no RTR is a " + opcode);
    }
  }

  /**
   * Writes the RTR of {@code opcode} at the writer index; returns its length.
   *
   * @param out the buffer to append to
   * @param opcode {@link RdmapOpcode#SEND}, {@link RdmapOpcode#RDMA_WRITE} or
   *     {@link RdmapOpcode#RDMA_READ_REQUEST}
   * @return the number of octets written
   */
  public static int write(ByteBuf out, RdmapOpcode opcode) {
    switch (opcode) {
      case SEND:
        return writeSend(out);
      case RDMA_WRITE:
        return writeWrite(out);
      case RDMA_READ_REQUEST:
        return writeReadRequest(out);
      default:
        throw new IllegalArgumentException("no RTR is a " + opcode);
    }
  }

  /**
   * Zero-length Send: {@code 41 43 00000000 00000000 00000001 00000000}.
   *
   * @param out the buffer to append to
   * @return the number of octets written
   */
  public static int writeSend(ByteBuf out) {
    UntaggedHeader.write(out, true, RdmapControl.untaggedRsvdUlp(RdmapOpcode.SEND, 0),
        RdmapOpcode.SEND.queueNumber(), RTR_MSN, 0);
    return SEND_LENGTH;
  }

  /**
   * Zero-length RDMA Write: {@code c1 40 00000000 0000000000000000}.
   *
   * @param out the buffer to append to
   * @return the number of octets written
   */
  public static int writeWrite(ByteBuf out) {
    TaggedHeader.write(out, true, RdmapControl.encode(RdmapOpcode.RDMA_WRITE), 0, 0);
    return WRITE_LENGTH;
  }

  /**
   * Zero-length Read Request on QN 1, MSN 1, with an all-zero Read Request header.
   *
   * @param out the buffer to append to
   * @return the number of octets written
   */
  public static int writeReadRequest(ByteBuf out) {
    UntaggedHeader.write(out, true, RdmapControl.untaggedRsvdUlp(RdmapOpcode.RDMA_READ_REQUEST, 0),
        RdmapOpcode.RDMA_READ_REQUEST.queueNumber(), RTR_MSN, 0);
    out.writeZero(ReadRequestHeader.LENGTH);
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
    TaggedHeader.write(out, true, RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE), sinkStag,
        sinkTo);
    return READ_RESPONSE_LENGTH;
  }

  /**
   * Which RTR the ULPDU is, exactly: length, T/L/DV, RDMAP version and opcode, QN/MSN/MO for the
   * untagged ones, and a Read size of 0. Null when it is none of them.
   *
   * @param u the ULPDU
   * @return {@link RdmapOpcode#SEND}, {@link RdmapOpcode#RDMA_WRITE},
   *     {@link RdmapOpcode#RDMA_READ_REQUEST}, or null
   */
  public static RdmapOpcode match(SegmentBytes u) {
    int len = u.length();
    if (len < WRITE_LENGTH) {
      return null;
    }
    int ddp = DdpControl.get(u) & DDP_CHECK_MASK;
    int rdmap = RdmapControl.get(u) & RDMAP_CHECK_MASK;
    if (len == WRITE_LENGTH && ddp == TAGGED_LAST
        && rdmap == RdmapControl.encode(RdmapOpcode.RDMA_WRITE)) {
      return RdmapOpcode.RDMA_WRITE;
    }
    if (ddp != UNTAGGED_LAST || len < SEND_LENGTH || UntaggedHeader.msn(u) != RTR_MSN
        || UntaggedHeader.messageOffset(u) != 0) {
      return null;
    }
    int qn = UntaggedHeader.queueNumber(u);
    if (len == SEND_LENGTH && qn == RdmapOpcode.SEND.queueNumber()
        && rdmap == RdmapControl.encode(RdmapOpcode.SEND)) {
      return RdmapOpcode.SEND;
    }
    if (len == READ_REQUEST_LENGTH && qn == RdmapOpcode.RDMA_READ_REQUEST.queueNumber()
        && rdmap == RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST)
        && ReadRequestHeader.readSize(u) == 0) {
      return RdmapOpcode.RDMA_READ_REQUEST;
    }
    return null;
  }

  /**
   * Whether the ULPDU is a zero-length RDMA Read Response (the answer to a Read RTR).
   *
   * @param u the ULPDU
   * @return whether the ULPDU is a zero-length RDMA Read Response (the answer to a Read RTR)
   */
  public static boolean isZeroLengthReadResponse(SegmentBytes u) {
    return u.length() == READ_RESPONSE_LENGTH
        && (DdpControl.get(u) & DDP_CHECK_MASK) == TAGGED_LAST
        && (RdmapControl.get(u) & RDMAP_CHECK_MASK)
            == RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE);
  }
}
