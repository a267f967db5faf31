package io.iwarp4j.verbs;

/**
 * Thrown when a work request is posted to a queue that already holds as many work requests as
 * its depth allows (libibverbs returns {@code ENOMEM}). Nothing was posted; the caller may
 * retry after completions have been polled.
 */
public class WorkQueueFullException extends IllegalStateException {

  /** Which queue was full, e.g. "send queue". */
  private final String queue;
  /** The most work requests that queue holds. */
  private final int depth;

  /**
   * Creates the exception.
   *
   * @param queue which queue, e.g. "send queue" or "receive queue"
   * @param depth the queue's depth, the most work requests it holds
   */
  public WorkQueueFullException(String queue, int depth) {
    super(queue + " is full: it holds at most " + depth + " work requests");
    this.queue = queue;
    this.depth = depth;
  }

  /**
   * Which queue was full.
   *
   * @return the queue's name as given
   */
  public String queue() {
    return queue;
  }

  /**
   * The depth of the queue that was full.
   *
   * @return the most work requests the queue holds
   */
  public int depth() {
    return depth;
  }
}
