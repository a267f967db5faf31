package io.iwarp4j.ddp;

import io.iwarp4j.ddp.mem.StagCheck;
import io.iwarp4j.wire.TerminateMessage;

/**
 * DDP error numbers (RFC 5041 §7.2). In a Terminate message they travel as Layer 1 (DDP),
 * Error Type {@link #errorType()}, Error Code {@link #code()}; the first Terminate octet is
 * {@link #terminateLayerAndType()}.
 */
public enum DdpError {
  /** EType 0, code 0x00: local catastrophic error. */
  LOCAL_CATASTROPHIC(DdpError.ETYPE_LOCAL_CATASTROPHIC, 0x00, "Local Catastrophic"),
  /** EType 1, code 0x00 (T1): the STag is not valid. */
  INVALID_STAG(DdpError.ETYPE_TAGGED, 0x00, "Invalid STag"),
  /** EType 1, code 0x01 (T4/T5): TO or TO + length outside the STag's range. */
  BASE_OR_BOUNDS_VIOLATION(DdpError.ETYPE_TAGGED, 0x01, "Base or bounds violation"),
  /** EType 1, code 0x02 (T2): the STag is not associated with the DDP Stream. */
  STAG_NOT_ASSOCIATED(DdpError.ETYPE_TAGGED, 0x02, "STag not associated with DDP Stream"),
  /** EType 1, code 0x03 (T6): TO + length wraps the 64-bit TO space. */
  TO_WRAP(DdpError.ETYPE_TAGGED, 0x03, "TO wrap"),
  /** EType 1, code 0x04 (T7): DDP version not 1 on a tagged segment. */
  TAGGED_INVALID_DDP_VERSION(DdpError.ETYPE_TAGGED, 0x04, "Invalid DDP version"),
  /** EType 2, code 0x01 (U1): the QN is not valid for the stream. */
  INVALID_QN(DdpError.ETYPE_UNTAGGED, 0x01, "Invalid QN"),
  /** EType 2, code 0x02 (U2): no buffer posted for the (QN, MSN). */
  INVALID_MSN_NO_BUFFER(DdpError.ETYPE_UNTAGGED, 0x02, "Invalid MSN - no buffer available"),
  /** EType 2, code 0x03 (U3): the MSN is outside the legal range. */
  INVALID_MSN_RANGE(DdpError.ETYPE_UNTAGGED, 0x03, "Invalid MSN - MSN range is not valid"),
  /** EType 2, code 0x04 (U4): the MO is not a legal offset of the buffer. */
  INVALID_MO(DdpError.ETYPE_UNTAGGED, 0x04, "Invalid MO"),
  /** EType 2, code 0x05 (U5): MO + length exceeds the buffer. */
  MESSAGE_TOO_LONG(DdpError.ETYPE_UNTAGGED, 0x05, "DDP Message too long for available buffer"),
  /** EType 2, code 0x06 (U6): DDP version not 1 on an untagged segment. */
  UNTAGGED_INVALID_DDP_VERSION(DdpError.ETYPE_UNTAGGED, 0x06, "Invalid DDP version");

  /** Terminate layer of every DDP error. */
  public static final int LAYER = TerminateMessage.LAYER_DDP;
  /** Error Type 0x0: local catastrophic. */
  public static final int ETYPE_LOCAL_CATASTROPHIC = 0;
  /** Error Type 0x1: Tagged Buffer error. */
  public static final int ETYPE_TAGGED = 1;
  /** Error Type 0x2: Untagged Buffer error. */
  public static final int ETYPE_UNTAGGED = 2;

  private final int errorType;
  private final int code;
  private final String description;

  DdpError(int errorType, int code, String description) {
    this.errorType = errorType;
    this.code = code;
    this.description = description;
  }

  /**
   * The Terminate layer: always {@value #LAYER} (DDP).
   *
   * @return the Terminate layer: always {@value #LAYER} (DDP)
   */
  public int layer() {
    return LAYER;
  }

  /**
   * The Terminate Error Type (0 local catastrophic, 1 tagged, 2 untagged).
   *
   * @return the Terminate Error Type (0 local catastrophic, 1 tagged, 2 untagged)
   */
  public int errorType() {
    return errorType;
  }

  /**
   * The Terminate Error Code.
   *
   * @return the Terminate Error Code
   */
  public int code() {
    return code;
  }

  /**
   * The RFC's name for the error.
   *
   * @return the RFC's name for the error
   */
  public String description() {
    return description;
  }

  /**
   * The first Terminate header octet: {@code Layer << 4 | EType}.
   *
   * @return the first Terminate header octet: {@code Layer << 4 | EType}
   */
  public int terminateLayerAndType() {
    return LAYER << 4 | errorType;
  }

  /**
   * The error for an Error Type and Code, or null when DDP defines none.
   *
   * @param errorType the Terminate error type
   * @param code the Terminate error code
   * @return the error for an Error Type and Code, or null when DDP defines none
   */
  public static DdpError of(int errorType, int code) {
    for (DdpError e : values()) {
      if (e.errorType == errorType && e.code == code) {
        return e;
      }
    }
    return null;
  }

  /**
   * "Invalid DDP version" of the tagged (0x04) or untagged (0x06) kind.
   *
   * @param tagged whether the segment was tagged
   * @return the "Invalid DDP version" of the tagged (0x04) or untagged (0x06) kind
   */
  public static DdpError invalidDdpVersion(boolean tagged) {
    return tagged ? TAGGED_INVALID_DDP_VERSION : UNTAGGED_INVALID_DDP_VERSION;
  }

  /**
   * The Tagged Buffer error to report for a failed tagged segment check.
   * {@link StagCheck#ACCESS_VIOLATION} has no DDP code (RFC 5041 §7.2): it maps to
   * {@link #INVALID_STAG}, as Linux siw reports it; an STag without the needed right is not a
   * valid STag for that access, and it stays a DDP-layer error as RFC 5040 Figure 10 expects
   * (RDMAP's Remote Protection errors are for Read Requests and Send with Invalidate).
   *
   * @param check the outcome of the STag check
   * @return the Tagged Buffer error to report for a failed tagged segment check
   * @throws IllegalArgumentException for {@link StagCheck#OK}, which is no error
   */
  public static DdpError forStagCheck(StagCheck check) {
    switch (check) {
      case INVALID_STAG:
      case ACCESS_VIOLATION:
        return INVALID_STAG;
      case NOT_ASSOCIATED:
        return STAG_NOT_ASSOCIATED;
      case BASE_OR_BOUNDS:
        return BASE_OR_BOUNDS_VIOLATION;
      case TO_WRAP:
        return TO_WRAP;
      default:
        throw new IllegalArgumentException("StagCheck." + check + " is not an error");
    }
  }
}
