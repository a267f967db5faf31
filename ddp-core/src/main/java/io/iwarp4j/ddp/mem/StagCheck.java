package io.iwarp4j.ddp.mem;

/**
 * Outcome of validating a tagged access (STag, TO, length, access right, stream's PD) against
 * the {@link StagTable}: RFC 5041 §7.1 checks T1..T6 for a tagged segment, or RFC 5040 §7.2
 * items 4a..4e for an RDMA Read Request's source.
 *
 * <p>Checks run in this order and the first failure is the result: {@link #INVALID_STAG},
 * {@link #NOT_ASSOCIATED}, {@link #ACCESS_VIOLATION}, {@link #TO_WRAP}, {@link #BASE_OR_BOUNDS}.
 * TO wrap deliberately comes before the bounds checks: a region's bound
 * {@code base + length} is itself below 2^64, so every access whose sum wraps is also out of
 * bounds, and checking bounds first would make TO wrap unreachable. Reporting the more specific
 * error tells the peer what it did wrong.
 */
public enum StagCheck {
  /** Every check passed: the access may proceed (placement still needs a successful pin). */
  OK,
  /** T1: the STag is unknown, was invalidated or deregistered, or carries a stale key. */
  INVALID_STAG,
  /** T2: the STag belongs to another Protection Domain than the stream's. */
  NOT_ASSOCIATED,
  /**
   * T3: the region does not grant the required access right. DDP has no code of its own for
   * this; see {@link io.iwarp4j.ddp.DdpError#forStagCheck}.
   */
  ACCESS_VIOLATION,
  /** T6: the 64-bit unsigned sum {@code TO + length} overflows. */
  TO_WRAP,
  /** T4/T5: {@code TO < base} or {@code TO + length > base + length of the region}. */
  BASE_OR_BOUNDS
}
