package io.iwarp4j.verbs;

/**
 * The RDMAP message types (opcodes) the counters distinguish: RFC 5040 §4.1 and RFC 7306 §4.1.
 * Each has its 4-bit wire code, the value Wireshark shows as {@code iwarp_rdma.opcode}.
 */
public enum RdmapMessageType {
  /** RDMA Write (0x0). */
  RDMA_WRITE(0x0),
  /** RDMA Read Request (0x1). */
  RDMA_READ_REQUEST(0x1),
  /** RDMA Read Response (0x2). */
  RDMA_READ_RESPONSE(0x2),
  /** Send (0x3). */
  SEND(0x3),
  /** Send with Invalidate (0x4). */
  SEND_WITH_INVALIDATE(0x4),
  /** Send with Solicited Event (0x5). */
  SEND_WITH_SE(0x5),
  /** Send with Solicited Event and Invalidate (0x6). */
  SEND_WITH_SE_AND_INVALIDATE(0x6),
  /** Terminate (0x7). */
  TERMINATE(0x7),
  /** Immediate Data, RFC 7306 (0x8). */
  IMMEDIATE_DATA(0x8),
  /** Immediate Data with Solicited Event, RFC 7306 (0x9). */
  IMMEDIATE_DATA_WITH_SE(0x9),
  /** Atomic Request, RFC 7306 (0xA). */
  ATOMIC_REQUEST(0xA),
  /** Atomic Response, RFC 7306 (0xB). */
  ATOMIC_RESPONSE(0xB);

  private final int code;

  RdmapMessageType(int code) {
    this.code = code;
  }

  /**
   * The 4-bit RDMAP opcode on the wire.
   *
   * @return 0x0 to 0xB
   */
  public int code() {
    return code;
  }
}
