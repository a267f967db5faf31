package io.iwarp4j.verbs.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A task a {@link QpLoop} runs after each {@link QpLoop#schedule}, linked intrusively (the link
 * is this object's own field), so that scheduling it allocates nothing. Scheduling a task that
 * is already waiting to run does nothing more: it runs once for both (a queue pair's drain, for
 * one, is asked for by the posting ring and may also have run directly on the loop meanwhile;
 * one run sees everything either asked for).
 */
public abstract class LoopTask implements Runnable {
  private static final VarHandle QUEUED;

  static {
    try {
      QUEUED = MethodHandles.lookup().findVarHandle(LoopTask.class, "queued", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The next task of a batch; written before the batch is published, read after it is taken. */
  LoopTask next;
  /** 1 from scheduling until the loop takes the task to run it. */
  @SuppressWarnings("unused")
  private volatile int queued;

  /** Marks the task waiting; false when it already was (then nothing more is to be done). */
  final boolean markQueued() {
    return QUEUED.compareAndSet(this, 0, 1);
  }

  /** The loop took the task to run it: a schedule from now on queues it again. */
  final void clearQueued() {
    QUEUED.setVolatile(this, 0);
  }

  /** The task as a loop that does not batch runs it: clears the mark, then runs (made once). */
  final Runnable runScheduled = () -> {
    clearQueued();
    run();
  };
}
