package io.iwarp4j.verbs;

/**
 * What a {@link WorkCompletion} completes, in the spirit of {@code ibv_wc_opcode}.
 *
 * <p>Send-queue completions name the operation the work request asked for (see
 * {@link WorkRequestOpcode#completionOpcode()}); receive-queue completions are {@link #RECV}
 * or {@link #RECV_IMMEDIATE_DATA}. A flushed receive ({@link WcStatus#WR_FLUSH_ERR}) reports
 * {@link #RECV}, since no message arrived to say more.
 */
public enum WcOpcode {
  /** A Send, Send with Invalidate, Send with SE or Send with SE and Invalidate. */
  SEND(false),
  /** An RDMA Write. */
  RDMA_WRITE(false),
  /** An RDMA Read; the data is in the work request's single SGE. */
  RDMA_READ(false),
  /** An RFC 7306 FetchAdd; the original remote value is in the work request's local result. */
  ATOMIC_FETCH_ADD(false),
  /** An RFC 7306 CmpSwap; the original remote value is in the work request's local result. */
  ATOMIC_CMP_SWAP(false),
  /** An RFC 7306 Immediate Data (or Immediate Data with SE) message. */
  IMMEDIATE_DATA(false),
  /** An RDMA Write followed by an Immediate Data message (RFC 7306 §6). */
  RDMA_WRITE_WITH_IMMEDIATE(false),
  /** A fast registration ({@code IBV_WC_REG_MR}): the region is valid under the new STag. */
  REG_MR(false),
  /** A local invalidate ({@code IBV_WC_LOCAL_INV}): the STag is invalid. */
  LOCAL_INV(false),
  /** A memory window bind ({@code IBV_WC_BIND_MW}): the window is valid under the new STag. */
  BIND_MW(false),
  /** A Send message landed in a posted receive; {@code byteLen} octets were placed. */
  RECV(true),
  /**
   * An Immediate Data message consumed a posted receive; the value is in
   * {@link WorkCompletion#immData()} and no octets were placed ({@code byteLen} is 0). The
   * receiver cannot tell whether an RDMA Write preceded it: on the wire RFC 7306 has no
   * "Write with Immediate" message, only a Write followed by Immediate Data.
   */
  RECV_IMMEDIATE_DATA(true);

  private final boolean receive;

  WcOpcode(boolean receive) {
    this.receive = receive;
  }

  /**
   * Whether this opcode completes a receive work request.
   *
   * @return true for {@link #RECV} and {@link #RECV_IMMEDIATE_DATA}
   */
  public boolean isReceive() {
    return receive;
  }
}
