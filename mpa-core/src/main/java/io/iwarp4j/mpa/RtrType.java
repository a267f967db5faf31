package io.iwarp4j.mpa;


/**
 * The three RFC 6581 §9.2 Ready-to-Receive indications. On the wire each is a flag of the
 * enhanced connection data (B, C, D) and a zero-length RDMAP message (see
 * {@code io.iwarp4j.wire.EnhancedConnectionData} and {@code io.iwarp4j.wire.RtrFrames}).
 */
public enum RtrType {
  /** B: a zero-length Send (untagged, QN 0). */
  SEND,
  /** C: a zero-length RDMA Write (tagged). */
  WRITE,
  /** D: a zero-length RDMA Read Request (QN 1), answered by a zero-length Read Response. */
  READ
}
