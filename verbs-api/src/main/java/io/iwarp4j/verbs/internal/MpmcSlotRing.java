package io.iwarp4j.verbs.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A bounded multi-producer, multi-consumer ring of preallocated, reusable slot objects:
 * {@link #offer} copies a value into a free slot, {@link #poll} copies the oldest value out.
 * Neither locks nor allocates.
 *
 * <p>The algorithm follows D. Vyukov's bounded MPMC queue. Every slot carries a sequence
 * number that says whose turn it is. For position {@code p} (slot {@code p mod capacity}):
 * <ul>
 *   <li>{@code seq == 2p}: free for the producer that claims position {@code p};</li>
 *   <li>{@code seq == 2p + 1}: holds the value of position {@code p}, ready for a consumer;</li>
 *   <li>{@code seq == 2(p + capacity)}: consumed, free for the producer of the next lap.</li>
 * </ul>
 * (Doubling keeps "full for {@code p}" and "free for {@code p + 1}" apart when the capacity is
 * 1.) A producer claims position {@code p} by a CAS on the enqueue position once it sees the
 * slot free, copies its value in and then publishes {@code seq = 2p + 1}; a consumer claims by a
 * CAS on the dequeue position once it sees {@code seq == 2p + 1}, copies the value out and
 * releases {@code seq = 2(p + capacity)}.
 *
 * <p>Capacity is exact and counted by claims: the ring is full when {@code capacity} positions
 * have been offered and not yet taken by a consumer's CAS. A producer that finds its slot still
 * occupied although a consumer has already taken that value (the consumer is between its CAS
 * and its release, a few field copies) waits for the release instead of reporting a false
 * overflow: with several consumers, values are released out of order and a credit returned
 * for a later value must not turn into an overflow because of an earlier one still being
 * copied.
 *
 * <p>Memory ordering: a slot's sequence is read with acquire and written with release, so the
 * producer's copy-in happens-before the consumer's copy-out, and the consumer's copy-out
 * happens-before the next producer's copy-in of that slot. The CASes only decide who owns a
 * position. {@link #offer} publishes with a volatile write, so a producer that then does a
 * volatile read, and a waiter that does a volatile write before {@link #mayHaveReady()}, cannot
 * both miss each other: callers build blocking waits on that (see {@code CompletionQueue}).
 * {@link #offerReleasing} publishes with a release write only, which costs no store-load fence
 * per value; a producer that adds a batch that way must call {@link #publishFence()} once after
 * it and before it reads what waiters wrote.
 *
 * <p>Slots are made on first use, in chunks of {@value #CHUNK} (a producer that first reaches a
 * chunk makes it and publishes it with a CAS; a racing producer's copy is dropped): a ring sized
 * for many queue pairs' full depth costs only its chunk table until completions fill it, so an
 * idle completion queue or shared receive queue holds no slot objects. A chunk that does not exist
 * yet has never held a value, so to a consumer it reads as empty. Once made, a chunk is kept.
 *
 * <p>Progress: a producer or consumer stalled between its CAS and its sequence write holds up
 * that one slot: consumers see the ring as empty at an unpublished slot even when later values
 * are stored, and a producer lapping a slot still being copied out waits. No value is lost or
 * seen twice.
 *
 * @param <T> the slot type
 */
public final class MpmcSlotRing<T> {

  /** The largest capacity accepted. */
  public static final int MAX_CAPACITY = 1 << 24;

  /** Slots per chunk, a power of two. */
  static final int CHUNK = 64;
  private static final int CHUNK_SHIFT = Integer.numberOfTrailingZeros(CHUNK);

  private static final VarHandle SEQ;
  private static final VarHandle CHUNKS = MethodHandles.arrayElementVarHandle(Slot[][].class);

  static {
    try {
      SEQ = MethodHandles.lookup().findVarHandle(Slot.class, "seq", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** One preallocated slot; {@code seq} is accessed only through {@link #SEQ}. */
  private static final class Slot<T> {
    final T item;
    long seq;

    Slot(T item, long seq) {
      this.item = item;
      this.seq = seq;
    }
  }

  /** The slots by chunk; an element is null until a producer first needs that chunk. */
  private final Slot<T>[][] chunks;
  private final Supplier<? extends T> slotFactory;
  private final int capacity;
  /** {@code capacity - 1} when the capacity is a power of two, else -1 (see {@link #index}). */
  private final int mask;
  private final BiConsumer<? super T, ? super T> copier;
  private final PaddedLong enqueuePos = new PaddedLong(0);
  private final PaddedLong dequeuePos = new PaddedLong(0);

  /**
   * Creates a ring of {@code capacity} slots, each made by {@code slotFactory}.
   *
   * @param capacity the number of values the ring holds, 1 to {@value #MAX_CAPACITY}; need
   *     not be a power of two
   * @param slotFactory makes the slot objects, on first use of each chunk of slots (by the
   *     producer that reaches it), at most {@code capacity} times in all and never once every
   *     slot has been used
   * @param copier copies its first argument into its second: used to copy a value into a slot
   *     and a slot into a destination; must not allocate if the ring is to stay allocation-free
   * @throws IllegalArgumentException if {@code capacity} is out of range
   * @throws NullPointerException if an argument is null or the factory returns null
   */
  public MpmcSlotRing(int capacity, Supplier<? extends T> slotFactory,
      BiConsumer<? super T, ? super T> copier) {
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException("ring capacity " + capacity + " is outside 1.."
          + MAX_CAPACITY);
    }
    this.slotFactory = Objects.requireNonNull(slotFactory, "slotFactory");
    this.copier = Objects.requireNonNull(copier, "copier");
    this.capacity = capacity;
    this.mask = Integer.bitCount(capacity) == 1 ? capacity - 1 : -1;
    @SuppressWarnings("unchecked")
    Slot<T>[][] table = (Slot<T>[][]) new Slot<?>[(capacity + CHUNK - 1) >>> CHUNK_SHIFT][];
    this.chunks = table;
  }

  /** The slot at {@code index}, or null when its chunk has not been made (it never held a value). */
  private Slot<T> slotIfMade(int index) {
    @SuppressWarnings("unchecked")
    Slot<T>[] chunk = (Slot<T>[]) CHUNKS.getAcquire(chunks, index >>> CHUNK_SHIFT);
    return chunk == null ? null : chunk[index & (CHUNK - 1)];
  }

  /** The slot at {@code index} of a chunk that exists (a producer claimed a position in it). */
  private Slot<T> slot(int index) {
    @SuppressWarnings("unchecked")
    Slot<T>[] chunk = (Slot<T>[]) CHUNKS.getAcquire(chunks, index >>> CHUNK_SHIFT);
    return chunk[index & (CHUNK - 1)];
  }

  /** The slot at {@code index}, its chunk made first if no producer has made it yet. */
  private Slot<T> slotMaking(int index) {
    Slot<T> s = slotIfMade(index);
    return s != null ? s : makeChunk(index >>> CHUNK_SHIFT)[index & (CHUNK - 1)];
  }

  /**
   * Makes chunk {@code c} and publishes it with a CAS. Its slots are free for the first lap
   * ({@code seq == 2 × index}): a chunk is only missing before any position in it was claimed.
   */
  private Slot<T>[] makeChunk(int c) {
    int base = c << CHUNK_SHIFT;
    int n = Math.min(CHUNK, capacity - base);
    @SuppressWarnings("unchecked")
    Slot<T>[] made = (Slot<T>[]) new Slot<?>[n];
    for (int i = 0; i < n; i++) {
      made[i] = new Slot<>(Objects.requireNonNull(slotFactory.get(), "slotFactory returned null"),
          2L * (base + i));
    }
    @SuppressWarnings("unchecked")
    Slot<T>[] witness = (Slot<T>[]) CHUNKS.compareAndExchangeRelease(chunks, c, null, made);
    return witness == null ? made : witness;
  }

  /**
   * The number of slot objects made so far (chunks made × their size): a diagnostic for tests
   * and memory accounting.
   *
   * @return 0 to {@link #capacity()}
   */
  public int slotsMade() {
    int n = 0;
    for (int c = 0; c < chunks.length; c++) {
      Object chunk = CHUNKS.getAcquire(chunks, c);
      if (chunk != null) {
        n += ((Slot<?>[]) chunk).length;
      }
    }
    return n;
  }

  /**
   * The number of values the ring holds when full.
   *
   * @return the capacity
   */
  public int capacity() {
    return capacity;
  }

  /**
   * Copies {@code value} into a free slot and publishes it with a volatile write. Safe from
   * any number of threads.
   *
   * @param value the value to copy; the ring keeps no reference to it
   * @return true when stored, false when the ring was full
   */
  public boolean offer(T value) {
    long pos = claimProducer();
    if (pos < 0) {
      return false;
    }
    Slot<T> slot = slot(index(pos));
    copier.accept(value, slot.item);
    SEQ.setVolatile(slot, 2 * pos + 1);
    return true;
  }

  /**
   * As {@link #offer}, but publishes with a release write: the value is ready for consumers,
   * but the store-load fence a waiter protocol needs is left to one {@link #publishFence()}
   * after a batch of these. Safe from any number of threads.
   *
   * @param value the value to copy; the ring keeps no reference to it
   * @return true when stored, false when the ring was full
   */
  public boolean offerReleasing(T value) {
    long pos = claimProducer();
    if (pos < 0) {
      return false;
    }
    Slot<T> slot = slot(index(pos));
    copier.accept(value, slot.item);
    SEQ.setRelease(slot, 2 * pos + 1);
    return true;
  }

  /**
   * Claims the next free position for a value written in place, instead of copied from a
   * staging object as {@link #offer} does: the caller writes the value into
   * {@link #claimed(long) claimed(pos)} and then publishes it with {@link #publishReleasing}.
   * Until then consumers stop at this slot (values published after it wait too), so nothing that
   * can throw or block may run in between. Safe from any number of threads.
   *
   * @return the claimed position, or -1 when the ring was full
   */
  public long claim() {
    return claimProducer();
  }

  /**
   * The slot object of a position {@link #claim} returned and not yet published: the value is
   * written into it.
   *
   * @param pos the claimed position
   * @return the slot object, owned by the caller until {@link #publishReleasing}
   */
  public T claimed(long pos) {
    return slot(index(pos)).item;
  }

  /**
   * Publishes a claimed position with a release write, as {@link #offerReleasing} does: a
   * producer that adds a batch this way calls {@link #publishFence()} once after it.
   *
   * @param pos the claimed position, written and not yet published
   */
  public void publishReleasing(long pos) {
    SEQ.setRelease(slot(index(pos)), 2 * pos + 1);
  }

  /**
   * A full fence: after values added by {@link #offerReleasing}, it orders their publication
   * before the caller's next reads (of the waiters a consumer registered before it called
   * {@link #mayHaveReady()}), as {@link #offer}'s volatile write does for one value.
   */
  public static void publishFence() {
    VarHandle.fullFence();
  }

  /** Claims the next enqueue position once its slot is free; -1 when the ring is full. */
  private long claimProducer() {
    long pos = enqueuePos.getOpaque();
    int waits = 0;
    for (;;) {
      long dif = (long) SEQ.getAcquire(slotMaking(index(pos))) - 2 * pos;
      if (dif == 0) {
        long witness = enqueuePos.compareAndExchange(pos, pos + 1);
        if (witness == pos) {
          return pos;
        }
        pos = witness;
      } else if (dif < 0) {
        // The slot still holds position pos - capacity. Full, unless a consumer has taken it
        // and is copying it out right now.
        if (dequeuePos.getVolatile() <= pos - capacity) {
          return -1;
        }
        backOff(waits++);
        pos = enqueuePos.getOpaque();
      } else {
        pos = enqueuePos.getOpaque(); // another producer took this position
      }
    }
  }

  /**
   * Copies the oldest value into {@code destination} and frees its slot. Safe from any number
   * of threads.
   *
   * @param destination where the value is copied
   * @return true when a value was taken, false when none was ready
   */
  public boolean poll(T destination) {
    long pos = claimOne();
    if (pos < 0) {
      return false;
    }
    Slot<T> slot = slot(index(pos));
    copier.accept(slot.item, destination);
    SEQ.setRelease(slot, 2 * (pos + capacity));
    return true;
  }

  /**
   * Copies up to {@code max} of the oldest values into {@code out[0]} to {@code out[n - 1]}
   * and frees their slots, claiming them all with one CAS. The run claimed is the published
   * values from the dequeue position on, up to the first not yet published: no producer can
   * reuse their slots before this consumer releases them, and no other consumer can claim them
   * without moving the dequeue position, which makes this CAS fail and the run be looked at
   * again. Safe from any number of threads.
   *
   * @param out where the values are copied; the first {@code max} elements must not be null
   * @param max the most values to take, at most {@code out.length}
   * @return the number taken, 0 when none was ready
   */
  public int poll(T[] out, int max) {
    long pos = dequeuePos.getOpaque();
    int n;
    for (;;) {
      n = 0;
      int i = index(pos);
      boolean stale = false;
      while (n < max) {
        Slot<T> slot = slotIfMade(i);
        if (slot == null) {
          break; // never made, so never published
        }
        long dif = (long) SEQ.getAcquire(slot) - (2 * (pos + n) + 1);
        if (dif != 0) {
          // Below: not published yet. Above: another consumer took it, so pos is stale.
          stale = dif > 0 && n == 0;
          break;
        }
        n++;
        i = i + 1 == capacity ? 0 : i + 1;
      }
      if (stale) {
        pos = dequeuePos.getOpaque();
        continue;
      }
      if (n == 0) {
        return 0;
      }
      long witness = dequeuePos.compareAndExchange(pos, pos + n);
      if (witness == pos) {
        break;
      }
      pos = witness;
    }
    int i = index(pos);
    for (int k = 0; k < n; k++) {
      Slot<T> slot = slot(i);
      copier.accept(slot.item, out[k]);
      SEQ.setRelease(slot, 2 * (pos + k + capacity));
      i = i + 1 == capacity ? 0 : i + 1;
    }
    return n;
  }

  /**
   * Hands the oldest value to {@code consumer} in place, then frees its slot: {@link #poll} for
   * a consumer that copies the value on itself (into a queue of its own), saving a copy. The
   * slot stays claimed while {@code consumer} runs, so it must be short and must not throw (a
   * value it fails on is gone); producers that lap to that slot wait for it. Safe from any number
   * of threads.
   *
   * @param consumer reads the value; must not keep a reference to it
   * @param arg passed to {@code consumer}, so that a constant consumer allocates nothing
   * @param <A> the argument's type
   * @return true when a value was taken, false when none was ready
   */
  public <A> boolean poll(BiConsumer<? super T, ? super A> consumer, A arg) {
    long pos = claimOne();
    if (pos < 0) {
      return false;
    }
    Slot<T> slot = slot(index(pos));
    try {
      consumer.accept(slot.item, arg);
    } finally {
      SEQ.setRelease(slot, 2 * (pos + capacity));
    }
    return true;
  }

  /**
   * Claims the oldest published value's position with one CAS; the caller reads the slot and
   * then frees it ({@code SEQ.setRelease(slot, 2 * (pos + capacity))}).
   *
   * @return the claimed position, or -1 when none was ready
   */
  private long claimOne() {
    long pos = dequeuePos.getOpaque();
    for (;;) {
      Slot<T> slot = slotIfMade(index(pos));
      if (slot == null) {
        return -1; // never made, so never published: empty
      }
      long dif = (long) SEQ.getAcquire(slot) - (2 * pos + 1);
      if (dif == 0) {
        long witness = dequeuePos.compareAndExchange(pos, pos + 1);
        if (witness == pos) {
          return pos;
        }
        pos = witness;
      } else if (dif < 0) {
        return -1; // not yet published for this lap: empty (or its producer is mid-copy)
      } else {
        pos = dequeuePos.getOpaque(); // another consumer took this position
      }
    }
  }

  /**
   * Whether a value may be ready to poll, read with volatile semantics. False means the slot
   * at the dequeue position had not been published when this read it; true means it had, or
   * that the dequeue position moved on, in which case polling finds out.
   *
   * @return false when the ring was seen empty
   */
  public boolean mayHaveReady() {
    long pos = dequeuePos.getVolatile();
    Slot<T> slot = slotIfMade(index(pos));
    return slot != null && (long) SEQ.getVolatile(slot) != 2 * pos;
  }

  /**
   * The number of values stored or being stored, a snapshot that may be stale at once.
   *
   * @return 0 to {@link #capacity()}
   */
  public int size() {
    long head = dequeuePos.getVolatile();
    long tail = enqueuePos.getVolatile();
    return (int) Math.max(0, Math.min(capacity, tail - head));
  }

  /**
   * Visits a copy of each value stored and not yet taken, oldest first: a snapshot for
   * diagnostics, never for the data path. Each value is copied into {@code scratch} and visited
   * only if its slot still held that same value after the copy (its sequence did not move), so
   * a value being taken or overwritten meanwhile is skipped rather than seen torn; values
   * offered or taken while this runs may or may not be visited.
   *
   * @param scratch where each value is copied before it is visited
   * @param visitor called with {@code scratch}
   * @return how many values were visited
   */
  public int forEachStored(T scratch, java.util.function.Consumer<? super T> visitor) {
    long head = dequeuePos.getVolatile();
    long tail = enqueuePos.getVolatile();
    int visited = 0;
    for (long pos = head; pos < tail && pos < head + capacity; pos++) {
      Slot<T> slot = slotIfMade(index(pos));
      if (slot == null) {
        continue; // never made, so never published
      }
      long seq = (long) SEQ.getAcquire(slot);
      if (seq != 2 * pos + 1) {
        continue; // taken already, or not yet published
      }
      try {
        copier.accept(slot.item, scratch);
      } catch (RuntimeException torn) {
        continue; // a producer of a later lap wrote it meanwhile
      }
      VarHandle.acquireFence();
      if ((long) SEQ.getVolatile(slot) == seq) {
        visitor.accept(scratch);
        visited++;
      }
    }
    return visited;
  }

  private static void backOff(int waits) {
    if (waits < 100) {
      Thread.onSpinWait();
    } else {
      Thread.yield(); // the consumer we wait for may have been descheduled
    }
  }

  private int index(long pos) {
    // A long division costs tens of cycles on every offer and poll; a power of two needs none.
    return mask >= 0 ? (int) pos & mask : (int) (pos % capacity);
  }
}
