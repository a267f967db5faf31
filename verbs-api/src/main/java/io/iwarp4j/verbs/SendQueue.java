package io.iwarp4j.verbs;

import io.iwarp4j.verbs.internal.MpscSlotRing;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The send queue of a {@link QueuePair}: the posting ring application threads fill, and, on the
 * connection's event loop, the table of work requests taken from it, with the three positions
 * that order them.
 *
 * <pre>
 *   head            issued              tail
 *    │ issued, not    │ taken from the     │
 *    │ yet retired    │ ring, waiting to   │
 *    │                │ be issued          │
 * </pre>
 *
 * Every work request gets a sequence number, its position in posting order; that number is the
 * token the RDMAP endpoint reports completions with. Work requests are issued in order and
 * retired (completed to the CQ, their slot freed) strictly in order: one that finished early
 * waits for every older one. The depth bounds work requests posted and not yet retired, counted
 * by an atomic credit taken at posting, so the ring and the table can never overflow and posting
 * beyond the depth fails at once.
 *
 * <p>Posting is lock-free and allocation-free: a credit CAS, then a copy of the work request
 * into a preallocated ring slot. Everything else is event-loop confined.
 */
final class SendQueue {
  private static final BiConsumer<SendWorkRequest, SendWorkRequest> COPY =
      (from, to) -> to.copyFrom(from);

  /** One work request taken from the ring, until it is retired. */
  static final class Entry {
    final SendWorkRequest wr;
    /** Whether the endpoint reported it complete (it may still wait for older ones). */
    boolean done;
    /** Octets read, for an RDMA Read. */
    long byteLen;

    Entry(int maxSge) {
      this.wr = new SendWorkRequest(maxSge);
    }
  }

  private final int depth;
  private final MpscSlotRing<SendWorkRequest> ring;
  private final AtomicInteger posted = new AtomicInteger();
  private final Entry[] table;
  private final int mask;
  private final Consumer<SendWorkRequest> take = this::take;

  // Event loop only.
  private long head;
  private long issued;
  private long tail;
  private int readsOutstanding;

  /**
   * @param depth the most work requests posted and not retired
   * @param maxSge the SGE capacity of each slot
   * @param wakeUp run by a poster when the loop should drain the ring
   */
  SendQueue(int depth, int maxSge, Runnable wakeUp) {
    this.depth = depth;
    this.ring = new MpscSlotRing<>(depth, () -> new SendWorkRequest(maxSge), wakeUp);
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
   * @throws WorkQueueFullException when {@code depth} work requests are outstanding
   */
  void post(SendWorkRequest wr) {
    for (;;) {
      int n = posted.get();
      if (n >= depth) {
        throw new WorkQueueFullException("send queue", depth);
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
      // Cannot happen: a credit guarantees a free ring slot.
      throw new IllegalStateException("send ring full although a credit was free");
    }
  }

  /** Work requests posted and not yet retired (a snapshot). */
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

  private void take(SendWorkRequest slot) {
    Entry e = table[(int) tail & mask];
    e.wr.copyFrom(slot);
    e.done = false;
    e.byteLen = 0;
    tail++;
  }

  /** Whether a work request waits to be issued. */
  boolean hasUnissued() {
    return issued < tail;
  }

  /** The next work request to issue; only when {@link #hasUnissued()}. */
  Entry nextUnissued() {
    return table[(int) issued & mask];
  }

  /** The sequence number {@link #nextUnissued()} gets. */
  long nextSequence() {
    return issued;
  }

  /** Marks the next work request issued (before it is handed to the endpoint). */
  void markIssued(boolean read) {
    issued++;
    if (read) {
      readsOutstanding++;
    }
  }

  /** RDMA Reads issued and not completed. */
  int readsOutstanding() {
    return readsOutstanding;
  }

  /**
   * Records the endpoint's completion of {@code token}.
   *
   * @return false when the token names no issued, unfinished work request (ignored)
   */
  boolean markDone(long token, long byteLen, boolean read) {
    if (token < head || token >= issued) {
      return false;
    }
    Entry e = table[(int) token & mask];
    if (e.done) {
      return false;
    }
    e.done = true;
    e.byteLen = byteLen;
    if (read) {
      readsOutstanding--;
    }
    return true;
  }

  /** The oldest work request if it is done and may be retired, else null. */
  Entry retirable() {
    if (head < issued) {
      Entry e = table[(int) head & mask];
      if (e.done) {
        return e;
      }
    }
    return null;
  }

  /** The oldest work request that is issued and not done (the one in flight), or -1. */
  long inFlight() {
    return head < issued ? head : -1;
  }

  /** The oldest work request not retired, or null; for flushing. */
  Entry oldest() {
    return head < tail ? table[(int) head & mask] : null;
  }

  /** The sequence number of {@link #oldest()}. */
  long oldestSequence() {
    return head;
  }

  /**
   * Retires the oldest work request: frees its table slot and its credit. The caller has
   * completed it (or decided it produces no completion).
   */
  void retireOldest() {
    Entry e = table[(int) head & mask];
    e.wr.sgl().clear(); // drop the buffer references
    head++;
    if (issued < head) {
      issued = head;
    }
    posted.decrementAndGet();
  }

  /** Forgets outstanding Reads (the stream is dead). */
  void abandonReads() {
    readsOutstanding = 0;
  }
}
