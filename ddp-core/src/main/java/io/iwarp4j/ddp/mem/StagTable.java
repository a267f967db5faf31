package io.iwarp4j.ddp.mem;

import io.iwarp4j.mpa.Ulpdu;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.random.RandomGenerator;

/**
 * The STags of one device: maps each STag to its {@link MemoryRegion} and validates tagged
 * accesses against it.
 *
 * <p><b>STag format.</b> {@code STag = index << 8 | key}: a 24-bit index and an 8-bit key,
 * compared in full. The low {@code slotBits} bits of the index name the table slot (an array
 * element, so lookup is one array read); {@code slotBits} is the fewest bits that hold
 * {@code capacity}, and the index's other {@code 24 - slotBits} bits are random, so a table of
 * the default 65,536 slots hands out 15 unpredictable bits per STag (7 index bits and the key).
 * Slot 0 is never used, so STags whose slot bits are all zero (among them every
 * {@code 0x000000xx}, the STag 0 that RFC 5040 and verbs reserve) are never valid.
 *
 * <p><b>Unpredictable STags</b> (RFC 5040 §8.1.1: STags should be hard to guess). A
 * registration takes a slot drawn uniformly at random from all free slots (swap-remove from an
 * array of free slots: O(1), never a collision), and the slot's random index bits and key are
 * drawn afresh, uniformly from every value except the slot's previous one, so the STag that
 * named the slot's last region is never handed out again at once. Knowing some live STags
 * therefore tells nothing about the others: a neighbouring index is live only as often as any
 * other, and then under a key (and random index bits) of its own. Fast-register regions and
 * memory windows keep their slot and take their next keys from a random order of all 256 keys
 * ({@link StagSlot#nextStag()}). Invalidation (local, remote or by deregistration) removes the
 * region from its slot at once; the slot stays reserved until the region is closed.
 *
 * <p><b>Threading.</b> Event loops call {@link #lookup}, {@link #check},
 * {@link #checkAndPlace} and {@link #remoteInvalidate}: these read one slot of an
 * {@link AtomicReferenceArray} and never lock or allocate. Application threads register and
 * deregister; they serialize on a private lock that the read side never takes. A region is
 * fully built before it is published with a volatile write, so a reader that sees it sees all
 * of it.
 */
public final class StagTable {
  /** Regions a table holds at once unless told otherwise. */
  public static final int DEFAULT_CAPACITY = 1 << 16;
  /** Most regions a table can hold: every 24-bit index except 0. */
  public static final int MAX_CAPACITY = (1 << 24) - 1;
  /** How long a deregistration waits for placements in flight unless told otherwise. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);

  private final int capacity;
  private final AtomicReferenceArray<MemoryRegion> slots;
  private final long drainTimeoutNanos;
  private final AtomicInteger nextPdId = new AtomicInteger(1);

  /** Bits of an index that name the slot: the fewest that hold {@code capacity}. */
  private final int slotBits;
  private final int slotMask;
  /** Random bits above the slot number in an index, plus the 8 key bits. */
  private final int tagBits;

  // Guarded by lock: slot allocation (application threads only).
  private final Object lock = new Object();
  private final RandomGenerator keySource;
  /** The free slots, in {@code free[0..freeCount)}; a registration takes a random one. */
  private final int[] free;
  private int freeCount;
  /** The STag each slot last had (0: never used), so its next one can differ. */
  private final int[] lastStag;
  private int registered;

  /** A table of {@link #DEFAULT_CAPACITY} regions with keys from a {@link SecureRandom}. */
  public StagTable() {
    this(DEFAULT_CAPACITY);
  }

  /**
   * A table of {@code capacity} regions with keys from a {@link SecureRandom}.
   *
   * @param capacity the most regions it holds
   */
  public StagTable(int capacity) {
    this(capacity, new SecureRandom(), DEFAULT_DRAIN_TIMEOUT);
  }

  /**
   * A table of {@code capacity} regions.
   *
   * @param capacity most regions registered at once, 1..{@link #MAX_CAPACITY}
   * @param keySource where slots, random index bits and keys come from; STags should be hard
   *     to guess (RFC 5040 §8.1.1), so use a seeded generator only in tests
   * @param drainTimeout how long invalidation and deregistration wait for placements in flight
   *     before giving up with an exception (it is reached only if a pin is never released)
   * @throws IllegalArgumentException for a capacity out of range or a non-positive timeout
   */
  public StagTable(int capacity, RandomGenerator keySource, Duration drainTimeout) {
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException(
          "STag table capacity " + capacity + " outside 1.." + MAX_CAPACITY + " (24-bit index, 0 reserved)");
    }
    Objects.requireNonNull(keySource, "keySource");
    Objects.requireNonNull(drainTimeout, "drainTimeout");
    if (drainTimeout.isNegative() || drainTimeout.isZero()) {
      throw new IllegalArgumentException("drain timeout must be positive, got " + drainTimeout);
    }
    this.capacity = capacity;
    this.slots = new AtomicReferenceArray<>(capacity + 1);
    this.slotBits = slotBits(capacity);
    this.slotMask = (1 << slotBits) - 1;
    this.tagBits = 24 - slotBits + 8;
    this.free = new int[capacity];
    for (int i = 0; i < capacity; i++) {
      free[i] = i + 1;
    }
    this.freeCount = capacity;
    this.lastStag = new int[capacity + 1];
    this.keySource = keySource;
    this.drainTimeoutNanos = drainTimeout.toNanos();
  }

  /**
   * Creates a Protection Domain whose regions take their STags from this table.
   *
   * @return the new protection domain
   */
  public ProtectionDomain newProtectionDomain() {
    return new ProtectionDomain(this, nextPdId.getAndIncrement());
  }

  /**
   * Most regions this table holds at once.
   *
   * @return the most regions this table holds at once
   */
  public int capacity() {
    return capacity;
  }

  /**
   * Regions registered now (including invalidated ones not yet closed).
   *
   * @return the number of regions registered now (including invalidated ones not yet closed)
   */
  public int registeredCount() {
    synchronized (lock) {
      return registered;
    }
  }

  /**
   * The 24-bit index part of an STag.
   *
   * @param stag the STag
   * @return the 24-bit index part of an STag
   */
  public static int indexOf(int stag) {
    return stag >>> 8;
  }

  /**
   * The table slot {@code stag} names in a table of {@code capacity} regions: the low bits of
   * its index (see the class comment); the rest of the index is random.
   *
   * @param stag the STag
   * @param capacity the table's capacity
   * @return the slot, 0..2^24-1 (0 and values above {@code capacity} name no slot)
   */
  public static int slotOf(int stag, int capacity) {
    return (stag >>> 8) & ((1 << slotBits(capacity)) - 1);
  }

  /** The fewest bits that hold {@code capacity} (slot numbers 1..capacity). */
  private static int slotBits(int capacity) {
    return 32 - Integer.numberOfLeadingZeros(capacity);
  }

  /**
   * The 8-bit key part of an STag.
   *
   * @param stag the STag
   * @return the 8-bit key part of an STag
   */
  public static int keyOf(int stag) {
    return stag & 0xFF;
  }

  /**
   * The valid region {@code stag} names, or null when the STag is unknown, invalidated,
   * deregistered or carries a stale key. O(1); no lock, no allocation. A region returned here
   * can be invalidated a moment later: placement must still {@linkplain MemoryRegion#tryPin pin}
   * it.
   *
   * @param stag the STag
   * @return the valid region {@code stag} names, or null when the STag is unknown, invalidated,
   *     deregistered or carries a stale key
   */
  public MemoryRegion lookup(int stag) {
    int slot = (stag >>> 8) & slotMask;
    if (slot == 0 || slot > capacity) {
      return null;
    }
    MemoryRegion r = slots.get(slot);
    if (r == null || r.stag() != stag || !r.isValid()) {
      return null;
    }
    return r;
  }

  /**
   * Validates a tagged access in the RFC order (see {@link StagCheck}); no lock, no allocation.
   * A zero-length tagged segment must not be checked at all (RFC 5041 §5.2): that is the
   * caller's rule; this method checks whatever it is given.
   *
   * @param stag the STag from the segment or request
   * @param to the Tagged Offset, unsigned
   * @param length octets accessed, {@code >= 0}
   * @param requiredAccess {@link AccessFlags} the access needs (REMOTE_WRITE for an RDMA Write,
   *     LOCAL_WRITE for a Read Response sink, REMOTE_READ for a Read Request source)
   * @param streamPd the Protection Domain of the stream the access came in on
   * @return the outcome of the check
   * @throws IllegalArgumentException for a negative length (a caller bug, not peer input)
   */
  public StagCheck check(int stag, long to, long length, int requiredAccess, ProtectionDomain streamPd) {
    return check(stag, to, length, requiredAccess, streamPd, null);
  }

  /**
   * {@link #check(int, long, long, int, ProtectionDomain)} for an access that came in on the
   * stream {@code streamScope} names: an STag limited to another stream (a memory window) is
   * {@link StagCheck#NOT_ASSOCIATED} (RFC 5041 §8.2).
   *
   * @param stag the STag from the segment or request
   * @param to the Tagged Offset, unsigned
   * @param length octets accessed, {@code >= 0}
   * @param requiredAccess {@link AccessFlags} the access needs
   * @param streamPd the Protection Domain of the stream the access came in on
   * @param streamScope the identity of that stream (its DDP stream), or null
   * @return the outcome of the check
   */
  public StagCheck check(int stag, long to, long length, int requiredAccess,
      ProtectionDomain streamPd, Object streamScope) {
    MemoryRegion r = lookup(stag);
    if (r == null) {
      return StagCheck.INVALID_STAG;
    }
    return r.check(to, length, requiredAccess, streamPd, streamScope);
  }

  /**
   * The whole tagged receive step: look the STag up, validate, pin, copy {@code length} octets
   * from {@code src} at {@code srcIndex} into the region at {@code to}, unpin. No lock, no
   * allocation. A region invalidated between the check and the pin yields
   * {@link StagCheck#INVALID_STAG}, and nothing is placed.
   *
   * @param stag the STag
   * @param to the tagged offset
   * @param src the received ULPDU
   * @param srcIndex the index in {@code src} of the first octet to place
   * @param length the number of octets
   * @param requiredAccess the access the operation needs, an AccessFlags bit set
   * @param streamPd the protection domain of the stream asking
   * @return {@link StagCheck#OK} when placed, else why not (nothing was placed)
   */
  public StagCheck checkAndPlace(int stag, long to, Ulpdu src, int srcIndex, int length,
      int requiredAccess, ProtectionDomain streamPd) {
    return checkAndPlace(stag, to, src, srcIndex, length, requiredAccess, streamPd, null);
  }

  /**
   * {@link #checkAndPlace(int, long, Ulpdu, int, int, int, ProtectionDomain)} for a segment
   * that came in on the stream {@code streamScope} names (see {@link MemoryRegion#scope()}).
   *
   * @param stag the STag
   * @param to the tagged offset
   * @param src the received ULPDU
   * @param srcIndex the index in {@code src} of the first octet to place
   * @param length the number of octets
   * @param requiredAccess the access the operation needs, an AccessFlags bit set
   * @param streamPd the protection domain of the stream asking
   * @param streamScope the identity of that stream (its DDP stream), or null
   * @return {@link StagCheck#OK} when placed, else why not (nothing was placed)
   */
  public StagCheck checkAndPlace(int stag, long to, Ulpdu src, int srcIndex, int length,
      int requiredAccess, ProtectionDomain streamPd, Object streamScope) {
    MemoryRegion r = lookup(stag);
    if (r == null) {
      return StagCheck.INVALID_STAG;
    }
    StagCheck result = r.check(to, length, requiredAccess, streamPd, streamScope);
    if (result != StagCheck.OK) {
      return result;
    }
    if (!r.tryPin()) {
      return StagCheck.INVALID_STAG;
    }
    try {
      r.place(to, src, srcIndex, length);
    } finally {
      r.unpin();
    }
    return StagCheck.OK;
  }

  /**
   * Invalidates {@code stag} on a peer's request (Send with Invalidate, RFC 5040 §5.3). On
   * {@link InvalidateResult#OK} the region takes no placement any more: this returns only after
   * placements already in flight on other threads have finished (one segment copy at most).
   *
   * @param stag the Invalidate STag from the message
   * @param streamPd the Protection Domain of the stream the message came in on
   * @return the outcome
   */
  public InvalidateResult remoteInvalidate(int stag, ProtectionDomain streamPd) {
    return remoteInvalidate(stag, streamPd, null);
  }

  /**
   * {@link #remoteInvalidate(int, ProtectionDomain)} for a message that came in on the stream
   * {@code streamScope} names: an STag limited to another stream (a memory window) is
   * {@link InvalidateResult#NOT_ASSOCIATED} (RFC 5040 §7.2 item 5).
   *
   * @param stag the Invalidate STag from the message
   * @param streamPd the Protection Domain of the stream the message came in on
   * @param streamScope the identity of that stream (its DDP stream), or null
   * @return the outcome
   */
  public InvalidateResult remoteInvalidate(int stag, ProtectionDomain streamPd,
      Object streamScope) {
    Objects.requireNonNull(streamPd, "streamPd");
    MemoryRegion r = lookup(stag);
    if (r == null) {
      return InvalidateResult.INVALID_STAG;
    }
    if (r.pd() != streamPd || (r.scope() != null && r.scope() != streamScope)) {
      return InvalidateResult.NOT_ASSOCIATED;
    }
    if (!r.remoteInvalidationAllowed()) {
      return InvalidateResult.CANNOT_INVALIDATE;
    }
    // Losing a race with another invalidation means the STag was no longer valid.
    return r.invalidate() ? InvalidateResult.OK : InvalidateResult.INVALID_STAG;
  }

  long drainTimeoutNanos() {
    return drainTimeoutNanos;
  }

  /**
   * Reserves a random free slot and returns a fresh STag for it: random index bits and key,
   * never the STag the slot had last.
   *
   * @throws IllegalStateException when {@link #capacity()} regions are registered
   */
  int reserve() {
    synchronized (lock) {
      if (freeCount == 0) {
        throw new IllegalStateException("STag table full: " + registered
            + " memory regions registered, capacity " + capacity + "; deregister some or use a larger table");
      }
      int pick = keySource.nextInt(freeCount);
      int slot = free[pick];
      free[pick] = free[--freeCount];
      int last = lastStag[slot];
      long tags = 1L << tagBits; // up to 2^31 (capacity 1)
      int tag;
      if (last == 0) {
        tag = (int) keySource.nextLong(tags);
      } else {
        // Uniform over every tag but the last one: last + 1 .. last + 2^tagBits - 1.
        tag = (int) ((tagOf(last) + 1 + keySource.nextLong(tags - 1)) & (tags - 1));
      }
      int stag = (tag >>> 8) << (slotBits + 8) | slot << 8 | (tag & 0xFF);
      lastStag[slot] = stag;
      registered++;
      return stag;
    }
  }

  /** The random part of an STag: its index bits above the slot, then its key. */
  private int tagOf(int stag) {
    return (stag >>> (slotBits + 8)) << 8 | (stag & 0xFF);
  }

  /**
   * Fills {@code order} with the 256 keys in a random order that starts with {@code first}:
   * the keys a fast-register region or window walks through (see {@link StagSlot#nextStag()}).
   */
  void shuffleKeys(byte[] order, int first) {
    for (int k = 0; k < 256; k++) {
      order[k] = (byte) k;
    }
    order[first & 0xFF] = 0;
    order[0] = (byte) first;
    synchronized (lock) {
      for (int i = 255; i > 1; i--) { // Fisher-Yates over positions 1..255
        int j = 1 + keySource.nextInt(i);
        byte t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
  }

  /**
   * Returns the slot {@code stag} names for reuse (after its region is closed, or a failed
   * registration); the slot's next STag will differ from {@code stag}.
   */
  void release(int stag) {
    synchronized (lock) {
      int slot = (stag >>> 8) & slotMask;
      lastStag[slot] = stag;
      free[freeCount++] = slot;
      registered--;
    }
  }

  /** Makes a fully built region visible to readers. */
  void publish(MemoryRegion r) {
    slots.set((r.stag() >>> 8) & slotMask, r);
  }

  /** Makes the region invisible to new lookups; its slot stays reserved. */
  void unpublish(MemoryRegion r) {
    slots.compareAndSet((r.stag() >>> 8) & slotMask, r, null);
  }

  @Override
  public String toString() {
    return "StagTable{registered=" + registeredCount() + ", capacity=" + capacity + "}";
  }
}
