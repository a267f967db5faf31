package io.iwarp4j.verbs;

/** The TCP connect or the MPA Request/Reply exchange did not finish in time. */
public final class RdmaTimeoutException extends RdmaConnectException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what timed out
   * @param cause the transport's or MPA's exception
   */
  public RdmaTimeoutException(String message, Throwable cause) {
    super(ConnectionEventType.TIMEOUT, message, cause);
  }
}
