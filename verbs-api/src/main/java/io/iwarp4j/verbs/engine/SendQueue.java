package io.iwarp4j.verbs.engine;

import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.SendWorkRequest;
import java.util.function.BiConsumer;

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
 * <p>Posting is lock-free and allocation-free: a credit CAS, then the one copy of the work
 * request, into the entry of a reusable ring slot, where the event loop reads it until it is
 * retired. Everything else is event-loop confined. The ring, the table and the positions are
 * {@link WorkQueue}'s; "issued" is its "handed".
 */
public final class SendQueue extends WorkQueue<SendWorkRequest, SendQueue.Entry> {
  private static final BiConsumer<SendWorkRequest, Entry> COPY =
      (from, to) -> to.wr.copyFrom(from);

  /** One work request taken from the ring, until it is retired. */
  public static final class Entry {
    public final SendWorkRequest wr;
    /** Whether the endpoint reported it complete (it may still wait for older ones). */
    boolean done;
    /** Octets read, for an RDMA Read. */
    public long byteLen;

    Entry(int maxSge) {
      this.wr = new SendWorkRequest(maxSge);
    }
  }

  // Event loop only.
  private int readsOutstanding;

  /**
   * @param depth the most work requests posted and not retired
   * @param maxSge the SGE capacity of each slot
   * @param wakeUp run by a poster when the loop should drain the ring
   */
  public SendQueue(int depth, int maxSge, Runnable wakeUp) {
    super("send", depth, () -> new Entry(maxSge), COPY, wakeUp);
  }

  // ---- event loop ----

  @Override
  void load(Entry e) {
    e.done = false;
    e.byteLen = 0;
  }

  @Override
  void clear(Entry e) {
    e.wr.sgl().clear(); // drop the buffer references
  }

  /** Whether a work request waits to be issued. */
  public boolean hasUnissued() {
    return hasUnhanded();
  }

  /** The next work request to issue; only when {@link #hasUnissued()}. */
  public Entry nextUnissued() {
    return nextUnhanded();
  }

  /** The sequence number {@link #nextUnissued()} gets. */
  public long nextSequence() {
    return nextUnhandedSequence();
  }

  /** Marks the next work request issued (before it is handed to the endpoint). */
  public void markIssued(boolean read) {
    markHanded();
    if (read) {
      readsOutstanding++;
    }
  }

  /** RDMA Reads issued and not completed. */
  public int readsOutstanding() {
    return readsOutstanding;
  }

  /**
   * Records the endpoint's completion of {@code token}.
   *
   * @return false when the token names no issued, unfinished work request (ignored)
   */
  public boolean markDone(long token, long byteLen, boolean read) {
    if (!isHanded(token)) {
      return false;
    }
    Entry e = entry(token);
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
  public Entry retirable() {
    long seq = oldestHanded();
    if (seq >= 0) {
      Entry e = entry(seq);
      if (e.done) {
        return e;
      }
    }
    return null;
  }

  /** The oldest work request that is issued and not done (the one in flight), or -1. */
  public long inFlight() {
    return oldestHanded();
  }

  /** Forgets outstanding Reads (the stream is dead). */
  public void abandonReads() {
    readsOutstanding = 0;
  }
}
