package io.iwarp4j.mpa;

import java.io.IOException;

/** An MPA-layer failure, carrying the RFC 5044 / RFC 6581 error code that describes it. */
public class MpaException extends IOException {
  private static final long serialVersionUID = 1L;

  private final MpaError error;

  public MpaException(MpaError error, String detail) {
    super("MPA error 0x0" + Integer.toHexString(error.code()) + " (" + error.description() + "): "
        + detail);
    this.error = error;
  }

  public MpaException(MpaError error, String detail, Throwable cause) {
    this(error, detail);
    initCause(cause);
  }

  /** The MPA error code. */
  public MpaError error() {
    return error;
  }
}
