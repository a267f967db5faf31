package io.iwarp4j.tools.ping;

/** A failure iwarp-ping reports in one line (and with a stack trace only under -d). */
final class PingException extends Exception {
  private static final long serialVersionUID = 1L;

  PingException(String message) {
    super(message);
  }

  PingException(String message, Throwable cause) {
    super(message, cause);
  }
}
