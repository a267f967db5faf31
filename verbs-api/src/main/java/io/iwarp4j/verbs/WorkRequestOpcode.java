package io.iwarp4j.verbs;

/**
 * The operation a {@link SendWorkRequest} asks for: the RDMAP operations of RFC 5040 and the
 * RFC 7306 extensions (Atomic Operations and Immediate Data).
 *
 * <p>What each opcode needs in the work request:
 * <table>
 *   <caption>Work request fields by opcode</caption>
 *   <tr><th>Opcode</th><th>SGEs</th><th>Other fields</th></tr>
 *   <tr><td>RDMA_WRITE</td><td>0..max, the source</td><td>remote STag + address</td></tr>
 *   <tr><td>RDMA_READ</td><td>exactly 1, the sink</td><td>remote STag + address</td></tr>
 *   <tr><td>SEND, SEND_WITH_SOLICITED</td><td>0..max, the source</td><td>-</td></tr>
 *   <tr><td>SEND_WITH_INVALIDATE, SEND_WITH_SOLICITED_INVALIDATE</td><td>0..max</td>
 *       <td>invalidate STag</td></tr>
 *   <tr><td>ATOMIC_FETCH_ADD</td><td>none</td><td>remote STag + address (of memory 8-aligned at
 *       the peer), add data
 *       and mask, local result</td></tr>
 *   <tr><td>ATOMIC_CMP_SWAP</td><td>none</td><td>remote STag + address (of memory 8-aligned at
 *       the peer), compare
 *       data and mask, swap data and mask, local result</td></tr>
 *   <tr><td>IMMEDIATE_DATA, IMMEDIATE_DATA_WITH_SOLICITED</td><td>none</td>
 *       <td>immediate data</td></tr>
 *   <tr><td>RDMA_WRITE_WITH_IMMEDIATE</td><td>0..max, the source</td><td>remote STag +
 *       address, immediate data</td></tr>
 *   <tr><td>REG_MR</td><td>none</td><td>{@link SendWorkRequest#fastRegister fastRegister}(region,
 *       new STag, memory, index, length, access)</td></tr>
 *   <tr><td>LOCAL_INV</td><td>none</td><td>invalidate STag (a local one)</td></tr>
 *   <tr><td>BIND_MW</td><td>none</td><td>{@link SendWorkRequest#bindMemoryWindow bindMemoryWindow}(window, stag, region, offset, length, access)</td></tr>
 * </table>
 *
 * <p>{@link #REG_MR} and {@link #LOCAL_INV} put nothing on the wire: they act on this side's STag
 * table when their turn in the send queue comes (see {@link FastRegisterRegion}).
 */
public enum WorkRequestOpcode {
  /** RDMA Write (RFC 5040 §4.3): place local data into the peer's tagged buffer. */
  RDMA_WRITE(Flags.REMOTE | Flags.SOURCE, WcOpcode.RDMA_WRITE),
  /** RDMA Read (RFC 5040 §4.4): fetch the peer's tagged buffer into one local buffer. */
  RDMA_READ(Flags.REMOTE, WcOpcode.RDMA_READ),
  /** Send (RFC 5040 §4.6): deliver local data into the peer's next posted receive. */
  SEND(Flags.SOURCE | Flags.RECEIVE | Flags.SOLICIT, WcOpcode.SEND),
  /** Send with Invalidate (RFC 5040 §4.7): a Send that also invalidates a peer STag. */
  SEND_WITH_INVALIDATE(Flags.SOURCE | Flags.RECEIVE | Flags.SOLICIT | Flags.INVALIDATE,
      WcOpcode.SEND),
  /** Send with Solicited Event (RFC 5040 §4.6): a Send that raises a solicited event. */
  SEND_WITH_SOLICITED(Flags.SOURCE | Flags.RECEIVE | Flags.SOLICIT | Flags.SOLICITED,
      WcOpcode.SEND),
  /** Send with Solicited Event and Invalidate (RFC 5040 §4.7). */
  SEND_WITH_SOLICITED_INVALIDATE(Flags.SOURCE | Flags.RECEIVE | Flags.SOLICIT
      | Flags.SOLICITED | Flags.INVALIDATE, WcOpcode.SEND),
  /** FetchAdd (RFC 7306 §5.1.1): masked 64-bit add at the peer, returning the old value. */
  ATOMIC_FETCH_ADD(Flags.REMOTE | Flags.RFC7306 | Flags.ATOMIC, WcOpcode.ATOMIC_FETCH_ADD),
  /** CmpSwap (RFC 7306 §5.1.2): masked 64-bit compare-and-swap, returning the old value. */
  ATOMIC_CMP_SWAP(Flags.REMOTE | Flags.RFC7306 | Flags.ATOMIC, WcOpcode.ATOMIC_CMP_SWAP),
  /** Immediate Data (RFC 7306 §6): 8 octets delivered into the peer's next posted receive. */
  IMMEDIATE_DATA(Flags.RECEIVE | Flags.SOLICIT | Flags.RFC7306 | Flags.IMMEDIATE,
      WcOpcode.IMMEDIATE_DATA),
  /** Immediate Data with Solicited Event (RFC 7306 §6). */
  IMMEDIATE_DATA_WITH_SOLICITED(
      Flags.RECEIVE | Flags.SOLICIT | Flags.SOLICITED | Flags.RFC7306 | Flags.IMMEDIATE,
      WcOpcode.IMMEDIATE_DATA),
  /**
   * RDMA Write with Immediate Data: an RDMA Write followed by an Immediate Data message
   * (RFC 7306 §6), completing at the peer like InfiniBand's Write with Immediate.
   */
  RDMA_WRITE_WITH_IMMEDIATE(Flags.REMOTE | Flags.SOURCE | Flags.RECEIVE | Flags.SOLICIT
      | Flags.RFC7306 | Flags.IMMEDIATE, WcOpcode.RDMA_WRITE_WITH_IMMEDIATE),
  /**
   * Fast registration ({@code IB_WR_REG_MR}): binds memory, access rights and a new key to a
   * {@link FastRegisterRegion}, in order with the other work requests of the send queue.
   */
  REG_MR(Flags.LOCAL, WcOpcode.REG_MR),
  /**
   * Local invalidate ({@code IB_WR_LOCAL_INV}): invalidates an STag of the queue pair's
   * protection domain ({@link SendWorkRequest#invalidateStag(int)}), in order with the other
   * work requests of the send queue.
   */
  LOCAL_INV(Flags.LOCAL, WcOpcode.LOCAL_INV),
  /**
   * Memory window bind ({@code IBV_WR_BIND_MW}): binds a range of a {@link MemoryRegion}, remote
   * access rights and a new key to a type 2 {@link MemoryWindow}
   * ({@link SendWorkRequest#bindMemoryWindow}), usable only on this queue pair's connection, in
   * order with the other work requests of the send queue.
   */
  BIND_MW(Flags.LOCAL, WcOpcode.BIND_MW);

  /** Property bits; a nested class because enum constructors cannot see static fields. */
  private static final class Flags {
    static final int REMOTE = 1;
    static final int RECEIVE = 1 << 1;
    static final int SOLICIT = 1 << 2;
    static final int SOLICITED = 1 << 3;
    static final int INVALIDATE = 1 << 4;
    static final int RFC7306 = 1 << 5;
    static final int ATOMIC = 1 << 6;
    static final int IMMEDIATE = 1 << 7;
    static final int SOURCE = 1 << 8;
    static final int LOCAL = 1 << 9;
  }

  private final int flags;
  private final WcOpcode completionOpcode;

  WorkRequestOpcode(int flags, WcOpcode completionOpcode) {
    this.flags = flags;
    this.completionOpcode = completionOpcode;
  }

  /**
   * Whether this opcode is defined by RFC 7306 rather than RFC 5040. Both peers must support
   * RFC 7306 for these to be used.
   *
   * @return true for the Atomic and Immediate Data opcodes
   */
  public boolean isRfc7306() {
    return (flags & Flags.RFC7306) != 0;
  }

  /**
   * Whether this opcode addresses the peer's memory, so the work request needs a remote STag
   * and a remote address (tagged offset).
   *
   * @return true for RDMA Write, RDMA Read, the Atomics and RDMA Write with Immediate
   */
  public boolean needsRemoteBuffer() {
    return (flags & Flags.REMOTE) != 0;
  }

  /**
   * Whether the message consumes one receive work request posted at the peer (an untagged
   * buffer on DDP queue 0).
   *
   * @return true for the Send family and the Immediate Data family
   */
  public boolean consumesRemoteReceive() {
    return (flags & Flags.RECEIVE) != 0;
  }

  /**
   * Whether a solicited event can be requested, either by this opcode itself or by
   * {@link SendFlags#SOLICITED}.
   *
   * @return true for the opcodes whose message lands in a peer receive
   */
  public boolean canSolicitEvent() {
    return (flags & Flags.SOLICIT) != 0;
  }

  /**
   * Whether this opcode always asks for a solicited event at the peer.
   *
   * @return true for the "with solicited" opcodes
   */
  public boolean isSolicited() {
    return (flags & Flags.SOLICITED) != 0;
  }

  /**
   * Whether the message carries an STag for the peer to invalidate, so the work request needs
   * {@link SendWorkRequest#invalidateStag(int)}.
   *
   * @return true for the two Send with Invalidate opcodes
   */
  public boolean carriesInvalidateStag() {
    return (flags & Flags.INVALIDATE) != 0;
  }

  /**
   * Whether this is an RFC 7306 Atomic Operation, whose remote address must land on 64-bit aligned
   * memory at the peer (the peer checks it)
   * and an 8-octet local result buffer, and carries no SGEs.
   *
   * @return true for FetchAdd and CmpSwap
   */
  public boolean isAtomic() {
    return (flags & Flags.ATOMIC) != 0;
  }

  /**
   * Whether the operation delivers 8 octets of immediate data to the peer.
   *
   * @return true for the Immediate Data opcodes and RDMA Write with Immediate
   */
  public boolean carriesImmediateData() {
    return (flags & Flags.IMMEDIATE) != 0;
  }

  /**
   * Whether the work request's SGEs describe local data to send; otherwise they are the sink
   * of an RDMA Read, or there are none.
   *
   * @return true for the Send family, RDMA Write and RDMA Write with Immediate
   */
  public boolean sendsLocalData() {
    return (flags & Flags.SOURCE) != 0;
  }

  /**
   * Whether this is a local memory operation that sends nothing to the peer: it changes this
   * side's STags when its turn in the send queue comes, and carries no SGEs.
   *
   * @return true for {@link #REG_MR}, {@link #LOCAL_INV} and {@link #BIND_MW}
   */
  public boolean isLocal() {
    return (flags & Flags.LOCAL) != 0;
  }

  /**
   * The opcode the send-queue completion of this work request reports.
   *
   * @return the completion opcode
   */
  public WcOpcode completionOpcode() {
    return completionOpcode;
  }
}
