package io.iwarp4j.mpa;

import java.io.IOException;

/** An MPA-layer failure, carrying the RFC 5044 / RFC 6581 error code that describes it. */
public class MpaException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The MPA error code. */
  private final MpaError error;

  /**
   * An MPA error; the message names the code, its description and {@code detail}.
   *
   * @param error the MPA error code
   * @param detail what happened
   */
  public MpaException(MpaError error, String detail) {
    super("MPA error 0x0" + Integer.toHexString(error.code()) + " (" + error.description() + "): "
        + detail);
    this.error = error;
  }

  /**
   * An MPA error with a cause.
   *
   * @param error the MPA error code
   * @param detail what happened
   * @param cause the underlying failure
   */
  public MpaException(MpaError error, String detail, Throwable cause) {
    this(error, detail);
    initCause(cause);
  }

  /**
   * The MPA error code.
   *
   * @return the MPA error code
   */
  public MpaError error() {
    return error;
  }
}
