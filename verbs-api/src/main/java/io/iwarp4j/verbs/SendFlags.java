package io.iwarp4j.verbs;

/**
 * Bit flags of a {@link SendWorkRequest}, combined with {@code |}. The values follow
 * {@code ibv_send_flags} so that code ported from libibverbs reads the same.
 */
public final class SendFlags {

  /**
   * Fence: the work request does not start until every RDMA Read and Atomic operation posted
   * before it on the same send queue has completed. Without it a later Write or Send may be
   * placed at the peer before an earlier Read's response is generated (RFC 5040 §5.5).
   */
  public static final int FENCE = 1;

  /**
   * Signaled: the work request produces a completion on success. Errors always produce a
   * completion, signaled or not.
   */
  public static final int SIGNALED = 1 << 1;

  /**
   * Solicited event: the message asks the remote peer to raise a solicited event when its
   * receive completes (RDMAP "Send with SE", "Immediate Data with SE"). Only opcodes for which
   * {@link WorkRequestOpcode#canSolicitEvent()} holds accept it.
   */
  public static final int SOLICITED = 1 << 2;

  /**
   * Inline (libibverbs {@code IBV_SEND_INLINE}): the payload is copied when the work request is
   * posted, so the application may reuse its buffers as soon as {@code postSend} returns, and
   * the SGEs need not name registered memory (any {@link LocalBuffer}; its STag is not looked
   * at). Only for opcodes that send local data ({@link WorkRequestOpcode#sendsLocalData()}: the
   * Send family, RDMA Write, RDMA Write with Immediate) and at most
   * {@link QueuePairCapabilities#maxInlineData()} octets in all.
   */
  public static final int INLINE = 1 << 3;

  /** Every flag this version knows; any other bit is rejected by validation. */
  public static final int ALL = FENCE | SIGNALED | SOLICITED | INLINE;

  private SendFlags() {
  }

  /**
   * Whether {@code flags} contains every bit of {@code flag}.
   *
   * @param flags a combination of flags
   * @param flag the flag(s) to look for
   * @return true when all bits of {@code flag} are set in {@code flags}
   */
  public static boolean has(int flags, int flag) {
    return (flags & flag) == flag;
  }

  /**
   * A readable form such as {@code "SIGNALED|FENCE"}, {@code "0"} for none; unknown bits are
   * shown in hex. For diagnostics: it allocates.
   *
   * @param flags a combination of flags
   * @return the names of the set flags
   */
  public static String toString(int flags) {
    if (flags == 0) {
      return "0";
    }
    StringBuilder sb = new StringBuilder();
    append(sb, flags, SIGNALED, "SIGNALED");
    append(sb, flags, SOLICITED, "SOLICITED");
    append(sb, flags, FENCE, "FENCE");
    append(sb, flags, INLINE, "INLINE");
    int unknown = flags & ~ALL;
    if (unknown != 0) {
      if (sb.length() > 0) {
        sb.append('|');
      }
      sb.append("0x").append(Integer.toHexString(unknown));
    }
    return sb.toString();
  }

  private static void append(StringBuilder sb, int flags, int flag, String name) {
    if ((flags & flag) != 0) {
      if (sb.length() > 0) {
        sb.append('|');
      }
      sb.append(name);
    }
  }
}
