package io.iwarp4j.ddp.mem;

/**
 * Outcome of a remote invalidation (Send with Invalidate, RFC 5040 §5.3 and §7.2 items 4-5).
 * RDMAP turns a failure into a Terminate; which Remote Protection code it uses is RDMAP's
 * choice (0x00 Invalid STag, 0x03 not associated, 0x09 STag cannot be Invalidated).
 */
public enum InvalidateResult {
  /** The STag was valid and is now invalidated; no placement into it can happen any more. */
  OK,
  /** The STag is unknown, already invalidated, or carries a stale key. */
  INVALID_STAG,
  /** The STag belongs to another Protection Domain than the stream's. */
  NOT_ASSOCIATED,
  /**
   * The region was not registered with remote invalidation allowed
   * ({@link RegionOptions#allowRemoteInvalidation}). RFC 5040 §8.1.1 item 7 forbids a peer to
   * invalidate an STag shared by several streams; PD-scoped STags may be, so remote
   * invalidation is opt-in.
   */
  CANNOT_INVALIDATE
}
