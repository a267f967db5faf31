package io.iwarp4j.wire;

/**
 * The RFC 7306 Atomic Operation Codes (AOpCode, §5.2.1 Figure 5; IANA registry §10.1). 0x1 is
 * reserved (the 2011 draft's Swap) and 0x3-0xF unassigned: {@link #fromCode} returns null for
 * them, and a request carrying one is answered "Unexpected OpCode".
 */
public enum AtomicOpcode {
  /** FetchAdd (§5.1.1): masked add, returns the original value. */
  FETCH_ADD(0x0),
  /** CmpSwap (§5.1.2): masked compare and swap, returns the original value. */
  CMP_SWAP(0x2);

  private final int code;

  AtomicOpcode(int code) {
    this.code = code;
  }

  /**
   * The 4-bit wire code.
   *
   * @return the AOpCode
   */
  public int code() {
    return code;
  }

  /**
   * The operation with wire code {@code code}, or null for a reserved or unassigned code.
   *
   * @param code the 4-bit AOpCode
   * @return the operation, or null
   */
  public static AtomicOpcode fromCode(int code) {
    if (code == FETCH_ADD.code) {
      return FETCH_ADD;
    }
    return code == CMP_SWAP.code ? CMP_SWAP : null;
  }
}
