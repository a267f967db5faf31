package io.iwarp4j.verbs;

/**
 * The peer rejected the connection (an MPA Reply with R=1), with its private data and, for an
 * RFC 6581 enhanced Reply, its IRD/ORD (a peer that rejects for lack of Read resources can say
 * what it needs).
 */
public final class RdmaRejectedException extends RdmaConnectException {
  private static final long serialVersionUID = 1L;

  /** The private data of the rejecting Reply. */
  private final byte[] privateData;
  /** The IRD the peer stated, or -1. */
  private final int peerIrd;
  /** The ORD the peer stated, or -1. */
  private final int peerOrd;

  /**
   * Creates the exception.
   *
   * @param message what happened
   * @param privateData the peer's private data
   * @param peerIrd the peer's IRD, or -1
   * @param peerOrd the peer's ORD, or -1
   * @param cause the MPA-level exception
   */
  public RdmaRejectedException(String message, byte[] privateData, int peerIrd, int peerOrd,
      Throwable cause) {
    super(ConnectionEventType.REJECTED, message, cause);
    this.privateData = privateData.clone();
    this.peerIrd = peerIrd;
    this.peerOrd = peerOrd;
  }

  /**
   * The private data of the rejecting Reply.
   *
   * @return a copy
   */
  public byte[] privateData() {
    return privateData.clone();
  }

  /**
   * The IRD the peer stated.
   *
   * @return the IRD, or -1 for an unenhanced Reply
   */
  public int peerIrd() {
    return peerIrd;
  }

  /**
   * The ORD the peer stated.
   *
   * @return the ORD, or -1 for an unenhanced Reply
   */
  public int peerOrd() {
    return peerOrd;
  }
}
