package io.iwarp4j.verbs;

/**
 * The states of a {@link QueuePair}, the verbs {@code ibv_qp_state} values as iWARP uses them.
 *
 * <p>An iWARP queue pair is one RDMAP stream over one TCP connection, so the connection manager
 * drives it through its states, as rdma_cm does for Linux iWARP devices; the application never
 * needs to modify the state itself, except to force {@link #ERROR}.
 *
 * <pre>
 *  RESET ──create──▶ INIT ──MPA handshake done──▶ RTR ──this end may send──▶ RTS
 *                      │                           │                          │
 *                      └──────────── connect failure, Terminate, disconnect, ─┴──▶ ERROR
 *                                    CQ overrun, local error, modifyToError()
 *  ERROR ──reset()──▶ RESET ──▶ INIT (connect or accept again)
 *  any ──close()──▶ CLOSED
 * </pre>
 */
public enum QpState {
  /**
   * Just built, or being reset. {@link RdmaDevice#createQueuePair} moves a queue pair on to
   * {@link #INIT} before returning it, as {@code rdma_create_qp} does, and {@link
   * QueuePair#reset()} before it returns, so applications see this state only while a reset runs
   * (posting then throws).
   */
  RESET,
  /**
   * Created and not yet connected. Receives may be posted (they are handed to the RDMAP stream
   * when the connection exists); sends may not.
   */
  INIT,
  /**
   * Ready to receive: the MPA handshake is done and the RDMAP stream exists, so posted receives
   * take incoming Sends, but this end may not send yet. A client-server MPA Responder stays here
   * until the Initiator's first FPDU has arrived (RFC 5044 §7.1.2 rule 4); an Initiator and a
   * peer-to-peer Responder pass through at once.
   */
  RTR,
  /** Ready to send: fully connected. Both queues work. */
  RTS,
  /**
   * Failed or disconnected. Every outstanding work request, and every one posted later, completes
   * with {@link WcStatus#WR_FLUSH_ERR} (the one whose failure caused the state gets the mapped
   * error status). The connection is closed or closing. Left only by {@link QueuePair#reset()}
   * (back to {@link #INIT}, through {@link #RESET}) or {@link QueuePair#close()}.
   */
  ERROR,
  /** Destroyed with {@link QueuePair#close()}: posting throws. Final. */
  CLOSED;

  /**
   * Whether send work requests may be posted in this state.
   *
   * @return true for {@link #RTS} and {@link #ERROR} (where they are flushed)
   */
  public boolean acceptsSends() {
    return this == RTS || this == ERROR;
  }

  /**
   * Whether receive work requests may be posted in this state.
   *
   * @return true for every state but {@link #RESET} and {@link #CLOSED}
   */
  public boolean acceptsReceives() {
    return this != RESET && this != CLOSED;
  }
}
