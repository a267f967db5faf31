package io.iwarp4j.verbs;

/**
 * The outcome of a work request, shaped like {@code ibv_wc_status} and restricted to the
 * values an iWARP provider reports (the set the Linux soft-iWARP driver uses, plus
 * {@link #REM_OP_ERR} and {@link #FATAL_ERR}).
 *
 * <p>InfiniBand-only values are left out: there are no end-to-end contexts, reliable datagrams,
 * memory-window binds or tag matching here, and no transport retry counters, since TCP does
 * the retransmitting; a connection that dies under a work request completes it with
 * {@link #FATAL_ERR} and flushes the rest ({@link #WR_FLUSH_ERR}).
 *
 * <p>When an error came from a Terminate message (sent or received),
 * {@link WorkCompletion#vendorError()} holds its layer, error type and code. Every status but
 * {@link #SUCCESS} moves the queue pair to the ERROR state.
 */
public enum WcStatus {
  /** The operation completed successfully. */
  SUCCESS(0),
  /**
   * Local length error: an incoming Send or Immediate Data did not fit the receive buffers
   * posted for it, or a local length was out of range (DDP "message too long for available
   * buffer" at the Data Sink).
   */
  LOC_LEN_ERR(1),
  /**
   * Local queue pair operation error: an internal inconsistency on this side, for example a
   * message that cannot be processed in the queue pair's current state.
   */
  LOC_QP_OP_ERR(2),
  /**
   * Local protection error: an SGE or local result buffer of the work request names an STag
   * that is invalid, lacks the needed access right, or does not cover the range.
   */
  LOC_PROT_ERR(4),
  /**
   * Work request flushed: the queue pair was in, or moved to, the ERROR state before this work
   * request completed. Only {@code wrId}, the opcode and the QP number are meaningful.
   */
  WR_FLUSH_ERR(5),
  /**
   * A memory window bind failed ({@code IBV_WC_MW_BIND_ERR}): the region lacks
   * {@link AccessFlags#MW_BIND}, is invalid or of another protection domain, the range lies
   * outside it, the window's access exceeds the region's, the window is still bound, or the key
   * is not new. The queue pair goes to ERROR.
   */
  MW_BIND_ERR(6),
  /**
   * Bad response: an RDMA Read Response or Atomic Response did not match an outstanding
   * request (unexpected, too long, wrong Request Identifier).
   */
  BAD_RESP_ERR(7),
  /**
   * Local access error: incoming data for this work request could not be placed in local
   * memory, e.g. a Send with Invalidate named a local STag that cannot be invalidated.
   */
  LOC_ACCESS_ERR(8),
  /**
   * Remote invalid request: the peer rejected the message as malformed or unsupported: an
   * unexpected opcode, an invalid RDMAP or DDP version, no receive buffer posted, or a message
   * too long for the peer's receive buffer (Terminate RDMAP/Remote Operation "Unexpected
   * OpCode", DDP untagged buffer errors).
   */
  REM_INV_REQ_ERR(9),
  /**
   * Remote access error: the peer refused access to its memory: invalid STag, base or bounds
   * violation, access rights violation, STag not associated with the stream, or an STag that
   * cannot be invalidated (Terminate RDMAP/Remote Protection or DDP/Tagged Buffer errors).
   */
  REM_ACCESS_ERR(10),
  /**
   * Remote operation error: the peer could not carry out a valid request, e.g. a catastrophic
   * error localized to the stream, or an Atomic on a target that is not 64-bit aligned
   * (RFC 7306 §8.2) (Terminate RDMAP/Remote Operation error).
   */
  REM_OP_ERR(11),
  /**
   * Fatal error: the connection was lost or the local stack hit an unrecoverable error while
   * this work request was in progress (LLP errors, a Local Catastrophic Terminate).
   */
  FATAL_ERR(19),
  /** An error that fits none of the other values; see {@link WorkCompletion#vendorError()}. */
  GENERAL_ERR(21);

  private final int ibvValue;

  WcStatus(int ibvValue) {
    this.ibvValue = ibvValue;
  }

  /**
   * The numeric value of the matching {@code ibv_wc_status} constant, for logs and for
   * comparison with native tools.
   *
   * @return the libibverbs value, e.g. 5 for {@link #WR_FLUSH_ERR}
   */
  public int ibvValue() {
    return ibvValue;
  }

  /**
   * Whether this is {@link #SUCCESS}.
   *
   * @return true for success
   */
  public boolean isSuccess() {
    return this == SUCCESS;
  }
}
