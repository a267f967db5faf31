package io.iwarp4j.mpa;

/**
 * The connection was rejected with a Reply whose R bit is set (RFC 5044 §7.1.2): by the
 * Responder (seen by the Initiator), or by this end's own ULP (seen by a Responder that sent
 * the rejecting Reply). MPA has exited; the TCP connection is left to the caller (it is not
 * closed by MPA). Carries what the peer sent so the caller can decide what to do (RFC 6581
 * §9.1: the peer's IRD/ORD are reported for rejects too).
 */
public final class MpaRejectedException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient MpaPeerParameters peer;
  /** Whether this end's ULP rejected (Responder side) rather than the peer. */
  private final boolean rejectedLocally;

  /**
   * The Responder rejected: {@code peer} is its Reply.
   *
   * @param peer the Responder's rejecting Reply
   */
  public MpaRejectedException(MpaPeerParameters peer) {
    this(peer, false);
  }

  /**
   * @param peer what the peer sent: the Reply when the peer rejected, the Request when this
   *     end's ULP rejected
   * @param rejectedLocally whether this end (a Responder) sent the rejecting Reply
   */
  public MpaRejectedException(MpaPeerParameters peer, boolean rejectedLocally) {
    super(rejectedLocally
        ? "MPA connection rejected by the local ULP (Reply R=1 sent; the Request carried "
            + peer.privateDataLength() + " octets of private data)"
        : "MPA connection rejected by the peer (Reply R=1, " + peer.privateDataLength()
            + " octets of private data)");
    this.peer = peer;
    this.rejectedLocally = rejectedLocally;
  }

  /**
   * What the peer sent: the rejecting Reply, or (rejected locally) the Request.
   *
   * @return what the peer sent: the rejecting Reply, or (rejected locally) the Request
   */
  public MpaPeerParameters peer() {
    return peer;
  }

  /**
   * Whether this end's ULP rejected (Responder side) rather than the peer.
   *
   * @return whether this end's ULP rejected (Responder side) rather than the peer
   */
  public boolean rejectedLocally() {
    return rejectedLocally;
  }
}
