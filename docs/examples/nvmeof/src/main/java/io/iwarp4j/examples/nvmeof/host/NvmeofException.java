package io.iwarp4j.examples.nvmeof.host;

import io.iwarp4j.examples.nvmeof.wire.NvmeStatus;

/** A failed NVMe over Fabrics operation: an NVMe status, a refused connection or a lost queue. */
public final class NvmeofException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  /** The NVMe status, or -1 if the failure was not one. */
  private final int status;

  public NvmeofException(String message) {
    this(message, -1, null);
  }

  public NvmeofException(String message, Throwable cause) {
    this(message, -1, cause);
  }

  public NvmeofException(String what, int status) {
    this(what + ": " + NvmeStatus.describe(status), status, null);
  }

  private NvmeofException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** The NVMe status ({@link NvmeStatus}), or -1 if the failure was not an NVMe status. */
  public int status() {
    return status;
  }
}
