package io.iwarp4j.verbs;

/**
 * Receives the asynchronous event of a {@link SharedReceiveQueue}: the limit event armed by
 * {@link SharedReceiveQueue#armLimit(int)}, like {@code IBV_EVENT_SRQ_LIMIT_REACHED} from
 * {@code ibv_get_async_event}.
 *
 * <p>Called on the event loop of the queue pair whose Send took the receive that brought the
 * count below the limit. It must return quickly and must not block: post more receives (posting
 * never blocks) or hand the work to another thread. An exception it throws is logged and
 * otherwise ignored.
 */
@FunctionalInterface
public interface SharedReceiveQueueListener {

  /**
   * Fewer receives than {@code limit} are posted in {@code srq} now. The limit is disarmed (0)
   * before this call; arm it again with {@link SharedReceiveQueue#armLimit(int)} to hear of the
   * next time.
   *
   * @param srq the shared receive queue
   * @param limit the limit that was armed
   */
  void onLimitReached(SharedReceiveQueue srq, int limit);
}
