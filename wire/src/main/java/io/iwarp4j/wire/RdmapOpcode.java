package io.iwarp4j.wire;

/**
 * The RDMAP opcodes (RFC 5040 §4.1 Figure 4, RFC 7306 §4.1). What each is on the wire (tagged
 * or untagged, its queue, its header, ...) is its row of {@link OpcodeTable}; the accessors here
 * read that row. Codes 0xC-0xF are not defined by these documents; {@link #fromCode} returns
 * null for them so the receiver can answer "Unexpected OpCode".
 */
public enum RdmapOpcode {
  /** RDMA Write: tagged. */
  RDMA_WRITE(0x0),
  /** RDMA Read Request: untagged, QN 1, carries the 28-octet Read Request header. */
  RDMA_READ_REQUEST(0x1),
  /** RDMA Read Response: tagged. */
  RDMA_READ_RESPONSE(0x2),
  /** Send: untagged, QN 0. */
  SEND(0x3),
  /** Send with Invalidate: untagged, QN 0, Invalidate STag in RsvdULP. */
  SEND_WITH_INVALIDATE(0x4),
  /** Send with Solicited Event: untagged, QN 0. */
  SEND_WITH_SE(0x5),
  /** Send with Solicited Event and Invalidate: untagged, QN 0, Invalidate STag in RsvdULP. */
  SEND_WITH_SE_AND_INVALIDATE(0x6),
  /** Terminate: untagged, QN 2. */
  TERMINATE(0x7),
  /** Immediate Data (RFC 7306): untagged, QN 0, 8 octets of data. */
  IMMEDIATE_DATA(0x8),
  /** Immediate Data with Solicited Event (RFC 7306): untagged, QN 0. */
  IMMEDIATE_DATA_WITH_SE(0x9),
  /** Atomic Request (RFC 7306): untagged, QN 1 (shares IRD/ORD with Read Requests). */
  ATOMIC_REQUEST(0xA),
  /** Atomic Response (RFC 7306): untagged, QN 3. */
  ATOMIC_RESPONSE(0xB);

  /** {@link #queueNumber()} of a tagged opcode. */
  public static final int NO_QUEUE = OpcodeTable.NO_QUEUE;

  private static final RdmapOpcode[] BY_CODE = new RdmapOpcode[16];

  static {
    for (RdmapOpcode op : values()) {
      BY_CODE[op.code] = op;
    }
  }

  private final int code;

  RdmapOpcode(int code) {
    this.code = code;
  }

  /**
   * The 4-bit wire code.
   *
   * @return the 4-bit wire code
   */
  public int code() {
    return code;
  }

  /**
   * Whether the message travels in tagged DDP segments (T=1).
   *
   * @return whether the message travels in tagged DDP segments (T=1)
   */
  public boolean tagged() {
    return OpcodeTable.has(code, OpcodeTable.TAGGED);
  }

  /**
   * The untagged queue the message uses, or {@link #NO_QUEUE} for a tagged message.
   *
   * @return the untagged queue the message uses, or {@link #NO_QUEUE} for a tagged message
   */
  public int queueNumber() {
    return OpcodeTable.queueNumber(code);
  }

  /**
   * Whether DDP RsvdULP octets 2..5 carry an Invalidate STag (RFC 5040 §4.1).
   *
   * @return whether DDP RsvdULP octets 2..5 carry an Invalidate STag (RFC 5040 §4.1)
   */
  public boolean carriesInvalidateStag() {
    return OpcodeTable.has(code, OpcodeTable.INVALIDATE_STAG);
  }

  /**
   * The opcode with wire code {@code code}, or null for the undefined codes 0xC-0xF.
   *
   * @param code the 4-bit opcode
   * @return the opcode with wire code {@code code}, or null for the undefined codes 0xC-0xF
   * @throws IllegalArgumentException if {@code code} is not a 4-bit value
   */
  public static RdmapOpcode fromCode(int code) {
    if ((code & ~0x0F) != 0) {
      throw new IllegalArgumentException("RDMAP opcode is 4 bits, got " + code);
    }
    return BY_CODE[code];
  }
}
