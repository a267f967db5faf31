package io.iwarp4j.verbs;

/**
 * The outcome of one work request, the counterpart of {@code ibv_wc}: a reusable, mutable
 * record that {@link CompletionQueue#poll(WorkCompletion[])} fills in place.
 *
 * <p>Allocate an array of these once and poll into it again and again. The setters are for the
 * protocol engine, which fills one and hands it to {@link CompletionQueue#offer(WorkCompletion)}.
 * Not thread-safe.
 *
 * <p>On error ({@link #status()} other than {@link WcStatus#SUCCESS}) only {@link #wrId()},
 * {@link #status()}, {@link #opcode()}, {@link #qpNumber()} and {@link #vendorError()} are
 * meaningful.
 */
public final class WorkCompletion {

  private long wrId;
  private WcStatus status;
  private WcOpcode opcode;
  private long byteLen;
  private int invalidatedStag;
  private boolean hasInvalidatedStag;
  private long immData;
  private boolean hasImmData;
  private boolean solicited;
  private int qpNumber;
  private int vendorError;

  /** Creates an empty completion: no status, no opcode, every number 0. */
  public WorkCompletion() {
  }

  /**
   * Packs the control field of a Terminate message (RFC 5040 §4.8) into a
   * {@link #vendorError()} value: {@code layer << 16 | errorType << 8 | errorCode}.
   *
   * @param layer the Terminate Layer, 0 (RDMAP), 1 (DDP) or 2 (LLP); 4 bits
   * @param errorType the Terminate EType; 4 bits
   * @param errorCode the Terminate Error Code; 8 bits
   * @return the packed value
   * @throws IllegalArgumentException if a field does not fit its width
   */
  public static int terminateVendorError(int layer, int errorType, int errorCode) {
    if ((layer & ~0xF) != 0 || (errorType & ~0xF) != 0 || (errorCode & ~0xFF) != 0) {
      throw new IllegalArgumentException("Terminate layer " + layer + ", type " + errorType
          + ", code " + errorCode + ": layer and type take 4 bits, code 8 bits");
    }
    return layer << 16 | errorType << 8 | errorCode;
  }

  /**
   * Returns every field to its initial value.
   *
   * @return this completion
   */
  public WorkCompletion reset() {
    wrId = 0;
    status = null;
    opcode = null;
    byteLen = 0;
    invalidatedStag = 0;
    hasInvalidatedStag = false;
    immData = 0;
    hasImmData = false;
    solicited = false;
    qpNumber = 0;
    vendorError = 0;
    return this;
  }

  /**
   * Makes this completion a copy of {@code other}.
   *
   * @param other the completion to copy
   * @return this completion
   */
  public WorkCompletion copyFrom(WorkCompletion other) {
    wrId = other.wrId;
    status = other.status;
    opcode = other.opcode;
    byteLen = other.byteLen;
    invalidatedStag = other.invalidatedStag;
    hasInvalidatedStag = other.hasInvalidatedStag;
    immData = other.immData;
    hasImmData = other.hasImmData;
    solicited = other.solicited;
    qpNumber = other.qpNumber;
    vendorError = other.vendorError;
    return this;
  }

  /**
   * The {@code wrId} of the work request this completes.
   *
   * @return the caller's identifier
   */
  public long wrId() {
    return wrId;
  }

  /**
   * Sets the work request id.
   *
   * @param wrId the id of the completed work request
   * @return this completion
   */
  public WorkCompletion wrId(long wrId) {
    this.wrId = wrId;
    return this;
  }

  /**
   * How the work request ended.
   *
   * @return the status, null only in a completion never filled
   */
  public WcStatus status() {
    return status;
  }

  /**
   * Sets the status.
   *
   * @param status the outcome
   * @return this completion
   */
  public WorkCompletion status(WcStatus status) {
    this.status = status;
    return this;
  }

  /**
   * Whether the work request succeeded.
   *
   * @return true when the status is {@link WcStatus#SUCCESS}
   */
  public boolean isSuccess() {
    return status == WcStatus.SUCCESS;
  }

  /**
   * What was completed.
   *
   * @return the opcode, null only in a completion never filled
   */
  public WcOpcode opcode() {
    return opcode;
  }

  /**
   * Sets the opcode.
   *
   * @param opcode what was completed
   * @return this completion
   */
  public WorkCompletion opcode(WcOpcode opcode) {
    this.opcode = opcode;
    return this;
  }

  /**
   * For a receive, the number of octets placed; for an RDMA Read, the number of octets read.
   *
   * @return 0 to 2<sup>32</sup>-1
   */
  public long byteLen() {
    return byteLen;
  }

  /**
   * Sets the byte count.
   *
   * @param byteLen 0 to {@link SendWorkRequest#MAX_MESSAGE_LENGTH}
   * @return this completion
   * @throws IllegalArgumentException if out of range
   */
  public WorkCompletion byteLen(long byteLen) {
    if (byteLen < 0 || byteLen > SendWorkRequest.MAX_MESSAGE_LENGTH) {
      throw new IllegalArgumentException("byteLen " + byteLen + " is outside 0.."
          + SendWorkRequest.MAX_MESSAGE_LENGTH);
    }
    this.byteLen = byteLen;
    return this;
  }

  /**
   * Whether the received message was a Send with Invalidate that invalidated a local STag
   * (the verbs {@code IBV_WC_WITH_INV} flag).
   *
   * @return true when {@link #invalidatedStag()} is meaningful
   */
  public boolean hasInvalidatedStag() {
    return hasInvalidatedStag;
  }

  /**
   * The local STag a received Send with Invalidate invalidated.
   *
   * @return the STag, meaningful when {@link #hasInvalidatedStag()}
   */
  public int invalidatedStag() {
    return invalidatedStag;
  }

  /**
   * Records the STag a received Send with Invalidate invalidated.
   *
   * @param stag the invalidated local STag
   * @return this completion
   */
  public WorkCompletion invalidatedStag(int stag) {
    this.invalidatedStag = stag;
    this.hasInvalidatedStag = true;
    return this;
  }

  /**
   * Whether the completion carries immediate data (the verbs {@code IBV_WC_WITH_IMM} flag).
   *
   * @return true when {@link #immData()} is meaningful
   */
  public boolean hasImmData() {
    return hasImmData;
  }

  /**
   * The 8 octets of received immediate data (RFC 7306 §6).
   *
   * @return the immediate data, meaningful when {@link #hasImmData()}
   */
  public long immData() {
    return immData;
  }

  /**
   * Records received immediate data.
   *
   * @param immData the 8 octets as a long
   * @return this completion
   */
  public WorkCompletion immData(long immData) {
    this.immData = immData;
    this.hasImmData = true;
    return this;
  }

  /**
   * Whether the received message asked for a solicited event (Send with SE, Immediate Data
   * with SE). Such completions fire a notification armed with
   * {@code requestNotify(solicitedOnly = true)}.
   *
   * @return true for a solicited receive
   */
  public boolean solicited() {
    return solicited;
  }

  /**
   * Marks the completion as solicited or not.
   *
   * @param solicited whether the message asked for a solicited event
   * @return this completion
   */
  public WorkCompletion solicited(boolean solicited) {
    this.solicited = solicited;
    return this;
  }

  /**
   * The number of the queue pair the work request was posted to.
   *
   * @return the QP number
   */
  public int qpNumber() {
    return qpNumber;
  }

  /**
   * Sets the queue pair number.
   *
   * @param qpNumber the QP number
   * @return this completion
   */
  public WorkCompletion qpNumber(int qpNumber) {
    this.qpNumber = qpNumber;
    return this;
  }

  /**
   * Provider detail on an error. When the error was reported by or to the peer in a Terminate
   * message, it is {@code layer << 16 | errorType << 8 | errorCode} (see
   * {@link #terminateVendorError(int, int, int)}); otherwise 0.
   *
   * @return the vendor error
   */
  public int vendorError() {
    return vendorError;
  }

  /**
   * Sets the vendor error.
   *
   * @param vendorError the value, usually from {@link #terminateVendorError(int, int, int)}
   * @return this completion
   */
  public WorkCompletion vendorError(int vendorError) {
    this.vendorError = vendorError;
    return this;
  }

  /**
   * A readable form for diagnostics; it allocates.
   *
   * @return the fields that are set
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("WorkCompletion{wrId=").append(wrId)
        .append(", status=").append(status)
        .append(", opcode=").append(opcode)
        .append(", byteLen=").append(byteLen)
        .append(", qp=").append(qpNumber);
    if (hasInvalidatedStag) {
      sb.append(", invalidatedStag=0x").append(Integer.toHexString(invalidatedStag));
    }
    if (hasImmData) {
      sb.append(", immData=0x").append(Long.toHexString(immData));
    }
    if (solicited) {
      sb.append(", solicited");
    }
    if (vendorError != 0) {
      sb.append(", vendorError=0x").append(Integer.toHexString(vendorError));
    }
    return sb.append('}').toString();
  }
}
