package io.iwarp4j.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.DefaultEventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BatchingQpLoopTest {
  private final DefaultEventExecutor executor = new DefaultEventExecutor();
  private final QpLoop loop = QpLoop.batching(executor);

  @AfterEach
  void tearDown() {
    executor.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10_000);
  }

  /** Keeps the loop busy until the returned latch is counted down, so schedules pile up. */
  private CountDownLatch occupyLoop() throws InterruptedException {
    CountDownLatch blocked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    executor.execute(() -> {
      blocked.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertTrue(blocked.await(10, TimeUnit.SECONDS));
    return release;
  }

  /** A task that counts its runs, checks it runs on the loop, and records the order. */
  private final class Counted extends LoopTask {
    final int id;
    final AtomicInteger runs = new AtomicInteger();
    final List<Integer> order;

    Counted(int id, List<Integer> order) {
      this.id = id;
      this.order = order;
    }

    @Override
    public void run() {
      assertTrue(loop.inEventLoop());
      runs.incrementAndGet();
      order.add(id); // the loop thread only
    }
  }

  @Test
  void tasksScheduledWhileTheLoopIsBusyRunOnceEachInTheOrderTheyWereScheduled() throws Exception {
    List<Integer> order = new ArrayList<>();
    CountDownLatch release = occupyLoop();
    List<Counted> tasks = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Counted t = new Counted(i, order);
      tasks.add(t);
      loop.schedule(t);
    }
    assertEquals(1, executor.pendingTasks(), "one Netty task for the whole batch");
    release.countDown();
    executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
    for (Counted t : tasks) {
      assertEquals(1, t.runs.get(), "task " + t.id);
    }
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      expected.add(i);
    }
    assertEquals(expected, order);
  }

  @Test
  void aTaskScheduledAgainWhileItWaitsRunsOnceAndTheOthersOfItsBatchAreKept() throws Exception {
    List<Integer> order = new ArrayList<>();
    CountDownLatch release = occupyLoop();
    Counted a = new Counted(1, order);
    Counted b = new Counted(2, order);
    Counted c = new Counted(3, order);
    loop.schedule(a);
    loop.schedule(b);
    loop.schedule(a); // a queue pair drained directly on the loop, then asked again by a poster
    loop.schedule(c);
    loop.schedule(b);
    release.countDown();
    executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
    assertEquals(List.of(1, 2, 3), order);
    loop.schedule(a);
    executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
    assertEquals(List.of(1, 2, 3, 1), order, "runs again once it has run");
  }

  @Test
  void aTaskMayScheduleItselfAgainWhileItRunsAndRunsAgainInTheNextBatch() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    LoopTask t = new LoopTask() {
      @Override
      public void run() {
        if (runs.incrementAndGet() < 5) {
          loop.schedule(this);
        } else {
          done.countDown();
        }
      }
    };
    loop.schedule(t);
    assertTrue(done.await(10, TimeUnit.SECONDS));
    executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
    assertEquals(5, runs.get());
  }

  @Test
  void aTaskThatThrowsDoesNotStopTheOthersOfItsBatch() throws Exception {
    List<Integer> order = new ArrayList<>();
    CountDownLatch release = occupyLoop();
    Counted first = new Counted(1, order);
    LoopTask failing = new LoopTask() {
      @Override
      public void run() {
        throw new IllegalStateException("expected by the test");
      }
    };
    Counted last = new Counted(3, order);
    loop.schedule(first);
    loop.schedule(failing);
    loop.schedule(last);
    release.countDown();
    executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
    assertEquals(List.of(1, 3), order);
    // And the loop still takes new batches.
    Counted again = new Counted(4, order);
    loop.schedule(again);
    executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
    assertEquals(List.of(1, 3, 4), order);
  }

  @Test
  void manyPostersEachTaskRunsExactlyOncePerSchedule() throws Exception {
    int threads = 4;
    int perThread = 20_000;
    AtomicInteger total = new AtomicInteger();
    List<Thread> ts = new ArrayList<>();
    for (int k = 0; k < threads; k++) {
      // Each poster owns one task and schedules it again only once it has run (as a queue
      // pair's ring does: IDLE -> SCHEDULED once per drain).
      ts.add(new Thread(() -> {
        AtomicInteger pending = new AtomicInteger();
        LoopTask t = new LoopTask() {
          @Override
          public void run() {
            total.incrementAndGet();
            pending.set(0);
          }
        };
        for (int i = 0; i < perThread; i++) {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
          while (pending.get() != 0) {
            if (System.nanoTime() > deadline) {
              throw new AssertionError("a scheduled task did not run");
            }
            Thread.onSpinWait();
          }
          pending.set(1);
          loop.schedule(t);
        }
      }));
    }
    ts.forEach(Thread::start);
    for (Thread t : ts) {
      t.join(60_000);
    }
    executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
    assertEquals(threads * perThread, total.get());
  }
}
