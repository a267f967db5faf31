package io.iwarp4j.verbs;

import io.iwarp4j.verbs.engine.QpLoop;
import io.iwarp4j.verbs.engine.ReceiveQueue;
import io.iwarp4j.verbs.engine.SendQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Finds the work requests of one queue pair that use a memory region (any SGE, or an Atomic's
 * result buffer) and are posted and not yet retired: what {@link MemoryRegion#closeChecked()}
 * refuses to deregister under. Runs where the queues' tables may be read: on the queue pair's
 * event loop, or, before the queue pair has one, under its binding lock. Allocates (it builds
 * the message); it is not on the data path.
 */
final class RegionUses {
  private RegionUses() {
  }

  /**
   * Appends {@code "queue pair N send wrId W"} (and receive) for every work request of the
   * queues that uses {@code region}, after moving what posters published into the tables.
   *
   * @return how many were found
   */
  static int collect(int qpNumber, SendQueue sq, ReceiveQueue rq, MemoryRegion region,
      StringBuilder into) {
    sq.drain();
    rq.drain();
    int found = 0;
    for (long seq = sq.oldestSequence(); seq < sq.endSequence(); seq++) {
      SendWorkRequest wr = sq.entry(seq).wr;
      if (uses(wr.sgl(), region) || wr.localResultBuffer() == region) {
        append(into, qpNumber, "send", wr.wrId());
        found++;
      }
    }
    for (long seq = rq.oldestSequence(); seq < rq.endSequence(); seq++) {
      RecvWorkRequest wr = rq.entry(seq).wr;
      if (uses(wr.sgl(), region)) {
        append(into, qpNumber, "receive", wr.wrId());
        found++;
      }
    }
    return found;
  }

  /**
   * As {@link #collect}, run on the queue pair's event loop {@code l}: here when this thread is
   * that loop, else as a task this thread waits a bounded time for.
   *
   * @return how many were found
   * @throws IllegalStateException when interrupted, or the loop did not answer in time
   */
  static int collectOnLoop(QpLoop l, int qpNumber, SendQueue sq, ReceiveQueue rq,
      MemoryRegion region, StringBuilder into) {
    if (l.inEventLoop()) {
      return RegionUses.collect(qpNumber, sq, rq, region, into);
    }
    StringBuilder found = new StringBuilder();
    CompletableFuture<Integer> done = new CompletableFuture<>();
    try {
      l.execute(() -> {
        try {
          done.complete(RegionUses.collect(qpNumber, sq, rq, region, found));
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
        }
      });
      int n = done.get(10, TimeUnit.SECONDS);
      if (n > 0) {
        into.append(into.length() > 0 ? ", " : "").append(found);
      }
      return n;
    } catch (RejectedExecutionException e) {
      return 0; // the device is closing: the queue pair is flushed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while looking for work requests using "
          + region, e);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("queue pair " + qpNumber + " did not answer which work"
          + " requests use " + region + ": " + e, e);
    }
  }

  private static boolean uses(ScatterGatherList sgl, MemoryRegion region) {
    for (int i = 0; i < sgl.count(); i++) {
      if (sgl.buffer(i) == region) {
        return true;
      }
    }
    return false;
  }

  private static void append(StringBuilder into, int qp, String queue, long wrId) {
    if (into.length() > 0) {
      into.append(", ");
    }
    into.append("queue pair ").append(qp).append(' ').append(queue).append(" wrId ")
        .append(wrId);
  }
}
