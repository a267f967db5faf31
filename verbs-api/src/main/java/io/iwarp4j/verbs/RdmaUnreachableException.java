package io.iwarp4j.verbs;

/** Nobody accepted the TCP connection: refused, no route to the host, or an unknown host. */
public final class RdmaUnreachableException extends RdmaConnectException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened
   * @param cause the transport's exception
   */
  public RdmaUnreachableException(String message, Throwable cause) {
    super(ConnectionEventType.UNREACHABLE, message, cause);
  }
}
