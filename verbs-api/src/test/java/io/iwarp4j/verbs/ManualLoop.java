package io.iwarp4j.verbs;

import io.iwarp4j.verbs.engine.QpLoop;
import java.util.ArrayDeque;

/**
 * A {@link QpLoop} run by hand: tasks queue up until {@link #runAll()}. The thread that created
 * it counts as the loop, so a test calls loop-side methods directly. Allocation-free once the
 * task queue has grown to its working size.
 */
final class ManualLoop implements QpLoop {
  private final Thread owner = Thread.currentThread();
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>(256);

  @Override
  public boolean inEventLoop() {
    return Thread.currentThread() == owner;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (tasks) {
      tasks.add(task);
    }
  }

  /** Runs queued tasks, and the ones they queue, until none is left. */
  int runAll() {
    int n = 0;
    for (;;) {
      Runnable t;
      synchronized (tasks) {
        t = tasks.poll();
      }
      if (t == null) {
        return n;
      }
      t.run();
      n++;
    }
  }

  int pending() {
    synchronized (tasks) {
      return tasks.size();
    }
  }

  @Override
  public String toString() {
    return "ManualLoop";
  }
}
