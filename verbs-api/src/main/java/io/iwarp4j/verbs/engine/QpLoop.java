package io.iwarp4j.verbs.engine;

import io.iwarp4j.verbs.QueuePair;
import io.netty.util.concurrent.EventExecutor;
import java.util.Objects;

/**
 * The one thread a {@link QueuePair}'s queue processing runs on: its connection's event loop.
 * A seam, so tests can run the loop side by hand.
 */
public interface QpLoop {

  /** Whether the calling thread is this loop. */
  boolean inEventLoop();

  /** Runs {@code task} on this loop soon; never on the calling thread. */
  void execute(Runnable task);

  /**
   * Runs {@code task} on this loop soon, like {@link #execute}, batched with the other tasks
   * scheduled on the loop meanwhile when the loop supports it (see {@link BatchingQpLoop}). A
   * task already waiting to run is not queued again (see {@link LoopTask}).
   *
   * @param task the task
   * @return whether this call handed the loop a task of its own to run (a wake-up, when called
   *     from another thread); false when the task was waiting already or joined a batch
   */
  default boolean schedule(LoopTask task) {
    if (!task.markQueued()) {
      return false;
    }
    execute(task.runScheduled);
    return true;
  }

  /**
   * The loop of a Netty executor that batches {@link #schedule}d tasks; make one per executor
   * and share it among the queue pairs on that executor ({@link QpLoops}).
   */
  static QpLoop batching(EventExecutor executor) {
    return new BatchingQpLoop(executor);
  }

  /** The loop of a Netty executor. */
  static QpLoop of(EventExecutor executor) {
    Objects.requireNonNull(executor, "executor");
    return new QpLoop() {
      @Override
      public boolean inEventLoop() {
        return executor.inEventLoop();
      }

      @Override
      public void execute(Runnable task) {
        executor.execute(task);
      }

      @Override
      public String toString() {
        return executor.toString();
      }
    };
  }
}
