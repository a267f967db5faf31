package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.mem.StagCheck;
import io.iwarp4j.wire.TerminateMessage;

/**
 * The RDMAP-layer (Layer 0) errors a Terminate reports (RFC 5040 §4.8 Figure 9): Error Type and
 * Error Code. Error Type 0x1 is a Remote Protection Error (an RDMA Read Request's source, or the
 * STag a Send with Invalidate names), 0x2 a Remote Operation Error (anything else RDMAP checks).
 * RFC 5040 lists "STag cannot be Invalidated" (0x09) under both types; see
 * {@link #CANNOT_INVALIDATE} and {@link #CANNOT_INVALIDATE_UNKNOWN_STAG} for which this stack uses
 * when.
 */
public enum RdmapError {
  /** 0x1/0x00: the Read Request's Data Source STag is not valid. */
  INVALID_STAG(RdmapError.ETYPE_REMOTE_PROTECTION, 0x00, "Invalid STag"),
  /** 0x1/0x01: the Read Request's source range lies outside the STag's range. */
  BASE_OR_BOUNDS(RdmapError.ETYPE_REMOTE_PROTECTION, 0x01, "Base or bounds violation"),
  /** 0x1/0x02: the Read Request's source STag does not grant remote read access. */
  ACCESS_RIGHTS(RdmapError.ETYPE_REMOTE_PROTECTION, 0x02, "Access rights violation"),
  /** 0x1/0x03: the Read Request's source STag belongs to another Protection Domain. */
  STAG_NOT_ASSOCIATED(RdmapError.ETYPE_REMOTE_PROTECTION, 0x03,
      "STag not associated with RDMAP Stream"),
  /** 0x1/0x04: the Read Request's SrcTO + RDMARDSZ (or SinkTO + RDMARDSZ) wraps 2^64. */
  TO_WRAP(RdmapError.ETYPE_REMOTE_PROTECTION, 0x04, "TO wrap"),
  /**
   * 0x1/0x09: a Send with Invalidate named an STag that fails a protection check: it belongs to
   * another Protection Domain, or its region does not allow remote invalidation (RFC 5040
   * §8.1.1 item 7). Linux siw uses Error Type 0x1 for its ownership failure too.
   */
  CANNOT_INVALIDATE(RdmapError.ETYPE_REMOTE_PROTECTION, 0x09, "STag cannot be Invalidated"),
  /** 0x1/0xFF. */
  UNSPECIFIED_PROTECTION(RdmapError.ETYPE_REMOTE_PROTECTION, 0xFF, "Unspecified Error"),
  /** 0x2/0x05: an RDMAP version (RV) other than 01b. */
  INVALID_VERSION(RdmapError.ETYPE_REMOTE_OPERATION, 0x05, "Invalid RDMAP version"),
  /**
   * 0x2/0x06: an opcode this end does not accept here: reserved (0xC-0xF), an RFC 7306 opcode
   * (0x8-0xB, unsupported), a tagged opcode on an untagged queue or the reverse, an opcode on the
   * wrong queue, or a Read Response when no RDMA Read is outstanding.
   */
  UNEXPECTED_OPCODE(RdmapError.ETYPE_REMOTE_OPERATION, 0x06, "Unexpected OpCode"),
  /** 0x2/0x07. */
  CATASTROPHIC_STREAM(RdmapError.ETYPE_REMOTE_OPERATION, 0x07,
      "Catastrophic error, localized to RDMAP Stream"),
  /** 0x2/0x08. */
  CATASTROPHIC_GLOBAL(RdmapError.ETYPE_REMOTE_OPERATION, 0x08, "Catastrophic error, global"),
  /**
   * 0x2/0x09: a Send with Invalidate named an STag that is not valid at all (unknown, stale key,
   * or already invalidated): no protection check could run, so this is a Remote Operation error,
   * as Linux siw reports it.
   */
  CANNOT_INVALIDATE_UNKNOWN_STAG(RdmapError.ETYPE_REMOTE_OPERATION, 0x09,
      "STag cannot be Invalidated"),
  /** 0x2/0xFF: a malformed message no other code describes (a Read Request not 28 octets). */
  UNSPECIFIED_OPERATION(RdmapError.ETYPE_REMOTE_OPERATION, 0xFF, "Unspecified Error");

  /** Terminate layer of every RDMAP error. */
  public static final int LAYER = TerminateMessage.LAYER_RDMAP;
  /** Error Type 0x0: Local Catastrophic Error (any code). */
  public static final int ETYPE_LOCAL_CATASTROPHIC = 0;
  /** Error Type 0x1: Remote Protection Error. */
  public static final int ETYPE_REMOTE_PROTECTION = 1;
  /** Error Type 0x2: Remote Operation Error. */
  public static final int ETYPE_REMOTE_OPERATION = 2;

  private final int errorType;
  private final int code;
  private final String description;

  RdmapError(int errorType, int code, String description) {
    this.errorType = errorType;
    this.code = code;
    this.description = description;
  }

  /**
   * The Terminate Error Type.
   *
   * @return the Terminate Error Type
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
   * The Remote Protection error for a Read Request whose source failed validation
   * (RFC 5040 §7.2 items 4a-4e).
   *
   * @param check the outcome of the STag check
   * @return the Remote Protection error for a Read Request whose source failed validation (RFC 5040
   *     §7.2 items 4a-4e)
   * @throws IllegalArgumentException for {@link StagCheck#OK}, which is no error
   */
  public static RdmapError forReadSource(StagCheck check) {
    switch (check) {
      case INVALID_STAG:
        return INVALID_STAG;
      case NOT_ASSOCIATED:
        return STAG_NOT_ASSOCIATED;
      case ACCESS_VIOLATION:
        return ACCESS_RIGHTS;
      case TO_WRAP:
        return TO_WRAP;
      case BASE_OR_BOUNDS:
        return BASE_OR_BOUNDS;
      default:
        throw new IllegalArgumentException("StagCheck." + check + " is not an error");
    }
  }
}
