package io.iwarp4j.tools.perf;

/** A bad command line: the message names the problem; the tool exits with status 2. */
public final class UsageException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is wrong with the command line
   */
  public UsageException(String message) {
    super(message);
  }
}
