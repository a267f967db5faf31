package io.iwarp4j.verbs;

/**
 * A work request completed with an error status: how an {@link AsyncQueuePair} future fails.
 * Carries the completion (status, opcode, vendor error).
 */
public final class WorkRequestFailedException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient WorkCompletion completion;

  /**
   * Creates the exception.
   *
   * @param completion the failed completion (kept as is; pass a copy)
   */
  public WorkRequestFailedException(WorkCompletion completion) {
    super(completion.opcode() + " work request failed with " + completion.status()
        + (completion.vendorError() != 0
            ? " (Terminate 0x" + Integer.toHexString(completion.vendorError()) + ")" : ""));
    this.completion = completion;
  }

  /**
   * The failed completion.
   *
   * @return the completion
   */
  public WorkCompletion completion() {
    return completion;
  }

  /**
   * Its status.
   *
   * @return the error status
   */
  public WcStatus status() {
    return completion.status();
  }
}
