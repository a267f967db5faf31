package io.iwarp4j.verbs.engine;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * One {@link QpLoop} per event loop of a device, shared by the queue pairs bound to it, so that
 * their drains are batched per loop ({@link BatchingQpLoop}). Made once, with the device's event
 * loop group; read-only afterwards.
 */
public final class QpLoops {
  private final Map<EventExecutor, QpLoop> loops = new IdentityHashMap<>();

  /**
   * @param group the device's event loops
   */
  public QpLoops(EventLoopGroup group) {
    for (EventExecutor e : group) {
      loops.put(e, QpLoop.batching(e));
    }
  }

  /**
   * The shared loop of {@code executor}, one of the group's.
   *
   * @throws IllegalArgumentException for an executor of another group
   */
  public QpLoop of(EventExecutor executor) {
    QpLoop l = loops.get(executor);
    if (l == null) {
      throw new IllegalArgumentException(executor + " is not one of this device's event loops");
    }
    return l;
  }
}
