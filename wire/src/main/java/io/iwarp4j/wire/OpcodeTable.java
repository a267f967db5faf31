package io.iwarp4j.wire;

import java.util.Arrays;

/**
 * What each RDMAP opcode is on the wire, one row per 4-bit code (RFC 5040 §4.2 Figure 4 and
 * §4.1; RFC 7306 §4.1 and §6): the one table DDP and RDMAP consult instead of deciding an
 * opcode's properties in code (as siw's {@code iwarp_pktinfo}). Rows are {@code int} words in
 * arrays indexed by the code, so a lookup allocates nothing and costs one array load.
 *
 * <pre>
 * code  message                    DDP     QN  RDMAP hdr  payload     sink access  Inv SE Imm  role
 * 0x0   RDMA Write                 tagged   -     0       placed      REMOTE_WRITE  -   -   -  request
 * 0x1   RDMA Read Request          untagged 1    28       -           -             -   -   -  request
 * 0x2   RDMA Read Response         tagged   -     0       placed      LOCAL_WRITE   -   -   -  response
 * 0x3   Send                       untagged 0     0       placed      LOCAL_WRITE   -   -   -  request
 * 0x4   Send with Invalidate       untagged 0     0       placed      LOCAL_WRITE   x   -   -  request
 * 0x5   Send with SE               untagged 0     0       placed      LOCAL_WRITE   -   x   -  request
 * 0x6   Send with SE and Inv.      untagged 0     0       placed      LOCAL_WRITE   x   x   -  request
 * 0x7   Terminate                  untagged 2    4..52    -           -             -   -   -  -
 * 0x8   Immediate Data (7306)      untagged 0     8       -           -             -   -   x  request
 * 0x9   Immediate Data with SE     untagged 0     8       -           -             -   x   x  request
 * 0xA   Atomic Request (7306)      untagged 1    52       -           -             -   -   -  request
 * 0xB   Atomic Response (7306)     untagged 3    12       -           -             -   -   -  response
 * 0xC-F (not defined: "Unexpected OpCode")
 * </pre>
 *
 * "RDMAP hdr" is what follows the DDP header before any payload: the Read Request, Terminate,
 * Immediate Data and Atomic headers (for a Terminate, {@link TerminateMessage#MAX_MESSAGE_LENGTH}
 * at most). A "placed" payload is written into a buffer at the Data Sink: a tagged buffer the
 * peer names (RDMA Write, needing REMOTE_WRITE), our own Read sink (Read Response, LOCAL_WRITE),
 * or a posted receive buffer (Sends, LOCAL_WRITE); Immediate Data consumes a receive buffer but
 * its 8 octets are handed over in the completion (RFC 7306 §6.1). "Request" messages are
 * initiated by the Data Source's application, "response" messages answer one; the Terminate is
 * neither. Untagged messages that are not placed are delivered whole to their queue's control
 * buffer (QN 1, 2, 3) or read from the segment (Immediate Data).
 */
public final class OpcodeTable {
  /** The code is defined (RFC 5040 or RFC 7306); undefined ones are "Unexpected OpCode". */
  public static final int DEFINED = 1;
  /** Travels in tagged DDP segments (T=1); else untagged on {@link #queueNumber}. */
  public static final int TAGGED = 1 << 1;
  /** Its payload is placed into a buffer at the Data Sink (see {@link #SINK_REMOTE_WRITE}). */
  public static final int PLACED = 1 << 2;
  /**
   * The placement target is a tagged buffer the peer named, which must allow REMOTE_WRITE; a
   * placed message without this flag lands in our own buffer and needs LOCAL_WRITE.
   */
  public static final int SINK_REMOTE_WRITE = 1 << 3;
  /** Untagged RsvdULP octets 2..5 carry an Invalidate STag (RFC 5040 §4.1). */
  public static final int INVALIDATE_STAG = 1 << 4;
  /** Requests a Solicited Event at the Data Sink. */
  public static final int SOLICITED_EVENT = 1 << 5;
  /** Carries 8 octets of Immediate Data (RFC 7306 §6). */
  public static final int IMMEDIATE_DATA = 1 << 6;
  /** Valid as a request: initiated by the Data Source's application. */
  public static final int REQUEST = 1 << 7;
  /** Valid as a response: the answer to a request of the peer. */
  public static final int RESPONSE = 1 << 8;
  /** Defined by RFC 7306; a peer without its extensions answers "Unexpected OpCode". */
  public static final int RFC7306 = 1 << 9;
  /** Delivered whole into its queue's control buffer rather than placed (QN 1, 2, 3). */
  public static final int CONTROL = 1 << 10;

  /** {@link #queueNumber} of a tagged or undefined opcode. */
  public static final int NO_QUEUE = -1;
  /** The Send queue (RFC 5040 §5.1). */
  public static final int SEND_QN = 0;
  /** The Read Request queue; RFC 7306 Atomic Requests share it (and IRD/ORD). */
  public static final int READ_REQUEST_QN = 1;
  /** The Terminate queue. */
  public static final int TERMINATE_QN = 2;
  /** The Atomic Response queue (RFC 7306 §5.2). */
  public static final int ATOMIC_RESPONSE_QN = 3;
  /** Untagged queues RDMAP uses: QN 0..3. */
  public static final int QUEUE_COUNT = 4;
  /** The longest RDMAP header after a DDP header: an RFC 7306 Atomic Request (52). */
  public static final int MAX_HEADER_LENGTH = AtomicRequestHeader.LENGTH;

  private static final int CODES = 16;
  private static final int[] FLAGS = new int[CODES];
  private static final int[] QUEUE = new int[CODES];
  private static final int[] HEADER_LENGTH = new int[CODES];

  static {
    Arrays.fill(QUEUE, NO_QUEUE);
    final int send = DEFINED | PLACED | REQUEST;
    row(0x0, DEFINED | TAGGED | PLACED | SINK_REMOTE_WRITE | REQUEST, NO_QUEUE, 0);
    row(0x1, DEFINED | CONTROL | REQUEST, READ_REQUEST_QN, ReadRequestHeader.LENGTH);
    row(0x2, DEFINED | TAGGED | PLACED | RESPONSE, NO_QUEUE, 0);
    row(0x3, send, SEND_QN, 0);
    row(0x4, send | INVALIDATE_STAG, SEND_QN, 0);
    row(0x5, send | SOLICITED_EVENT, SEND_QN, 0);
    row(0x6, send | SOLICITED_EVENT | INVALIDATE_STAG, SEND_QN, 0);
    row(0x7, DEFINED | CONTROL, TERMINATE_QN, TerminateMessage.MIN_LENGTH - UntaggedHeader.LENGTH);
    row(0x8, DEFINED | IMMEDIATE_DATA | REQUEST | RFC7306, SEND_QN, ImmediateDataHeader.LENGTH);
    row(0x9, DEFINED | IMMEDIATE_DATA | SOLICITED_EVENT | REQUEST | RFC7306, SEND_QN,
        ImmediateDataHeader.LENGTH);
    row(0xA, DEFINED | CONTROL | REQUEST | RFC7306, READ_REQUEST_QN, AtomicRequestHeader.LENGTH);
    row(0xB, DEFINED | CONTROL | RESPONSE | RFC7306, ATOMIC_RESPONSE_QN,
        AtomicResponseHeader.LENGTH);
  }

  private OpcodeTable() {
  }

  private static void row(int code, int flags, int qn, int headerLength) {
    FLAGS[code] = flags;
    QUEUE[code] = qn;
    HEADER_LENGTH[code] = headerLength;
  }

  /**
   * The row's flags ({@link #DEFINED}, {@link #TAGGED}, ...); 0 for an undefined code.
   *
   * @param opcode the 4-bit opcode (higher bits are ignored)
   * @return its flags
   */
  public static int flags(int opcode) {
    return FLAGS[opcode & RdmapControl.OPCODE_MASK];
  }

  /**
   * Whether the opcode's row has every flag of {@code mask}.
   *
   * @param opcode the 4-bit opcode (higher bits are ignored)
   * @param mask one or more flags
   * @return whether all of them are set
   */
  public static boolean has(int opcode, int mask) {
    return (flags(opcode) & mask) == mask;
  }

  /**
   * The untagged queue the opcode travels on, or {@link #NO_QUEUE} (tagged or undefined).
   *
   * @param opcode the 4-bit opcode (higher bits are ignored)
   * @return its queue number, or {@link #NO_QUEUE}
   */
  public static int queueNumber(int opcode) {
    return QUEUE[opcode & RdmapControl.OPCODE_MASK];
  }

  /**
   * Octets of RDMAP header after the DDP header (the shortest, for a Terminate).
   *
   * @param opcode the 4-bit opcode (higher bits are ignored)
   * @return its RDMAP header length; 0 for an undefined code
   */
  public static int headerLength(int opcode) {
    return HEADER_LENGTH[opcode & RdmapControl.OPCODE_MASK];
  }

  /**
   * Whether a tagged segment of this opcode is valid: a defined, tagged opcode.
   *
   * @param opcode the 4-bit opcode (higher bits are ignored)
   * @return whether it may travel tagged
   */
  public static boolean validTagged(int opcode) {
    return has(opcode, DEFINED | TAGGED);
  }

  /**
   * Whether an untagged segment of this opcode is valid on queue {@code qn}.
   *
   * @param opcode the 4-bit opcode (higher bits are ignored)
   * @param qn the segment's queue number
   * @return whether the opcode is defined, untagged, and belongs on {@code qn}
   */
  public static boolean validUntagged(int opcode, int qn) {
    int flags = flags(opcode);
    return (flags & (DEFINED | TAGGED)) == DEFINED && queueNumber(opcode) == qn;
  }
}
