package io.iwarp4j.verbs;

/**
 * Receives the events of a {@link CompletionQueue}: the one-shot completion notification
 * armed by {@link CompletionQueue#requestNotify(boolean)} (like a completion channel event in
 * libibverbs) and the CQ overrun error (like {@code IBV_EVENT_CQ_ERR}).
 *
 * <p>Both are called on the thread that added the completion, typically a connection's event
 * loop. They must return quickly and must not block: hand the work to another thread or poll
 * with {@link CompletionQueue#poll(WorkCompletion[])}, which never blocks. An exception thrown
 * by a listener is logged and otherwise ignored; the completion stays queued.
 *
 * <p>A queue created with a {@link CompletionChannel} queues its notification on the channel
 * for an application thread instead: {@link #onCompletion} is then never called, while
 * {@link #onOverrun} still is.
 */
@FunctionalInterface
public interface CompletionListener {

  /**
   * A completion matching the armed notification was added. The notification is now disarmed;
   * poll the queue until it is empty, then call {@link CompletionQueue#requestNotify(boolean)}
   * again and poll once more, so that a completion added in between is not missed.
   *
   * @param cq the queue that has completions
   */
  void onCompletion(CompletionQueue cq);

  /**
   * The queue overflowed: a completion did not fit and was refused, every connected queue pair
   * whose send or receive queue completes here is moved to the ERROR state (on its own event
   * loop, with its ERROR and DISCONNECTED connection events), and the queue refuses every later
   * completion. Called once per queue, before those queue pairs move. The default does nothing.
   *
   * @param cq the queue that overflowed
   */
  default void onOverrun(CompletionQueue cq) {
  }
}
