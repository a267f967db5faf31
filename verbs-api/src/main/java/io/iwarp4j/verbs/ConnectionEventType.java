package io.iwarp4j.verbs;

/**
 * What happened to a connection, in the spirit of {@code rdma_cm_event_type}. The first five end
 * a connection attempt (one of them is reported per attempt); DISCONNECTED and ERROR happen to
 * established connections.
 */
public enum ConnectionEventType {
  /** The connection is up and its queue pair in RTS. */
  ESTABLISHED,
  /** The peer rejected the connection; its private data and IRD/ORD are in the event. */
  REJECTED,
  /** Nobody accepted the TCP connection (refused, no route). */
  UNREACHABLE,
  /** The TCP connect or the MPA exchange did not finish in time. */
  TIMEOUT,
  /** The MPA exchange or the set-up after it failed. */
  CONNECT_ERROR,
  /** The connection closed (either side, gracefully or not); reported once, last. */
  DISCONNECTED,
  /**
   * The queue pair moved to ERROR while connected: a Terminate was received or sent (its
   * layer/type/code are in {@link ConnectionEvent#terminate()}), the connection was lost, a
   * completion queue overran, or a local error. A DISCONNECTED follows.
   */
  ERROR
}
