package io.iwarp4j.verbs.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A bounded ring of reusable slot objects that hands work from any number of producer threads to
 * one consumer, an event loop, with no lock and, once each slot has been used, no allocation.
 * A slot's object is made the first time the slot is used (so an idle ring costs two arrays of
 * {@code capacity} entries, one reference and one {@code int} sequence per slot, about 8 octets
 * a slot, not {@code capacity} objects) and reused from then on.
 *
 * <h2>Use</h2>
 * A producer {@link #claim()}s a ticket (or learns at once that the ring is full), fills
 * {@link #slot(long)} and {@link #publish(long)}es it; {@link #offer(Object, BiConsumer)} does
 * all three. Every claimed ticket must be published or {@link #abandon(long) abandoned}
 * promptly: the consumer visits slots in ticket order and waits at the first unpublished one.
 * The consumer calls {@link #drain(Consumer)}, which visits published slots in ticket order
 * (so each producer's items in the order it posted them) and frees each after visiting it; or
 * {@link #drainTaking(Taker)}, which hands each slot's object over to the consumer and puts the
 * object the consumer gives back into the slot, so a consumer that keeps items for a while
 * (a work queue keeps each work request until it is retired) reads them where the producer
 * wrote them, with no copy.
 *
 * <h2>Wake-ups</h2>
 * The ring keeps a drain state, IDLE or SCHEDULED. A publish that finds it IDLE switches it to
 * SCHEDULED and runs the {@code scheduleDrain} hook (typically
 * {@code eventLoop.execute(drainTask)}); while SCHEDULED, publishes run no hook. {@code drain}
 * keeps the state SCHEDULED while it works, sets IDLE when it finds nothing more, then looks
 * once more and takes SCHEDULED back if something arrived meanwhile. So a burst of posts costs
 * one wake-up, and a post is never left without a drain coming.
 *
 * <h2>Memory ordering</h2>
 * <ul>
 *   <li>Claiming: the producer index is advanced by CAS, so each ticket has one owner. Ticket
 *       {@code t} may be claimed only when {@code t < consumerIndex + capacity}; the consumer
 *       index is written with release after the consumer is done with a slot, and read with
 *       acquire (directly, or through the cached limit, itself written with release and read
 *       with acquire), so the consumer's last reads of a slot happen-before the next
 *       producer's writes to it.</li>
 *   <li>Publishing: the slot's sequence is set to {@code 2(t + 1)} with a volatile write after
 *       the producer filled the slot; the consumer reads it with acquire before visiting, so
 *       the filling happens-before the visit.</li>
 *   <li>Wake-up: the producer does volatile write (publish) then volatile read (drain state);
 *       the consumer does volatile write (state = IDLE) then volatile read (the next slot's
 *       sequence). Volatile accesses are totally ordered, so at least one side sees the
 *       other's write: either the producer sees IDLE and schedules a drain, or the consumer
 *       sees the published slot and keeps draining. No post is stranded.</li>
 * </ul>
 *
 * @param <T> the slot type
 */
public final class MpscSlotRing<T> {

  /**
   * Takes a published slot's object over and gives back the object the slot keeps for its next
   * producer: the same one (the taker copied what it needs), another one the taker no longer
   * uses, or null (the slot makes a fresh one with the slot factory when it is next used).
   *
   * @param <T> the slot type
   */
  @FunctionalInterface
  public interface Taker<T> {
    /**
     * Takes {@code item} over.
     *
     * @param item the published slot's object
     * @return the object the slot keeps from now on, or null for a fresh one
     */
    T take(T item);
  }

  /** The largest capacity accepted. */
  public static final int MAX_CAPACITY = 1 << 24;

  private static final long IDLE = 0;
  private static final long SCHEDULED = 1;

  /** Element access to {@link #seqs}. */
  private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(int[].class);

  /**
   * Per slot, the sequence: {@link #published published(t)} once ticket {@code t} is published,
   * that plus 1 once it is abandoned. It holds the low 32 bits of {@code 2(t + 1)}: values of
   * one slot's consecutive laps differ by {@code 2 × slots} (at most 2^25), so they never
   * collide, and the flat array costs 4 octets a slot where a slot object cost 32.
   */
  private final int[] seqs;
  /**
   * Per slot, its object: made by whoever owns the slot first (the producer that claimed it, or
   * the consumer visiting it); the owner hand-off (sequence, consumerIndex) publishes it to the
   * next owner.
   */
  private final Object[] items;
  private final Supplier<? extends T> slotFactory;
  private final int mask;
  private final int capacity;
  private final Runnable scheduleDrain;
  private final PaddedLong producerIndex = new PaddedLong(0);
  // Producers' cached bound, refreshed from consumerIndex only when reached.
  private final PaddedLong producerLimit;
  private final PaddedLong consumerIndex = new PaddedLong(0);
  private final PaddedLong drainState = new PaddedLong(IDLE);

  /**
   * Creates a ring.
   *
   * @param capacity the most claimed-but-not-drained slots, 1 to {@value #MAX_CAPACITY}
   * @param slotFactory makes the slot objects: once here (to check it), then at most once per
   *     slot, the first time that slot is used, on the thread using it
   * @param scheduleDrain run by a producer (or by {@code drain} itself after a partial batch)
   *     when the consumer needs waking; it should arrange for {@link #drain} to run on the
   *     consumer thread soon, and must not run the drain itself on the producer's thread
   * @throws IllegalArgumentException if {@code capacity} is out of range
   * @throws NullPointerException if an argument is null or the factory returns null
   */
  public MpscSlotRing(int capacity, Supplier<? extends T> slotFactory, Runnable scheduleDrain) {
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException("ring capacity " + capacity + " is outside 1.."
          + MAX_CAPACITY);
    }
    this.slotFactory = Objects.requireNonNull(slotFactory, "slotFactory");
    this.scheduleDrain = Objects.requireNonNull(scheduleDrain, "scheduleDrain");
    this.capacity = capacity;
    int size = Integer.highestOneBit(capacity);
    if (size < capacity) {
      size <<= 1;
    }
    this.mask = size - 1;
    this.seqs = new int[size];
    this.items = new Object[size];
    items[0] = Objects.requireNonNull(slotFactory.get(), "slotFactory returned null");
    this.producerLimit = new PaddedLong(capacity);
  }

  /**
   * The most slots that can be claimed and not yet drained.
   *
   * @return the capacity given at construction
   */
  public int capacity() {
    return capacity;
  }

  /**
   * Claims the next slot. Safe from any number of threads.
   *
   * @return a ticket, 0 or more, to pass to {@link #slot(long)} and then {@link #publish(long)}
   *     or {@link #abandon(long)}; -1 when the ring is full
   */
  public long claim() {
    for (;;) {
      long ticket = producerIndex.getVolatile();
      if (ticket >= producerLimit.getAcquire()) {
        long limit = consumerIndex.getAcquire() + capacity;
        if (ticket >= limit) {
          return -1;
        }
        // Racy but safe: a stale, lower limit written over a newer one only costs a refresh.
        producerLimit.setRelease(limit);
      }
      if (producerIndex.compareAndSet(ticket, ticket + 1)) {
        return ticket;
      }
    }
  }

  /**
   * The slot object of a claimed ticket, for the producer to fill before publishing.
   *
   * @param ticket a ticket from {@link #claim()}
   * @return the slot's object
   */
  public T slot(long ticket) {
    return item((int) ticket & mask);
  }

  /** The object of slot {@code i}, made now if the slot never had one. */
  @SuppressWarnings("unchecked")
  private T item(int i) {
    Object o = items[i];
    if (o == null) {
      o = Objects.requireNonNull(slotFactory.get(), "slotFactory returned null");
      items[i] = o;
    }
    return (T) o;
  }

  /** The sequence of a published ticket {@code t}: the low 32 bits of {@code 2(t + 1)}. */
  private static int published(long ticket) {
    return (int) ((ticket + 1) << 1);
  }

  /**
   * Makes a claimed slot visible to the consumer and wakes the consumer if no drain is
   * scheduled or running.
   *
   * @param ticket a ticket from {@link #claim()}, not yet published or abandoned
   * @throws IllegalArgumentException if {@code ticket} is negative (a failed claim)
   * @throws IllegalStateException if the ticket was already published
   */
  public void publish(long ticket) {
    int i = checkedSlot(ticket);
    SEQ.setVolatile(seqs, i, published(ticket));
    wakeIfIdle();
  }

  /**
   * Gives up a claimed slot: the consumer frees it without visiting it. For a producer that
   * failed while filling its slot.
   *
   * @param ticket a ticket from {@link #claim()}, not yet published or abandoned
   * @throws IllegalArgumentException if {@code ticket} is negative (a failed claim)
   * @throws IllegalStateException if the ticket was already published
   */
  public void abandon(long ticket) {
    int i = checkedSlot(ticket);
    SEQ.setVolatile(seqs, i, published(ticket) | 1);
    wakeIfIdle();
  }

  /**
   * Claims a slot, has {@code writer} fill it from {@code source} and publishes it. If the
   * writer throws, the slot is abandoned and the exception rethrown.
   *
   * @param source what to copy into the slot
   * @param writer copies {@code source} into the slot object; a non-capturing lambda or a
   *     constant keeps this allocation-free
   * @param <S> the source type
   * @return true when posted, false when the ring was full (nothing claimed)
   */
  public <S> boolean offer(S source, BiConsumer<? super S, ? super T> writer) {
    long ticket = claim();
    if (ticket < 0) {
      return false;
    }
    boolean written = false;
    try {
      writer.accept(source, slot(ticket));
      written = true;
    } finally {
      if (written) {
        publish(ticket);
      } else {
        abandon(ticket);
      }
    }
    return true;
  }

  /**
   * Visits every published slot, in ticket order, and frees it. Call from the one consumer
   * thread only.
   *
   * @param consumer called with each slot object; it must copy out what it keeps, since the
   *     slot is reused once it returns
   * @return the number of slots visited
   */
  public int drain(Consumer<? super T> consumer) {
    return drain(consumer, Integer.MAX_VALUE);
  }

  /**
   * Like {@link #drain(Consumer)}, but each published slot's object is handed over to
   * {@code taker}, which gives back the object the slot keeps (see {@link Taker}). The slot is
   * freed after that: its next producer writes into the object the taker gave back. Call from
   * the one consumer thread only.
   *
   * @param taker takes each slot's object over; a constant keeps this allocation-free
   * @return the number of slots visited
   */
  public int drainTaking(Taker<T> taker) {
    Objects.requireNonNull(taker, "taker");
    return drain(null, taker, Integer.MAX_VALUE);
  }

  /**
   * Visits up to {@code limit} published slots, in ticket order, and frees them. If more are
   * waiting after {@code limit}, the drain stays scheduled and {@code scheduleDrain} is run
   * again, so a long batch yields the consumer thread without stranding the rest. If the
   * consumer throws, the slot it was given is still freed, a drain is rescheduled for the rest,
   * and the exception propagates. Call from the one consumer thread only.
   *
   * @param consumer called with each slot object; it must copy out what it keeps
   * @param limit the most slots to visit, at least 1
   * @return the number of slots visited
   * @throws IllegalArgumentException if {@code limit} is less than 1
   */
  public int drain(Consumer<? super T> consumer, int limit) {
    Objects.requireNonNull(consumer, "consumer");
    return drain(consumer, null, limit);
  }

  private int drain(Consumer<? super T> consumer, Taker<T> taker, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("drain limit " + limit + " is less than 1");
    }
    if (drainState.getVolatile() == IDLE && !nextIsPublished()) {
      // Idle and empty: nothing to do and no state to change (a producer publishing now sees
      // IDLE and schedules a drain). Lets the loop look at an empty ring before every read
      // batch for two volatile reads. A scheduled drain always runs the full path below, which
      // is what sets the state back to IDLE.
      return 0;
    }
    beginDrain();
    int visited = 0;
    boolean completed = false;
    try {
      for (;;) {
        visited += visitPublished(consumer, taker, limit - visited);
        if (visited >= limit && nextIsPublished()) {
          completed = true;
          scheduleDrain.run();
          return visited;
        }
        if (!goIdleUnlessMore()) {
          completed = true;
          return visited;
        }
      }
    } finally {
      if (!completed) {
        drainState.setVolatile(SCHEDULED);
        scheduleDrain.run();
      }
    }
  }

  /**
   * Visits the object of every slot no producer has claimed (the objects a {@link Taker} gave
   * back, and those of drained slots), for the consumer to drop what they reference; slots whose
   * object was never made are skipped, none is made. Not for the data path. Call from the one
   * consumer thread only, while no producer posts: a producer claiming a slot meanwhile may or
   * may not have its object visited.
   *
   * @param visitor called with each idle slot's object
   */
  public void forEachIdleItem(Consumer<? super T> visitor) {
    Objects.requireNonNull(visitor, "visitor");
    long from = producerIndex.getVolatile();
    long end = consumerIndex.getVolatile() + items.length;
    for (long t = from; t < end; t++) {
      @SuppressWarnings("unchecked")
      T item = (T) items[(int) t & mask];
      if (item != null) {
        visitor.accept(item);
      }
    }
  }

  /**
   * The number of claimed slots not yet drained, a snapshot that may be stale at once.
   *
   * @return 0 to {@link #capacity()}
   */
  public int size() {
    long consumed = consumerIndex.getVolatile();
    long claimed = producerIndex.getVolatile();
    return (int) Math.max(0, Math.min(capacity, claimed - consumed));
  }

  // The steps of drain(), package-private so that tests can interleave a producer between them.

  /** Marks a drain as running, so producers schedule no wake-up meanwhile. */
  void beginDrain() {
    drainState.setVolatile(SCHEDULED);
  }

  /** Visits and frees up to {@code max} published slots in ticket order. */
  int visitPublished(Consumer<? super T> consumer, int max) {
    return visitPublished(consumer, null, max);
  }

  /** As above, with either a consumer (the slot keeps its object) or a taker. */
  private int visitPublished(Consumer<? super T> consumer, Taker<T> taker, int max) {
    long next = consumerIndex.getOpaque(); // only this thread writes it
    int visited = 0;
    while (visited < max) {
      int i = (int) next & mask;
      int seq = (int) SEQ.getAcquire(seqs, i);
      if ((seq & ~1) != published(next)) {
        break;
      }
      try {
        if ((seq & 1) == 0) { // else abandoned: freed unvisited
          visited++;
          if (taker == null) {
            consumer.accept(item(i));
          } else {
            T item = item(i);
            items[i] = null; // if the taker throws, the slot makes a fresh object
            items[i] = taker.take(item);
          }
        }
      } finally {
        next++;
        consumerIndex.setRelease(next);
      }
    }
    return visited;
  }

  /**
   * Ends a drain that found nothing more: sets IDLE, then looks once more. A producer that
   * published before the IDLE write may have seen SCHEDULED and scheduled nothing; if such a
   * slot is there, the drain takes SCHEDULED back and goes on (unless a producer that saw IDLE
   * has scheduled a new drain already).
   *
   * @return true when the caller must keep draining
   */
  boolean goIdleUnlessMore() {
    drainState.setVolatile(IDLE);
    return nextIsPublished() && drainState.compareAndSet(IDLE, SCHEDULED);
  }

  private boolean nextIsPublished() {
    long next = consumerIndex.getOpaque();
    return ((int) SEQ.getVolatile(seqs, (int) next & mask) & ~1) == published(next);
  }

  private void wakeIfIdle() {
    if (drainState.getVolatile() == IDLE && drainState.compareAndSet(IDLE, SCHEDULED)) {
      scheduleDrain.run();
    }
  }

  private int checkedSlot(long ticket) {
    if (ticket < 0) {
      throw new IllegalArgumentException("ticket " + ticket
          + " was never claimed (claim() returns -1 when the ring is full)");
    }
    int i = (int) ticket & mask;
    if (((int) SEQ.getOpaque(seqs, i) & ~1) == published(ticket)) {
      throw new IllegalStateException("ticket " + ticket + " was already published");
    }
    return i;
  }
}
