package io.iwarp4j.ddp;

/**
 * DDP error numbers for the untagged receive path (RFC 5041 §7.2; Terminate Layer 0x1), as
 * reported through {@link UntaggedReceiveListener#onUntaggedError}. A placeholder until they move
 * into the stack-wide DDP error type.
 */
final class UntaggedErrors {
  /** Error Type 0x0: Local Catastrophic. */
  static final int ETYPE_LOCAL_CATASTROPHIC = 0x0;
  /** Error Type 0x2: Untagged Buffer Error. */
  static final int ETYPE_UNTAGGED = 0x2;

  /** Local Catastrophic (EType 0x0): used for a segment too short to hold an untagged header. */
  static final int LOCAL_CATASTROPHIC = 0x00;
  /** U1: the QN is not enabled on this stream. */
  static final int INVALID_QN = 0x01;
  /** U2: the expected MSN has no posted buffer. */
  static final int NO_BUFFER = 0x02;
  /** U3: the MSN is neither the expected one nor the one of the message in progress. */
  static final int INVALID_MSN_RANGE = 0x03;
  /** U4: the MO is not the number of octets already received for the message. */
  static final int INVALID_MO = 0x04;
  /** U5: MO + payload length passes the end of the posted buffer. */
  static final int MESSAGE_TOO_LONG = 0x05;
  /** U6: DV is not 1. */
  static final int INVALID_VERSION = 0x06;

  /** Returned by checks that pass; no error code is 0 within Error Type 0x2. */
  static final int OK = 0;

  private UntaggedErrors() {
  }
}
