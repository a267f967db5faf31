package io.iwarp4j.verbs.engine;

import io.netty.util.concurrent.EventExecutor;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link QpLoop} of one Netty event loop, shared by every queue pair on it: the drains its
 * queue pairs' posters ask for are collected in one lock-free list and run by one Netty task per
 * batch, in the order they were asked for. With many queue pairs on a loop (1,000 connections,
 * each posted to in turn), a post to an idle queue pair then costs a push onto that list rather
 * than a Netty task of its own: no task-queue node, no wake-up of a loop that is already awake
 * for the batch, and the drains of one burst run back to back.
 */
final class BatchingQpLoop implements QpLoop {
  private static final Logger log = LoggerFactory.getLogger(BatchingQpLoop.class);

  private final EventExecutor executor;
  /** The tasks scheduled and not yet taken, newest first (a Treiber stack). */
  private final AtomicReference<LoopTask> top = new AtomicReference<>();
  private final Runnable runBatch = this::runBatch;

  BatchingQpLoop(EventExecutor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  @Override
  public boolean inEventLoop() {
    return executor.inEventLoop();
  }

  @Override
  public void execute(Runnable task) {
    executor.execute(task);
  }

  @Override
  public boolean schedule(LoopTask task) {
    if (!task.markQueued()) {
      return false; // waiting to run already: that run sees what this schedule was for
    }
    LoopTask old;
    do {
      old = top.get();
      task.next = old;
    } while (!top.compareAndSet(old, task));
    if (old == null) {
      // The first of a batch: one Netty task runs the batch, whatever joins it meanwhile.
      try {
        executor.execute(runBatch);
      } catch (RejectedExecutionException e) {
        top.compareAndSet(task, null); // shutting down: nothing runs again anyway
        task.clearQueued();
        throw e;
      }
      return true;
    }
    return false;
  }

  /** Takes the whole batch and runs it oldest first; what is scheduled meanwhile is the next. */
  private void runBatch() {
    LoopTask newestFirst = top.getAndSet(null);
    LoopTask oldestFirst = null;
    while (newestFirst != null) {
      LoopTask n = newestFirst.next;
      newestFirst.next = oldestFirst;
      oldestFirst = newestFirst;
      newestFirst = n;
    }
    while (oldestFirst != null) {
      LoopTask t = oldestFirst;
      oldestFirst = t.next;
      t.next = null;
      t.clearQueued(); // before it runs: a schedule from now on runs it again after this run
      try {
        t.run();
      } catch (Throwable e) {
        // As Netty does for a task that throws: log it, run the others.
        log.warn("{}: a scheduled queue pair task failed", executor, e);
      }
    }
  }

  @Override
  public String toString() {
    return executor.toString();
  }
}
