package io.iwarp4j.mpa;

/**
 * The Responder answered with a Reply whose R bit is set (RFC 5044 §7.1.2). MPA has exited;
 * the TCP connection is left to the caller (it is not closed by MPA). Carries what the
 * Responder sent so the caller can decide what to do (RFC 6581 §9.1: the peer's IRD/ORD are
 * reported for rejects too).
 */
public final class MpaRejectedException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient MpaPeerParameters peer;

  public MpaRejectedException(MpaPeerParameters peer) {
    super("MPA connection rejected by the peer (Reply R=1, " + peer.privateDataLength()
        + " octets of private data)");
    this.peer = peer;
  }

  /** What the rejecting Responder sent. */
  public MpaPeerParameters peer() {
    return peer;
  }
}
