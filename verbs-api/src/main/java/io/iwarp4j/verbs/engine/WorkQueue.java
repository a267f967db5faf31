package io.iwarp4j.verbs.engine;

import io.iwarp4j.verbs.WorkQueueFullException;
import io.iwarp4j.verbs.internal.MpscSlotRing;
import io.iwarp4j.verbs.internal.PaddedLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The mechanism a {@link SendQueue} and a {@link ReceiveQueue} share: the posting ring
 * application threads fill, and, on the connection's event loop, the table of work requests
 * taken from it, with the three positions that order them.
 *
 * <pre>
 *   head            handed              tail
 *    │ handed to the  │ taken from the     │
 *    │ endpoint, not  │ ring, not yet      │
 *    │ yet retired    │ handed over        │
 * </pre>
 *
 * Every work request gets a sequence number, its position in posting order, and lives in the
 * table entry that number selects until it is retired, strictly in order. The depth bounds work
 * requests posted and not yet retired, counted by a credit taken at posting (a CAS on the
 * posters' count, which the loop never writes; the loop counts retirements on a line of its
 * own), so the ring and the table can never overflow and posting beyond the depth fails at once.
 *
 * <p>Posting is lock-free and, once each ring slot has been used, allocation-free: a credit CAS,
 * then a copy of the work request into the entry the ring slot holds (made the first time it is
 * used); a burst of posts costs one wake-up (see {@link MpscSlotRing}). That copy is the only
 * one: the event loop takes the entry out of the ring as it is (the work request is read where
 * the poster wrote it until it is retired) and gives the ring, in exchange, the entry retired
 * from the same table slot earlier ({@link MpscSlotRing#drainTaking}).
 * Everything else is event-loop confined. A subclass says how an entry taken from the ring is
 * reset for the engine's own state ({@link #load}) and what an entry lets go of when it is
 * retired ({@link #clear}).
 *
 * @param <W> the work request type
 * @param <E> the entry type, which holds one work request and the engine's state for it
 */
public abstract class WorkQueue<W, E> {
  /** Table slots at first (a power of two); the table doubles up to the depth as needed. */
  static final int INITIAL_TABLE = 8;

  private final String kind;
  private final int depth;
  private final MpscSlotRing<E> ring;
  private final BiConsumer<? super W, ? super E> copy;
  /**
   * Credits: work requests ever posted (posters CAS it) and ever retired (the loop writes it),
   * each on a cache line of its own, so a post and a retirement do not fight over one line;
   * outstanding = posted - retired.
   */
  private final PaddedLong postedTotal = new PaddedLong(0);
  private final PaddedLong retiredTotal = new PaddedLong(0);
  /**
   * The retired count a poster last read: posters read {@link #retiredTotal} (the loop's line)
   * only when this says the queue is full. Racy by design: a stale value is smaller, so it only
   * makes a poster look again.
   */
  private long retiredSeen;
  /** Event loop only; grows by doubling, up to {@link #maxTable}, when it is full. */
  private Object[] table;
  private int mask;
  private final int maxTable;
  private final MpscSlotRing.Taker<E> take = this::take;
  private final Supplier<? extends E> entryFactory;

  // Event loop only, on cache lines of their own: the loop writes them per message, posters
  // read the fields above per post.
  private final Positions at = new Positions();

  /**
   * @param kind "send" or "receive", for the messages of failed posts
   * @param depth the most work requests posted and not retired
   * @param entryFactory makes entries, each the first time its ring slot is used (on the
   *     posting thread)
   * @param copy copies a posted work request into a ring slot's entry; a constant, so that
   *     posting allocates nothing
   * @param wakeUp run by a poster when the loop should drain the ring
   */
  WorkQueue(String kind, int depth, Supplier<? extends E> entryFactory,
      BiConsumer<? super W, ? super E> copy, Runnable wakeUp) {
    this.kind = kind;
    this.depth = depth;
    this.copy = copy;
    this.entryFactory = entryFactory;
    this.ring = new MpscSlotRing<>(depth, entryFactory, wakeUp);
    int size = Integer.highestOneBit(depth);
    if (size < depth) {
      size <<= 1;
    }
    // Entries are made on first use and the table grows with the work requests outstanding: an
    // idle queue pair costs two small arrays of references, not 2 x depth work requests with
    // their scatter/gather lists; a busy one stops allocating once it reached its working depth.
    this.maxTable = size;
    this.table = new Object[Math.min(size, INITIAL_TABLE)];
    this.mask = table.length - 1;
  }

  /**
   * Resets the engine's own state of an entry just taken from the ring (its work request is as
   * the poster wrote it). Event loop only.
   *
   * @param entry the entry of the next sequence number
   */
  abstract void load(E entry);

  /**
   * Drops what a retired entry references (buffers), before its slot is freed.
   *
   * @param entry the oldest entry, being retired
   */
  abstract void clear(E entry);

  // ---- any thread ----

  /**
   * Takes a credit and copies {@code wr} into the ring.
   *
   * @param wr the work request, copied
   * @throws WorkQueueFullException when {@code depth} work requests are outstanding
   */
  public final void post(W wr) {
    takeCredit();
    boolean done = false;
    try {
      done = ring.offer(wr, copy);
    } finally {
      if (!done) {
        returnCredit();
      }
    }
    if (!done) {
      // Cannot happen: a credit guarantees a free ring slot.
      throw new IllegalStateException(kind + " ring full although a credit was free");
    }
  }

  private void takeCredit() {
    for (;;) {
      long p = postedTotal.getVolatile();
      if (p - retiredSeen >= depth) {
        long r = retiredTotal.getAcquire();
        retiredSeen = r;
        if (p - r >= depth) {
          throw new WorkQueueFullException(kind + " queue", depth);
        }
      }
      if (postedTotal.compareAndSet(p, p + 1)) {
        return;
      }
    }
  }

  /** Gives back a credit taken by a post that then failed (on the posting thread). */
  private void returnCredit() {
    for (;;) {
      long p = postedTotal.getVolatile();
      if (postedTotal.compareAndSet(p, p - 1)) {
        return;
      }
    }
  }

  /** Work requests posted and not yet retired (a snapshot). */
  public final int outstanding() {
    // Retired first: both only grow and retired never passes posted, so this is never < 0.
    long retired = retiredTotal.getVolatile();
    return (int) (postedTotal.getVolatile() - retired);
  }

  final int depth() {
    return depth;
  }

  // ---- event loop ----

  /** Moves what posters published into the table, in posting order. */
  public final int drain() {
    return ring.drainTaking(take);
  }

  /**
   * Posts from the event loop that drains this queue, without the ring: takes a credit, moves
   * what other threads published into the table first (their posts returned before this one
   * began, so they come first), then copies {@code wr} straight into the table entry of the
   * next sequence number. No ring slot, no publication, no wake-up: the loop posting to itself
   * (an application reposting a receive from its completion listener) needs none of them.
   *
   * @param wr the work request, copied
   * @throws WorkQueueFullException when {@code depth} work requests are outstanding
   */
  public final void postOnLoop(W wr) {
    takeCredit();
    drain();
    growIfFull();
    int i = (int) at.tail & mask;
    @SuppressWarnings("unchecked")
    E entry = (E) table[i]; // retired or never made: the credit leaves fewer than depth live
    boolean done = false;
    try {
      if (entry == null) {
        entry = entryFactory.get();
        table[i] = entry;
      }
      copy.accept(wr, entry);
      load(entry);
      at.tail++;
      done = true;
    } finally {
      if (!done) {
        returnCredit();
      }
    }
  }

  /**
   * Keeps the entry the ring hands over as the entry of the next sequence number, and gives the
   * ring the one its table slot held: retired already, since no more than depth (at most the
   * table's size) work requests are outstanding.
   */
  @SuppressWarnings("unchecked")
  private E take(E taken) {
    growIfFull();
    int i = (int) at.tail & mask;
    E retired = (E) table[i];
    table[i] = taken;
    load(taken);
    at.tail++;
    return retired;
  }

  /**
   * Doubles the table when every slot holds an outstanding work request (the credits allow more,
   * up to the depth): the outstanding entries move to their slots in the larger table. There
   * are no retired entries to keep, since the table was full of outstanding ones.
   */
  private void growIfFull() {
    if (at.tail - at.head < table.length || table.length == maxTable) {
      return;
    }
    Object[] bigger = new Object[table.length * 2];
    int biggerMask = bigger.length - 1;
    for (long seq = at.head; seq < at.tail; seq++) {
      bigger[(int) seq & biggerMask] = table[(int) seq & mask];
    }
    table = bigger;
    mask = biggerMask;
  }

  /** The table entry of sequence number {@code seq}, taken from the ring and not retired. */
  @SuppressWarnings("unchecked")
  public final E entry(long seq) {
    return (E) table[(int) seq & mask];
  }

  /** Whether a work request waits to be handed to the endpoint. */
  public final boolean hasUnhanded() {
    return at.handed < at.tail;
  }

  /** The next work request to hand over; only when {@link #hasUnhanded()}. */
  public final E nextUnhanded() {
    return entry(at.handed);
  }

  /** The sequence number {@link #nextUnhanded()} gets. */
  public final long nextUnhandedSequence() {
    return at.handed;
  }

  /** Marks the next work request handed to the endpoint. */
  public final void markHanded() {
    at.handed++;
  }

  /** Whether {@code seq} names a work request handed to the endpoint and not retired. */
  final boolean isHanded(long seq) {
    return seq >= at.head && seq < at.handed;
  }

  /** The oldest work request handed over and not retired, or -1. */
  final long oldestHanded() {
    return at.head < at.handed ? at.head : -1;
  }

  /** The oldest work request not retired, or null; for flushing. */
  public final E oldest() {
    return at.head < at.tail ? entry(at.head) : null;
  }

  /** One past the newest work request taken from the ring. */
  public final long endSequence() {
    return at.tail;
  }

  /** The sequence number of {@link #oldest()}. */
  public final long oldestSequence() {
    return at.head;
  }

  /**
   * Visits every entry not holding an outstanding work request: the table's retired entries
   * and those the ring keeps for its next posts. Only with nothing outstanding and nobody
   * posting (a queue pair being reset); not for the data path. Event loop only.
   *
   * @throws IllegalStateException when work requests are outstanding
   */
  final void forEachIdleEntry(Consumer<? super E> visitor) {
    if (at.head != at.tail || outstanding() != 0) {
      throw new IllegalStateException(kind + " queue has " + outstanding()
          + " work requests outstanding");
    }
    for (Object e : table) {
      if (e != null) {
        @SuppressWarnings("unchecked")
        E entry = (E) e;
        visitor.accept(entry);
      }
    }
    ring.forEachIdleItem(visitor);
  }

  /**
   * Retires the oldest work request: frees its table slot and its credit. The caller has
   * completed it (or decided it produces no completion).
   */
  public final void retireOldest() {
    clear(entry(at.head));
    at.head++;
    if (at.handed < at.head) {
      at.handed = at.head;
    }
    retiredTotal.setRelease(++at.retired); // only this thread writes it
  }
}

/** Padding before {@link Positions}' fields. */
abstract class PositionsLeftPad {
  long p00;
  long p01;
  long p02;
  long p03;
  long p04;
  long p05;
  long p06;
  long p07;
}

/**
 * A work queue's table positions and retired count, event loop only, padded so that the loop's
 * writes per message do not share a cache line with what posters read per post.
 */
final class Positions extends PositionsLeftPad {
  long head;
  long handed;
  long tail;
  long retired;
  long p10;
  long p11;
  long p12;
  long p13;
  long p14;
  long p15;
  long p16;
  long p17;
}
