package io.iwarp4j.verbs;

import java.net.SocketAddress;

/**
 * One connection manager event, the counterpart of {@code rdma_cm_event}. Immutable. Fields that
 * do not apply to the {@link #type()} are null (or -1 for the depths).
 */
public final class ConnectionEvent {
  private final ConnectionEventType type;
  private final QueuePair queuePair;
  private final RdmaConnection connection;
  private final SocketAddress remoteAddress;
  private final byte[] privateData;
  private final int peerIrd;
  private final int peerOrd;
  private final TerminateInfo terminate;
  private final String reason;
  private final Throwable cause;

  ConnectionEvent(ConnectionEventType type, QueuePair queuePair, RdmaConnection connection,
      SocketAddress remoteAddress, byte[] privateData, int peerIrd, int peerOrd,
      TerminateInfo terminate, String reason, Throwable cause) {
    this.type = type;
    this.queuePair = queuePair;
    this.connection = connection;
    this.remoteAddress = remoteAddress;
    this.privateData = privateData;
    this.peerIrd = peerIrd;
    this.peerOrd = peerOrd;
    this.terminate = terminate;
    this.reason = reason;
    this.cause = cause;
  }

  /**
   * What happened.
   *
   * @return the event type
   */
  public ConnectionEventType type() {
    return type;
  }

  /**
   * The queue pair of the connection.
   *
   * @return the queue pair
   */
  public QueuePair queuePair() {
    return queuePair;
  }

  /**
   * The connection; null for events that end a failed attempt.
   *
   * @return the connection, or null
   */
  public RdmaConnection connection() {
    return connection;
  }

  /**
   * The peer's address.
   *
   * @return the address, or null when unknown
   */
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  /**
   * The peer's private data, for ESTABLISHED and REJECTED.
   *
   * @return a copy, or null
   */
  public byte[] privateData() {
    return privateData == null ? null : privateData.clone();
  }

  /**
   * The IRD the peer stated, for ESTABLISHED and REJECTED (RFC 6581 enhanced frames only).
   *
   * @return the IRD, or -1
   */
  public int peerIrd() {
    return peerIrd;
  }

  /**
   * The ORD the peer stated, for ESTABLISHED and REJECTED (RFC 6581 enhanced frames only).
   *
   * @return the ORD, or -1
   */
  public int peerOrd() {
    return peerOrd;
  }

  /**
   * The Terminate behind an ERROR event, decoded.
   *
   * @return the Terminate, or null
   */
  public TerminateInfo terminate() {
    return terminate;
  }

  /**
   * A readable explanation.
   *
   * @return the reason, or null
   */
  public String reason() {
    return reason;
  }

  /**
   * The exception behind a failed attempt.
   *
   * @return the cause, or null
   */
  public Throwable cause() {
    return cause;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("ConnectionEvent{").append(type)
        .append(", qp=").append(queuePair == null ? "-" : queuePair.number());
    if (remoteAddress != null) {
      sb.append(", peer=").append(remoteAddress);
    }
    if (privateData != null) {
      sb.append(", privateData=").append(privateData.length).append('B');
    }
    if (terminate != null) {
      sb.append(", ").append(terminate);
    }
    if (reason != null) {
      sb.append(", reason=").append(reason);
    }
    return sb.append('}').toString();
  }
}
