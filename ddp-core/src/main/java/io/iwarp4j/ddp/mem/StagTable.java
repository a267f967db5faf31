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
 * <p><b>STag format.</b> {@code STag = index << 8 | key}: a 24-bit slot index and an 8-bit key,
 * compared in full. Index 0 is never handed out, so STags {@code 0x000000xx} are never valid.
 * The first key of a slot is random, and so is the slot's odd key step (also secret); each later
 * registration in the slot takes the previous key plus that step (mod 256). An odd step visits
 * all 256 keys before repeating, so an STag that names a slot's earlier region is refused for
 * the next 255 registrations of that slot, and unlike verbs' {@code ib_inc_rkey} (plus one) the
 * next key cannot be guessed from one stale STag (1 in 128). Fresh slots are used
 * before freed ones, and freed slots are reused oldest first, so a slot comes back as late as
 * possible. Invalidation (local, remote or by deregistration) removes the region from its slot
 * at once; the slot stays reserved until the region is closed.
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

  // Guarded by lock: index allocation and per-slot keys (application threads only).
  private final Object lock = new Object();
  private final RandomGenerator keySource;
  private final byte[] lastKey;
  private final byte[] keyStep;
  private int nextFresh = 1;
  private int[] freeRing = new int[16];
  private int freeHead;
  private int freeCount;
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
   * @param keySource where the first key of each slot comes from; STags should be hard to
   *     guess (RFC 5040 §8.1.1 item 8), so use a seeded generator only in tests
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
    this.lastKey = new byte[capacity + 1];
    this.keyStep = new byte[capacity + 1];
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
    int index = stag >>> 8;
    if (index == 0 || index > capacity) {
      return null;
    }
    MemoryRegion r = slots.get(index);
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
   * Reserves a slot and returns the STag for it.
   *
   * @throws IllegalStateException when {@link #capacity()} regions are registered
   */
  int reserve() {
    synchronized (lock) {
      int index;
      int key;
      if (nextFresh <= capacity) {
        index = nextFresh++;
        key = keySource.nextInt(256);
        keyStep[index] = (byte) (keySource.nextInt(128) << 1 | 1);
      } else if (freeCount > 0) {
        index = freeRing[freeHead];
        freeHead = (freeHead + 1) % freeRing.length;
        freeCount--;
        key = (lastKey[index] + keyStep[index]) & 0xFF;
      } else {
        throw new IllegalStateException("STag table full: " + registered
            + " memory regions registered, capacity " + capacity + "; deregister some or use a larger table");
      }
      lastKey[index] = (byte) key;
      registered++;
      return index << 8 | key;
    }
  }

  /**
   * The next key of a reserved slot, for a fast-register region's next registration: the
   * previous key plus the slot's secret odd step, as a re-registration of the slot would get
   * ({@code ib_inc_rkey}, but not guessable from one stale STag).
   *
   * @param index a slot reserved by a {@link FastRegisterRegion}
   * @return the key, 0..255
   */
  int nextKey(int index) {
    synchronized (lock) {
      int key = (lastKey[index] + keyStep[index]) & 0xFF;
      lastKey[index] = (byte) key;
      return key;
    }
  }

  /** Returns a reserved slot for reuse (after its region is closed, or a failed registration). */
  void release(int index) {
    synchronized (lock) {
      if (freeCount == freeRing.length) {
        int[] bigger = new int[Math.min(freeRing.length * 2, capacity)];
        for (int i = 0; i < freeCount; i++) {
          bigger[i] = freeRing[(freeHead + i) % freeRing.length];
        }
        freeRing = bigger;
        freeHead = 0;
      }
      freeRing[(freeHead + freeCount) % freeRing.length] = index;
      freeCount++;
      registered--;
    }
  }

  /** Makes a fully built region visible to readers. */
  void publish(MemoryRegion r) {
    slots.set(indexOf(r.stag()), r);
  }

  /** Makes the region invisible to new lookups; its slot stays reserved. */
  void unpublish(MemoryRegion r) {
    slots.compareAndSet(indexOf(r.stag()), r, null);
  }

  @Override
  public String toString() {
    return "StagTable{registered=" + registeredCount() + ", capacity=" + capacity + "}";
  }
}
