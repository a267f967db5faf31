package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.rdmap.RdmapEndpointListener;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Several threads post to one queue pair while the test thread acts as its event loop: nothing
 * is lost or duplicated, each thread's work requests complete in the order it posted them, and
 * the depth is never exceeded (posters that find the queue full retry).
 */
class QueuePairConcurrencyTest {
  private static final int THREADS = 3;
  private static final int PER_THREAD = 3000;

  @Test
  void concurrentPostersKeepTheirOrder() throws Exception {
    try (QpHarness h = new QpHarness(32, 4, 8192).connected()) {
      RdmapEndpointListener events = h.qp.endpointListener();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch start = new CountDownLatch(1);
      Thread[] posters = new Thread[THREADS];
      for (int t = 0; t < THREADS; t++) {
        long thread = t;
        posters[t] = new Thread(() -> {
          SendWorkRequest wr = h.write(0, SendFlags.SIGNALED);
          try {
            start.await();
            for (int i = 0; i < PER_THREAD; i++) {
              wr.wrId(thread << 32 | i);
              for (;;) {
                try {
                  h.qp.postSend(wr);
                  break;
                } catch (WorkQueueFullException full) {
                  Thread.yield();
                }
              }
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        }, "poster-" + t);
        posters[t].start();
      }
      start.countDown();
      int[] next = new int[THREADS];
      int total = 0;
      int completed = 0;
      WorkCompletion[] out = QpHarness.newCompletions(64);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (total < THREADS * PER_THREAD) {
        assertTrue(System.nanoTime() < deadline, "stuck after " + total + " completions");
        assertNull(failure.get());
        h.loop.runAll();
        assertTrue(h.ep.issued - completed <= 32, "more issued than the depth");
        while (completed < h.ep.issued) {
          events.onSendComplete(h.ep.tokens[completed++]);
        }
        events.onCompletionsReported();
        int n;
        while ((n = h.sendCq.poll(out)) > 0) {
          for (int i = 0; i < n; i++) {
            assertTrue(out[i].isSuccess(), out[i].toString());
            int thread = (int) (out[i].wrId() >>> 32);
            int seq = (int) out[i].wrId();
            assertEquals(next[thread], seq, "thread " + thread + " out of order");
            next[thread]++;
            total++;
          }
        }
        Thread.onSpinWait();
      }
      for (Thread p : posters) {
        p.join(10_000);
      }
      assertNull(failure.get());
      assertEquals(0, h.qp.outstandingSends());
    }
  }
}
