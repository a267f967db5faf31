package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Flyweight codec for the RDMAP Terminate message (RFC 5040 §4.8) as one ULPDU: the untagged
 * DDP header on QN 2 (L=1, MO 0), RDMAP opcode 0x7, then the Terminate header. Used by MPA for
 * the RFC 6581 startup errors and reusable by DDP and RDMAP.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |0|1| Rsvd  |0 1|0 1|Rsv|0 1 1 1|   41 47: DDP T=0 L=1 DV=1 | RDMAP RV=1 Terminate
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     RsvdULP (0)                               |   2
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     QN = 2                                    |   6
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     MSN                                       |   10
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     MO = 0                                    |   14
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | Layer | EType |  Error Code   |M|D|R|   Reserved (13, = 0)    |   TERMINATE_CONTROL_OFFSET 18
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  DDP Segment Length (iff D)   |                               |   DDP_SEGMENT_LENGTH_OFFSET 22
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +   TERMINATED_DDP_HEADER_OFFSET 24
 * ~   Terminated DDP Header (iff D: 14 octets if its T=1, else 18) ~
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * ~   Terminated RDMA Header (iff R: 28 octets, a Read Request's)  ~
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * M: the DDP Segment Length is valid; D: the DDP header (and the length field) is included;
 * R: the RDMA header is included. An LLP (MPA) error is Layer 2 / EType 0 with no headers
 * (HdrCt 000), e.g. {@code 20 02 00 00} for a CRC error. Chelsio sends MPA errors with EType 3;
 * {@link #llpErrorCode()} accepts both.
 *
 * <p>Reading: {@link #wrap} a buffer holding the ULPDU, call {@link #check()}, then the
 * accessors. A Terminate is at most {@link #MAX_LENGTH} (70) octets and arrives once per stream, so a receiver that
 * holds it as a {@link SegmentBytes} view copies it into a small buffer first.
 */
public final class TerminateMessage {
  /** Offset of the Terminate Control field (Layer/EType octet), after the untagged header. */
  public static final int TERMINATE_CONTROL_OFFSET = UntaggedHeader.LENGTH;
  /** Offset of the Error Code octet. */
  public static final int ERROR_CODE_OFFSET = TERMINATE_CONTROL_OFFSET + 1;
  /** Offset of the HdrCt (M/D/R) octet. */
  public static final int HDRCT_OFFSET = TERMINATE_CONTROL_OFFSET + 2;
  /** Offset of the DDP Segment Length when D=1. */
  public static final int DDP_SEGMENT_LENGTH_OFFSET = TERMINATE_CONTROL_OFFSET + 4;
  /** Offset of the Terminated DDP Header when D=1. */
  public static final int TERMINATED_DDP_HEADER_OFFSET = DDP_SEGMENT_LENGTH_OFFSET + 2;
  /** Length of a Terminate with no headers (DDP header + Terminate Control + Reserved). */
  public static final int MIN_LENGTH = DDP_SEGMENT_LENGTH_OFFSET;
  /**
   * Length of the Terminated RDMA Header: the RDMAP header of the terminated message, which
   * RFC 5040 §4.8 sends only for a Read Request (28 octets).
   */
  public static final int RDMA_HEADER_LENGTH = ReadRequestHeader.LENGTH;
  /** The longest Terminate: both headers, the DDP one untagged (70 octets). */
  public static final int MAX_LENGTH =
      TERMINATED_DDP_HEADER_OFFSET + UntaggedHeader.LENGTH + RDMA_HEADER_LENGTH;
  /** The longest Terminate after its own DDP header: what the Terminate queue must take (52). */
  public static final int MAX_MESSAGE_LENGTH = MAX_LENGTH - UntaggedHeader.LENGTH;

  /** HdrCt M: DDP Segment Length valid. */
  public static final int HDRCT_M = 0x80;
  /** HdrCt D: DDP header included. */
  public static final int HDRCT_D = 0x40;
  /** HdrCt R: RDMA header included. */
  public static final int HDRCT_R = 0x20;

  /** Terminate layer RDMAP. */
  public static final int LAYER_RDMAP = 0;
  /** Terminate layer DDP. */
  public static final int LAYER_DDP = 1;
  /** Terminate layer LLP (MPA). */
  public static final int LAYER_LLP = 2;
  /** The EType of an MPA error under Layer 2 (RFC 6581 §8). */
  public static final int ERROR_TYPE_MPA = 0;
  /** The EType Chelsio uses for MPA errors (RFC: 0). */
  public static final int CHELSIO_MPA_ERROR_TYPE = 3;

  private static final int UNTAGGED_LAST = DdpControl.encode(false, true);
  private static final int RDMAP_TERMINATE = RdmapControl.encode(RdmapOpcode.TERMINATE);
  /** T, L and DV; the reserved bits are not checked. */
  private static final int DDP_CHECK_MASK = DdpControl.T_BIT | DdpControl.L_BIT | DdpControl.DV_MASK;
  /** RV and opcode; the reserved bits are not checked. */
  private static final int RDMAP_CHECK_MASK = RdmapControl.RV_MASK | RdmapControl.OPCODE_MASK;

  private ByteBuf buf;
  private int offset;
  private int length;

  /**
   * Points this flyweight at the {@code length}-octet ULPDU at absolute index offset.
   *
   * @param buf the buffer holding the segment
   * @param offset the index of its first octet in {@code buf}
   * @param length the number of octets available
   * @return this flyweight
   */
  public TerminateMessage wrap(ByteBuf buf, int offset, int length) {
    this.buf = Objects.requireNonNull(buf, "buf");
    this.offset = offset;
    this.length = length;
    return this;
  }

  /**
   * Null when the wrapped ULPDU is a well-formed Terminate (untagged, L=1, DV=1, RV=1, opcode 7,
   * QN 2, MO 0, and long enough for the headers its D and R bits announce), else the reason.
   *
   * @return null when the wrapped ULPDU is a well-formed Terminate (untagged, L=1, DV=1, RV=1,
   *     opcode 7, QN 2, MO 0, and long enough for the headers its D and R bits announce), else the
   *     reason
   */
  public String check() {
    if (length < MIN_LENGTH) {
      return "Terminate of " + length + " octets is shorter than " + MIN_LENGTH;
    }
    if ((buf.getUnsignedByte(offset + DdpControl.OFFSET) & DDP_CHECK_MASK) != UNTAGGED_LAST) {
      return "not an untagged last DDP segment of version 1";
    }
    if ((buf.getUnsignedByte(offset + RdmapControl.OFFSET) & RDMAP_CHECK_MASK)
        != RDMAP_TERMINATE) {
      return "not an RDMAP version 1 Terminate";
    }
    if (queueNumber() != OpcodeTable.TERMINATE_QN) {
      return "Terminate on QN " + queueNumber() + " instead of 2";
    }
    if (buf.getInt(offset + UntaggedHeader.MO_OFFSET) != 0) {
      return "Terminate with MO " + buf.getInt(offset + UntaggedHeader.MO_OFFSET) + " instead of 0";
    }
    if (ddpHeaderIncluded() && length < TERMINATED_DDP_HEADER_OFFSET + 1) {
      return "D=1 but no room for the DDP Segment Length and header";
    }
    int expected = expectedLength();
    if (length < expected) {
      return "Terminate of " + length + " octets is shorter than the " + expected
          + " its HdrCt bits announce";
    }
    return null;
  }

  /**
   * The length the HdrCt bits (and the terminated DDP header's T bit) imply.
   *
   * @return the length the HdrCt bits (and the terminated DDP header's T bit) imply
   */
  public int expectedLength() {
    int n = MIN_LENGTH;
    if (ddpHeaderIncluded()) {
      n = TERMINATED_DDP_HEADER_OFFSET + terminatedDdpHeaderLength();
    }
    if (rdmaHeaderIncluded()) {
      n += RDMA_HEADER_LENGTH;
    }
    return n;
  }

  /**
   * The QN field.
   *
   * @return the QN field
   */
  public int queueNumber() {
    return buf.getInt(offset + UntaggedHeader.QN_OFFSET);
  }

  /**
   * The MSN field.
   *
   * @return the MSN field
   */
  public int msn() {
    return buf.getInt(offset + UntaggedHeader.MSN_OFFSET);
  }

  /**
   * The Layer nibble.
   *
   * @return the Layer nibble
   */
  public int layer() {
    return buf.getUnsignedByte(offset + TERMINATE_CONTROL_OFFSET) >> 4;
  }

  /**
   * The EType nibble.
   *
   * @return the EType nibble
   */
  public int errorType() {
    return buf.getUnsignedByte(offset + TERMINATE_CONTROL_OFFSET) & 0x0F;
  }

  /**
   * The Error Code octet.
   *
   * @return the Error Code octet
   */
  public int errorCode() {
    return buf.getUnsignedByte(offset + ERROR_CODE_OFFSET);
  }

  /**
   * The M bit.
   *
   * @return the M bit
   */
  public boolean segmentLengthValid() {
    return (buf.getUnsignedByte(offset + HDRCT_OFFSET) & HDRCT_M) != 0;
  }

  /**
   * The D bit.
   *
   * @return the D bit
   */
  public boolean ddpHeaderIncluded() {
    return (buf.getUnsignedByte(offset + HDRCT_OFFSET) & HDRCT_D) != 0;
  }

  /**
   * The R bit.
   *
   * @return the R bit
   */
  public boolean rdmaHeaderIncluded() {
    return (buf.getUnsignedByte(offset + HDRCT_OFFSET) & HDRCT_R) != 0;
  }

  /**
   * The DDP Segment Length (only present when D=1; meaningful when M=1).
   *
   * @return the DDP Segment Length (only present when D=1; meaningful when M=1)
   */
  public int ddpSegmentLength() {
    requireD();
    return buf.getUnsignedShort(offset + DDP_SEGMENT_LENGTH_OFFSET);
  }

  /**
   * Absolute index of the terminated DDP header (D=1).
   *
   * @return the absolute index of the terminated DDP header (D=1)
   */
  public int terminatedDdpHeaderIndex() {
    requireD();
    return offset + TERMINATED_DDP_HEADER_OFFSET;
  }

  /**
   * 14 or 18, by the T bit of the terminated DDP header (D=1).
   *
   * @return 14 or 18, by the T bit of the terminated DDP header (D=1)
   */
  public int terminatedDdpHeaderLength() {
    requireD();
    boolean tagged = (buf.getUnsignedByte(offset + TERMINATED_DDP_HEADER_OFFSET) & DdpControl.T_BIT) != 0;
    return tagged ? TaggedHeader.LENGTH : UntaggedHeader.LENGTH;
  }

  /**
   * Absolute index of the terminated RDMA header (R=1).
   *
   * @return the absolute index of the terminated RDMA header (R=1)
   */
  public int terminatedRdmaHeaderIndex() {
    if (!rdmaHeaderIncluded()) {
      throw new IllegalStateException("R=0: no terminated RDMA header");
    }
    int rel = ddpHeaderIncluded()
        ? TERMINATED_DDP_HEADER_OFFSET + terminatedDdpHeaderLength() : MIN_LENGTH;
    return offset + rel;
  }

  private void requireD() {
    if (!ddpHeaderIncluded()) {
      throw new IllegalStateException("D=0: no DDP Segment Length or terminated DDP header");
    }
  }

  /**
   * The Error Code of an MPA error: Layer 2 with EType 0 (RFC 6581 §8) or 3 (Chelsio). -1 for
   * any other Terminate.
   *
   * @return the Error Code of an LLP (MPA) error, or -1
   */
  public int llpErrorCode() {
    if (layer() != LAYER_LLP) {
      return -1;
    }
    int etype = errorType();
    if (etype != ERROR_TYPE_MPA && etype != CHELSIO_MPA_ERROR_TYPE) {
      return -1;
    }
    return errorCode();
  }

  /**
   * Writes the Terminate for an MPA error: Layer 2, EType 0, {@code errorCode}, HdrCt 000
   * (RFC 5040 Figure 10: LLP errors carry no headers). 22 octets.
   *
   * @param out the buffer to append to
   * @param msn the message sequence number
   * @param errorCode the MPA error code (RFC 5044 §8, RFC 6581 §8)
   * @return the number of octets written
   */
  public static int writeLlpError(ByteBuf out, int msn, int errorCode) {
    return write(out, msn, LAYER_LLP, ERROR_TYPE_MPA, errorCode);
  }

  /**
   * Writes a Terminate without headers (HdrCt 000).
   *
   * @param out the buffer to append to
   * @param msn the message sequence number
   * @param layer the Terminate layer
   * @param errorType the Terminate error type
   * @param errorCode the Terminate error code
   * @return the number of octets written
   */
  public static int write(ByteBuf out, int msn, int layer, int errorType, int errorCode) {
    writeControl(out, msn, layer, errorType, errorCode, 0);
    return MIN_LENGTH;
  }

  /**
   * Writes a Terminate carrying the terminated DDP header (D=1) and, when {@code rdmaHeader} is
   * not null, the terminated RDMA header (R=1).
   *
   * @param out the buffer to append to
   * @param msn the message sequence number
   * @param layer the Terminate layer
   * @param errorType the Terminate error type
   * @param errorCode the Terminate error code
   * @param segmentLengthValid the M bit
   * @param ddpSegmentLength the DDP Segment Length field
   * @param ddpHeader its readable octets are the terminated DDP header (14 if its T bit is set,
   *     else 18); not consumed
   * @param rdmaHeader null, or 28 readable octets; not consumed
   * @return the number of octets written
   */
  public static int write(ByteBuf out, int msn, int layer, int errorType, int errorCode,
      boolean segmentLengthValid, int ddpSegmentLength, ByteBuf ddpHeader, ByteBuf rdmaHeader) {
    Objects.requireNonNull(ddpHeader, "ddpHeader");
    if (ddpSegmentLength < 0 || ddpSegmentLength > 0xFFFF) {
      throw new IllegalArgumentException("DDP Segment Length " + ddpSegmentLength
          + " does not fit 16 bits");
    }
    int ddpLen = ddpHeader.readableBytes();
    int expectedDdp = ddpLen > 0 && (ddpHeader.getUnsignedByte(ddpHeader.readerIndex()) & DdpControl.T_BIT)
        != 0 ? TaggedHeader.LENGTH : UntaggedHeader.LENGTH;
    if (ddpLen != expectedDdp) {
      throw new IllegalArgumentException("terminated DDP header has " + ddpLen
          + " octets; its T bit says " + expectedDdp);
    }
    if (rdmaHeader != null && rdmaHeader.readableBytes() != RDMA_HEADER_LENGTH) {
      throw new IllegalArgumentException("terminated RDMA header has "
          + rdmaHeader.readableBytes() + " octets instead of " + RDMA_HEADER_LENGTH);
    }
    int hdrCt = HDRCT_D | (segmentLengthValid ? HDRCT_M : 0) | (rdmaHeader != null ? HDRCT_R : 0);
    writeControl(out, msn, layer, errorType, errorCode, hdrCt);
    out.writeShort(ddpSegmentLength);
    out.writeBytes(ddpHeader, ddpHeader.readerIndex(), ddpLen);
    int n = TERMINATED_DDP_HEADER_OFFSET + ddpLen;
    if (rdmaHeader != null) {
      out.writeBytes(rdmaHeader, rdmaHeader.readerIndex(), RDMA_HEADER_LENGTH);
      n += RDMA_HEADER_LENGTH;
    }
    return n;
  }

  private static void writeControl(ByteBuf out, int msn, int layer, int errorType,
      int errorCode, int hdrCt) {
    if (layer < 0 || layer > 0xF || errorType < 0 || errorType > 0xF) {
      throw new IllegalArgumentException("Layer " + layer + " / EType " + errorType
          + " must each fit 4 bits");
    }
    if (errorCode < 0 || errorCode > 0xFF) {
      throw new IllegalArgumentException("error code " + errorCode + " does not fit 8 bits");
    }
    UntaggedHeader.write(out, true, RdmapControl.untaggedRsvdUlp(RdmapOpcode.TERMINATE, 0),
        OpcodeTable.TERMINATE_QN, msn, 0);
    out.writeByte(layer << 4 | errorType);
    out.writeByte(errorCode);
    out.writeByte(hdrCt);
    out.writeByte(0);
  }
}
