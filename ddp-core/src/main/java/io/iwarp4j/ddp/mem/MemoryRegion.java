package io.iwarp4j.ddp.mem;

import io.iwarp4j.mpa.CopyCounters;
import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registered off-heap memory a peer can address by {@link #stag()} and Tagged Offset: the
 * octets {@code [baseTo, baseTo + length)} of the TO space map to offsets
 * {@code [0, length)} of the memory.
 *
 * <p>Created by a {@link ProtectionDomain}; belongs to it for life. {@link #close()}
 * deregisters: the STag dies at once, and the memory is released (memory the library
 * allocated) or handed back (a registered buffer loses the reference the region held).
 *
 * <p><b>Why placement can never touch freed memory.</b> Every write into the region from the
 * network happens between a successful {@link #tryPin()} and the matching {@link #unpin()}.
 * One atomic state word holds both the pin count and the "invalid" and "closing" bits; a pin
 * is a compare-and-set that succeeds only while the bits are clear, so once
 * {@link #invalidate()} or {@link #close()} has set a bit, no new pin can succeed. Those calls
 * then wait until the count is zero: every pin taken before the bit was set has been released,
 * so its copy is complete (the release is a volatile write after the copy, the waiter's read of
 * the count a volatile read, hence every copied octet happens-before the return). Only then
 * does {@code close()} release the memory, so no copy can run into released memory, and no
 * octet changes after {@code close()} (or {@code invalidate()}) has returned. The wait is
 * bounded by one segment copy; a pin that is never released makes the wait fail with an
 * exception after the table's drain timeout, leaving the memory allocated rather than freeing
 * it under a writer.
 *
 * <p><b>Threading.</b> {@link #tryPin}, {@link #unpin}, {@link #check} and {@link #place} are
 * lock-free and allocate nothing; any thread may call them. The {@link #buffer()} view is not
 * guarded: local code must not use it concurrently with {@code close()}.
 *
 * <p><b>8-octet accessors</b> ({@link #getAndAddLong} and the other atomics, {@link #getLong},
 * {@link #putLong}; {@code RegionAtomics} does the work). The atomics are atomic with respect to
 * each other on the same octets, remote or local. Each accessor pins the region around the
 * access (allowed after invalidation, refused once closing) and throws
 * {@link IndexOutOfBoundsException} when the 8 octets are not inside the region,
 * {@link IllegalStateException} when the region is closed (or read-only, for a write), and, for
 * an atomic, {@link IllegalArgumentException} when the target is not 8-octet aligned in memory.
 */
public final class MemoryRegion implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MemoryRegion.class);

  private static final int INVALID = RegionLifetime.INVALID;
  private static final int CLOSING = RegionLifetime.CLOSING;

  private static final VarHandle RELEASED;
  private static final VarHandle PLACED_OCTETS;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      RELEASED = lookup.findVarHandle(MemoryRegion.class, "released", boolean.class);
      PLACED_OCTETS = lookup.findVarHandle(MemoryRegion.class, "placedOctets", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final StagTable table;
  private final ProtectionDomain pd;
  private final int stag;
  private final long baseTo;
  private final int length;
  private final int access;
  private final boolean remoteInvalidation;
  private final boolean libraryAllocated;
  private final boolean readOnly;
  /** Exactly the region's octets, index 0 = base TO. The region owns one reference. */
  private final ByteBuf memory;
  /** The pin count and the INVALID and CLOSING bits. */
  private final RegionLifetime lifetime = new RegionLifetime(this);
  /** Per sending thread, the view its send-side slices come from. */
  private final SendViews sendViews;
  /** The 8-octet accesses (atomics, getLong/putLong). */
  private final RegionAtomics atomics;
  /** The fast-register region owning the STag's slot and the domain's count for life, or null. */
  private final FastRegisterRegion owner;
  /**
   * The stream identity this STag is limited to (a type 2 window's binding, RFC 5041 §8.2), or
   * null for every stream of the domain. One field compare in {@link #check}.
   */
  private final Object scope;
  /** The memory window this is one binding of (it owns the slot), or null. */
  private final MemoryWindow window;
  /** Windows bound into this region, invalidated before it is deregistered. */
  private final BoundWindows boundWindows = new BoundWindows();

  @SuppressWarnings("unused")
  private volatile boolean released;
  @SuppressWarnings("unused")
  private volatile long placedOctets;

  /** A region over {@code memory}; a non-null {@code owner} or {@code window} keeps the slot. */
  MemoryRegion(StagTable table, ProtectionDomain pd, int stag, long baseTo, ByteBuf memory,
      int access, boolean remoteInvalidation, boolean libraryAllocated, boolean readOnly,
      FastRegisterRegion owner, MemoryWindow window, Object scope) {
    this.owner = owner;
    this.window = window;
    this.scope = scope;
    this.table = table;
    this.pd = pd;
    this.stag = stag;
    this.baseTo = baseTo;
    this.length = memory.capacity();
    this.access = access;
    this.remoteInvalidation = remoteInvalidation;
    this.libraryAllocated = libraryAllocated;
    this.readOnly = readOnly;
    this.memory = memory;
    ByteBuffer nio = memory.nioBuffer(0, length);
    this.sendViews = new SendViews(this, memory, nio, readOnly);
    this.atomics = new RegionAtomics(this, lifetime, nio, readOnly);
  }

  /** {@return the STag naming this region}: its value never changes; once invalid, it stays so. */
  public int stag() {
    return stag;
  }

  /** {@return the Tagged Offset of the region's first octet (unsigned)} */
  public long baseTo() {
    return baseTo;
  }

  /** {@return octets in the region} */
  public int length() {
    return length;
  }

  /** {@return the {@link AccessFlags} granted at registration} */
  public int access() {
    return access;
  }

  /** {@return the Protection Domain the region belongs to} */
  public ProtectionDomain pd() {
    return pd;
  }

  /** {@return whether a peer may invalidate the STag} See {@link RegionOptions}. */
  public boolean remoteInvalidationAllowed() {
    return remoteInvalidation;
  }

  /**
   * {@return the fast-register region this is one registration of, or null for a region
   * registered on its own} ({@link ProtectionDomain#register}, {@link ProtectionDomain#allocate})
   */
  public FastRegisterRegion fastRegisterOwner() {
    return owner;
  }

  /**
   * {@return the stream identity this STag is limited to (a memory window bound by a queue
   * pair), or null when every stream of the domain may use it}
   */
  public Object scope() {
    return scope;
  }

  /** {@return the memory window this region is one binding of, or null} */
  public MemoryWindow memoryWindow() {
    return window;
  }

  /**
   * {@return the memory windows validly bound into this region now, possibly none} They are
   * invalidated by {@link #close()}. Allocates; not for the data path.
   */
  public java.util.List<MemoryWindow> boundMemoryWindows() {
    return boundWindows.valid();
  }

  /** The windows bound into this region. */
  BoundWindows boundWindows() {
    return boundWindows;
  }

  /** The region's octets (index 0 = base TO), for a window binding's slice. */
  ByteBuf memory() {
    return memory;
  }

  /** {@return true when the library allocated the memory (and releases it on close)} */
  public boolean isLibraryAllocated() {
    return libraryAllocated;
  }

  /** {@return true until the STag is invalidated (locally, remotely, or by {@link #close()})} */
  public boolean isValid() {
    return !lifetime.has(INVALID);
  }

  /** {@return true once {@link #close()} has released the memory} */
  public boolean isClosed() {
    return released;
  }

  /**
   * {@return the number of payload octets placed into this region so far}: a debug counter to
   * show that each received payload octet is copied exactly once.
   */
  public long placedOctets() {
    return placedOctets;
  }

  /**
   * {@return the outcome of the check} {@link #check(long, long, int, ProtectionDomain, Object)}
   * for an access on no particular stream (a null {@code streamScope}).
   */
  public StagCheck check(long to, long len, int requiredAccess, ProtectionDomain streamPd) {
    return check(to, len, requiredAccess, streamPd, null);
  }

  /**
   * Validates an access that came in on the stream {@code streamScope} names (the checks of
   * {@link StagTable#check} after the lookup): a region limited to one stream ({@link #scope()})
   * is {@link StagCheck#NOT_ASSOCIATED} for every other stream. No lock, no allocation.
   *
   * @param to the tagged offset
   * @param len the number of octets
   * @param requiredAccess the access the operation needs, an AccessFlags bit set
   * @param streamPd the protection domain of the stream asking
   * @param streamScope the identity of the stream asking (its DDP stream), or null for none
   * @return the outcome of the check
   * @throws IllegalArgumentException for a negative length
   */
  public StagCheck check(long to, long len, int requiredAccess, ProtectionDomain streamPd,
      Object streamScope) {
    if (len < 0) {
      throw new IllegalArgumentException("negative access length");
    }
    Objects.requireNonNull(streamPd, "streamPd");
    if (!isValid()) {
      return StagCheck.INVALID_STAG;
    }
    if (streamPd != pd || (scope != null && scope != streamScope)) {
      return StagCheck.NOT_ASSOCIATED;
    }
    if (!AccessFlags.allows(access, requiredAccess)) {
      return StagCheck.ACCESS_VIOLATION;
    }
    long end = to + len;
    if (len != 0 && Long.compareUnsigned(end, to) < 0) {
      return StagCheck.TO_WRAP;
    }
    // base + length fits in 64 bits (checked at registration), so plain unsigned compares work.
    if (Long.compareUnsigned(to, baseTo) < 0 || Long.compareUnsigned(end, baseTo + length) > 0) {
      return StagCheck.BASE_OR_BOUNDS;
    }
    return StagCheck.OK;
  }

  /**
   * Pins the region for one remote access (a placement, or reading a Read Response's source):
   * until {@link #unpin()} its memory cannot be released. Lock-free, no allocation.
   *
   * @return false once the region is invalidated or closing; then nothing may be accessed
   */
  public boolean tryPin() {
    return lifetime.pin(INVALID | CLOSING);
  }

  /**
   * Releases a pin taken by {@link #tryPin()}. Call it in a {@code finally} block right after
   * the access: deregistration waits for it.
   *
   * @throws IllegalStateException when no pin is held
   */
  public void unpin() {
    lifetime.unpin();
  }

  /**
   * Copies {@code len} octets of a received segment from {@code src} at {@code srcIndex} into
   * the region at Tagged Offset {@code to}: the one copy a tagged payload makes. The caller has
   * validated the access ({@link #check} returned OK) and holds a pin ({@link #tryPin()}); see
   * {@link StagTable#checkAndPlace} for the whole step. No allocation.
   *
   * @param to the tagged offset
   * @param src the received ULPDU
   * @param srcIndex the index in {@code src} of the first octet to place
   * @param len the number of octets
   * @throws IllegalStateException when the region is not pinned
   * @throws IndexOutOfBoundsException when {@code [to, to + len)} is not inside the region
   */
  public void place(long to, Ulpdu src, int srcIndex, int len) {
    if (!lifetime.pinned()) {
      throw new IllegalStateException("place() without a pin: call tryPin() first on " + this);
    }
    int offset = offsetOf(to, len);
    src.getBytes(srcIndex, memory, offset, len);
    PLACED_OCTETS.getAndAdd(this, (long) len);
    if (CopyCounters.ENABLED) {
      CopyCounters.receivePlaced(len);
    }
  }

  /** Region offset of {@code [to, to + len)}; throws unless the range is inside the region. */
  private int offsetOf(long to, long len) {
    long offset = to - baseTo;
    if (len < 0 || Long.compareUnsigned(offset, length) > 0 || len > length - offset) {
      throw new IndexOutOfBoundsException("TO range [0x" + Long.toHexString(to) + ", +" + len
          + ") outside region [0x" + Long.toHexString(baseTo) + ", +" + length + ") of STag 0x"
          + Integer.toHexString(stag));
    }
    return (int) offset;
  }

  /**
   * A view of the whole region for local reads and writes and for send-side slices: index 0 is
   * the base TO, readerIndex 0, writerIndex {@link #length()}. The view (and anything derived
   * from it) cannot release the region's memory: {@code release()} on it does nothing. It
   * fails with an exception once the region is closed; code that may race {@link #close()}
   * (a send in flight) must hold a pin while it reads.
   *
   * @return the view
   * @throws IllegalStateException once the region is closing or closed
   */
  public ByteBuf buffer() {
    if (lifetime.has(CLOSING)) {
      throw new IllegalStateException("region is closed: " + this);
    }
    return Unpooled.unreleasableBuffer(memory.duplicate().setIndex(0, length));
  }

  /**
   * A retained slice of the region's octets {@code [to, to + length)}, for sending them without a
   * copy (the source of an RDMA Read Response). It shares the memory's reference count, so it
   * keeps the memory allocated until it is released, and releasing it never releases the
   * region's own reference. The caller must hold a pin ({@link #tryPin()}) while the slice (and
   * anything derived from it) can still be read, and release the slice; no allocation for pooled
   * memory (Netty recycles the slice object).
   *
   * @param length the number of octets
   * @param to the Tagged Offset of the first octet (unsigned)
   * @return the retained slice
   * @throws IllegalStateException when the region is not pinned
   * @throws IndexOutOfBoundsException when {@code [to, to + length)} is not inside the region
   */
  public ByteBuf retainedSlice(long to, int length) {
    if (!lifetime.pinned()) {
      throw new IllegalStateException("retainedSlice() without a pin: call tryPin() first on "
          + this);
    }
    int offset = offsetOf(to, length);
    ByteBuf view = sendView();
    // The owner slices the memory itself: pooled slices are recycled, so nothing is allocated.
    return sendViews.isOwnerView(view) ? memory.retainedSlice(offset, length)
        : view.retainedSlice(offset, length);
  }

  /**
   * The view the calling thread must take send-side slices from (index 0 = base TO): the
   * region's own memory for the first thread that sends from it, a root of its own over the same
   * memory for any other thread (see {@link SendViews}). Releasing it, or anything
   * derived from it, never releases the region's memory; its retained slices hold a reference
   * that keeps the memory allocated (also past {@link #close()}) until they are released.
   *
   * @return the calling thread's send view
   * @throws IllegalStateException once the region is closing or closed
   */
  public ByteBuf sendView() {
    if (lifetime.has(CLOSING)) {
      throw new IllegalStateException("region is closed: " + this);
    }
    return sendViews.forCurrentThread();
  }

  /** Whether deregistration has started (no new access of any kind may start). */
  boolean isClosing() {
    return lifetime.has(CLOSING);
  }

  /**
   * A view for a posted receive into this region (index 0 = base TO, indexes free to move):
   * placement finds the region again with {@link #regionOf} and pins it around each copy, so a
   * receive posted long before holds neither a pin (which deregistration would wait for) nor a
   * reference, and nothing is written once the region is deregistered.
   *
   * @return a new view
   * @throws IllegalStateException once the region is closing or closed
   */
  public ByteBuf receiveView() {
    if (lifetime.has(CLOSING)) {
      throw new IllegalStateException("region is closed: " + this);
    }
    return new ReceiveView(this, memory);
  }

  /** {@return the region {@code buf} is a {@link #receiveView()} of, or null for any other} */
  public static MemoryRegion regionOf(ByteBuf buf) {
    return buf instanceof ReceiveView v ? v.region : null;
  }

  /**
   * Atomically adds {@code delta} to the 8-octet native-order value at {@code offsetFromBase}
   * (the FetchAdd of RFC 7306). Throws as the class comment says ("8-octet accessors").
   *
   * @param offsetFromBase the octet offset from the region's base, 8-aligned
   * @param delta the value to add
   * @return the value before the addition
   */
  public long getAndAddLong(long offsetFromBase, long delta) {
    return atomics.localGetAndAdd(offsetFromBase, delta);
  }

  /**
   * Atomically replaces the 8-octet native-order value at {@code offsetFromBase} with
   * {@code newValue} if it equals {@code expected} (the CmpSwap of RFC 7306).
   *
   * @param offsetFromBase the octet offset from the region's base, 8-aligned
   * @param expected the value expected
   * @param newValue the value to store when it matches
   * @return the value found, whether or not it was replaced
   */
  public long compareAndExchangeLong(long offsetFromBase, long expected, long newValue) {
    return atomics.localCompareAndExchange(offsetFromBase, expected, newValue);
  }

  /**
   * The masked FetchAdd of RFC 7306 §5.1.1: adds {@code addData} field by field, the fields
   * ending at the set bits of {@code addMask} ({@link MaskedArithmetic#fetchAdd}). Mask 0 is
   * {@link #getAndAddLong}.
   *
   * @param offsetFromBase the octet offset from the region's base, 8-aligned
   * @param addData the value to add
   * @param addMask the field boundaries
   * @return the value before the addition
   */
  public long getAndAddMaskedLong(long offsetFromBase, long addData, long addMask) {
    return atomics.localFetchAddMasked(offsetFromBase, addData, addMask);
  }

  /**
   * The masked CmpSwap of RFC 7306 §5.1.2: when the bits under {@code compareMask} equal those
   * of {@code compareData}, replaces the bits under {@code swapMask} with those of
   * {@code swapData}.
   *
   * @param offsetFromBase the octet offset from the region's base, 8-aligned
   * @param compareData the comparand
   * @param compareMask the bits compared
   * @param swapData the replacement
   * @param swapMask the bits replaced
   * @return the value found, whether or not it was replaced
   */
  public long compareAndSwapMaskedLong(long offsetFromBase, long compareData, long compareMask,
      long swapData, long swapMask) {
    return atomics.localCmpSwapMasked(offsetFromBase, compareData, compareMask, swapData,
        swapMask);
  }

  /**
   * {@return whether an atomic may target the 8 octets at {@code offsetFromBase}}: they lie
   * inside the region, are 8-octet aligned in memory and writable.
   */
  public boolean isAtomicTarget(long offsetFromBase) {
    return atomics.isTarget(offsetFromBase);
  }

  /**
   * {@return the value before the addition} The remote side of an RFC 7306 FetchAdd: {@link
   * #getAndAddMaskedLong} for a caller that holds a pin ({@link #tryPin}) and checked the target
   * ({@link #isAtomicTarget}).
   */
  public long pinnedFetchAdd(long offsetFromBase, long addData, long addMask) {
    return atomics.fetchAddMasked((int) offsetFromBase, addData, addMask);
  }

  /**
   * {@return the value found} The remote side of an RFC 7306 CmpSwap: {@link
   * #compareAndSwapMaskedLong} for a caller that holds a pin and checked the target.
   */
  public long pinnedCmpSwap(long offsetFromBase, long compareData, long compareMask,
      long swapData, long swapMask) {
    return atomics.cmpSwapMasked((int) offsetFromBase, compareData, compareMask, swapData,
        swapMask);
  }

  /**
   * {@return the 8-octet native-order value at {@code offsetFromBase}} A plain read, any
   * alignment.
   */
  public long getLong(long offsetFromBase) {
    return atomics.localGet(offsetFromBase);
  }

  /**
   * Writes the 8-octet native-order value at {@code offsetFromBase} (plain write; any
   * alignment).
   *
   * @param offsetFromBase the octet offset from the region's base
   * @param value the value
   */
  public void putLong(long offsetFromBase, long value) {
    atomics.localSet(offsetFromBase, value);
  }

  /**
   * Invalidates the STag (local invalidation): new lookups, checks and pins fail from now on,
   * and this returns only when placements already in flight on other threads have finished, so
   * nothing is placed into the region after it returns. The memory stays registered (and
   * locally usable) until {@link #close()}. Idempotent.
   *
   * @return true when this call invalidated the STag, false when it was already invalid
   * @throws IllegalStateException when a pin is held longer than the table's drain timeout
   *     (a pin that was never released, e.g. by the calling thread itself)
   */
  public boolean invalidate() {
    boolean first = setBits(INVALID);
    lifetime.awaitUnpinned(table.drainTimeoutNanos());
    return first;
  }

  /**
   * Deregisters the region: invalidates the STag, waits for placements in flight, then
   * releases the memory (library-allocated) or the reference it held on the caller's buffer.
   * After it returns nothing is written into the memory by this library. Idempotent: the
   * memory is released exactly once, whichever thread gets there first.
   *
   * @throws IllegalStateException when a pin is held longer than the table's drain timeout;
   *     the memory then stays allocated and a later {@code close()} tries again
   */
  @Override
  public void close() {
    // Windows bound into this region go first: nothing is placed through them afterwards.
    boundWindows.invalidateAll();
    setBits(INVALID | CLOSING);
    lifetime.awaitUnpinned(table.drainTimeoutNanos());
    if (RELEASED.compareAndSet(this, false, true)) {
      sendViews.releaseAll();
      memory.release();
      if (owner == null && window == null) { // a fast-register region or window keeps its slot for the next registration
        table.release(stag);
        pd.detach();
      }
      if (log.isDebugEnabled()) {
        log.debug("deregistered {}", this);
      }
    }
  }

  /** Sets state bits; on the first invalidation also removes the STag from the table. */
  private boolean setBits(int bits) {
    boolean firstInvalidation = lifetime.set(bits);
    if (firstInvalidation) {
      table.unpublish(this);
      if (log.isDebugEnabled()) {
        log.debug("invalidated STag 0x{}", Integer.toHexString(stag));
      }
    }
    return firstInvalidation;
  }

  @Override
  public String toString() {
    String status = released ? "closed" : lifetime.has(INVALID) ? "invalid" : "valid";
    return "MemoryRegion{stag=0x" + Integer.toHexString(stag) + ", baseTo=0x" + Long.toHexString(baseTo)
        + ", length=" + length + ", access=" + AccessFlags.toString(access) + ", pd=" + pd.id()
        + ", " + status + (libraryAllocated ? ", allocated" : "") + "}";
  }
}
