package io.iwarp4j.verbs;

import io.iwarp4j.verbs.engine.ReceiveQueue;
import io.iwarp4j.verbs.engine.SendQueue;

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
