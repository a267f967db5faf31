package io.iwarp4j.verbs;

import io.iwarp4j.verbs.internal.MpscSlotRing;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The receive queue of a {@link QueuePair}: the posting ring application threads fill, and, on
 * the connection's event loop, the table of receive work requests taken from it.
 *
 * <pre>
 *   head             handed              tail
 *    │ posted to the   │ taken from the     │
 *    │ RDMAP endpoint  │ ring, not yet      │
 *    │                 │ posted (no stream) │
 * </pre>
 *
 * A receive's sequence number is the buffer id the endpoint reports it with. Sends consume the
 * posted buffers in order, so completions arrive, and are retired, in order. Receives posted
 * before the connection exists wait in the table and are handed to the endpoint once it does.
 * The depth bounds receives posted and not retired, counted by an atomic credit taken at
 * posting. Posting is lock-free and allocation-free; the rest is event-loop confined.
 */
final class ReceiveQueue {
  private static final BiConsumer<RecvWorkRequest, RecvWorkRequest> COPY =
      (from, to) -> to.copyFrom(from);

  /** One receive taken from the ring, until it is retired. */
  static final class Entry {
    final RecvWorkRequest wr;
    /** The pieces handed to the endpoint (views of the SGEs' memory). */
    final ByteBuf[] pieces;
    int pieceCount;
    /**
     * Per SGE position, a private duplicate of the last buffer posted there and that buffer.
     * Applications post the same regions again and again, so the duplicate is reused with new
     * indexes and a receive allocates nothing; it is private to this slot, so moving its
     * indexes races with nobody.
     */
    private final ByteBuf[] views;
    private final LocalBuffer[] viewSources;

    Entry(int maxSge) {
      this.wr = new RecvWorkRequest(maxSge);
      this.pieces = new ByteBuf[Math.max(1, maxSge)];
      this.views = new ByteBuf[Math.max(1, maxSge)];
      this.viewSources = new LocalBuffer[Math.max(1, maxSge)];
    }

    /** Fills {@link #pieces} with the SGEs' memory as readable ranges. */
    void preparePieces() {
      ScatterGatherList sgl = wr.sgl();
      int n = sgl.count();
      for (int i = 0; i < n; i++) {
        LocalBuffer b = sgl.buffer(i);
        if (viewSources[i] != b) {
          views[i] = b.buffer().duplicate();
          viewSources[i] = b;
        }
        int from = (int) sgl.offset(i);
        pieces[i] = views[i].setIndex(from, from + (int) sgl.length(i));
      }
      pieceCount = n;
    }
  }

  private final int depth;
  private final MpscSlotRing<RecvWorkRequest> ring;
  private final AtomicInteger posted = new AtomicInteger();
  private final Entry[] table;
  private final int mask;
  private final Consumer<RecvWorkRequest> take = this::take;

  // Event loop only.
  private long head;
  private long handed;
  private long tail;

  /**
   * @param depth the most receives posted and not retired
   * @param maxSge the SGE capacity of each slot
   * @param wakeUp run by a poster when the loop should drain the ring
   */
  ReceiveQueue(int depth, int maxSge, Runnable wakeUp) {
    this.depth = depth;
    this.ring = new MpscSlotRing<>(depth, () -> new RecvWorkRequest(maxSge), wakeUp);
    int size = Integer.highestOneBit(depth);
    if (size < depth) {
      size <<= 1;
    }
    this.table = new Entry[size];
    for (int i = 0; i < size; i++) {
      table[i] = new Entry(maxSge);
    }
    this.mask = size - 1;
  }

  // ---- any thread ----

  /**
   * Takes a credit and copies {@code wr} into the ring.
   *
   * @throws WorkQueueFullException when {@code depth} receives are outstanding
   */
  void post(RecvWorkRequest wr) {
    for (;;) {
      int n = posted.get();
      if (n >= depth) {
        throw new WorkQueueFullException("receive queue", depth);
      }
      if (posted.compareAndSet(n, n + 1)) {
        break;
      }
    }
    boolean done = false;
    try {
      done = ring.offer(wr, COPY);
    } finally {
      if (!done) {
        posted.decrementAndGet();
      }
    }
    if (!done) {
      throw new IllegalStateException("receive ring full although a credit was free");
    }
  }

  /** Receives posted and not yet retired (a snapshot). */
  int outstanding() {
    return posted.get();
  }

  int depth() {
    return depth;
  }

  // ---- event loop ----

  /** Moves what posters published into the table, in posting order. */
  int drain() {
    return ring.drain(take);
  }

  private void take(RecvWorkRequest slot) {
    Entry e = table[(int) tail & mask];
    e.wr.copyFrom(slot);
    e.pieceCount = 0;
    tail++;
  }

  /** Whether a receive waits to be handed to the endpoint. */
  boolean hasUnhanded() {
    return handed < tail;
  }

  /** The next receive to hand over; only when {@link #hasUnhanded()}. */
  Entry nextUnhanded() {
    return table[(int) handed & mask];
  }

  /** The buffer id {@link #nextUnhanded()} gets. */
  long nextUnhandedSequence() {
    return handed;
  }

  /** Marks the next receive handed to the endpoint. */
  void markHanded() {
    handed++;
  }

  /**
   * The receive a delivery with {@code bufferId} completes: the oldest handed one, or null when
   * the id does not name it (ignored).
   */
  Entry deliveredTo(long bufferId) {
    if (bufferId != head || head >= handed) {
      return null;
    }
    return table[(int) head & mask];
  }

  /** The oldest receive not retired, or null. */
  Entry oldest() {
    return head < tail ? table[(int) head & mask] : null;
  }

  /** The sequence number of {@link #oldest()}. */
  long oldestSequence() {
    return head;
  }

  /** Retires the oldest receive: frees its slot and credit. The caller has completed it. */
  void retireOldest() {
    Entry e = table[(int) head & mask];
    e.wr.sgl().clear();
    Arrays.fill(e.pieces, 0, e.pieceCount, null);
    e.pieceCount = 0;
    head++;
    if (handed < head) {
      handed = head;
    }
    posted.decrementAndGet();
  }
}
