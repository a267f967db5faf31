package io.iwarp4j.verbs;

import java.io.IOException;

/**
 * A connection attempt failed. This class itself stands for {@link
 * ConnectionEventType#CONNECT_ERROR} (the MPA exchange or the set-up after it failed); the
 * subclasses for the other outcomes: {@link RdmaRejectedException}, {@link
 * RdmaUnreachableException}, {@link RdmaTimeoutException}.
 */
public class RdmaConnectException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The connection event this failure is reported as. */
  private final ConnectionEventType type;

  /**
   * A CONNECT_ERROR.
   *
   * @param message what failed
   * @param cause the underlying failure, or null
   */
  public RdmaConnectException(String message, Throwable cause) {
    this(ConnectionEventType.CONNECT_ERROR, message, cause);
  }

  /**
   * A failure of the given type.
   *
   * @param type the event type this failure is reported as
   * @param message what failed
   * @param cause the underlying failure, or null
   */
  protected RdmaConnectException(ConnectionEventType type, String message, Throwable cause) {
    super(message, cause);
    this.type = type;
  }

  /**
   * The connection event this failure is reported as.
   *
   * @return REJECTED, UNREACHABLE, TIMEOUT or CONNECT_ERROR
   */
  public ConnectionEventType type() {
    return type;
  }
}
