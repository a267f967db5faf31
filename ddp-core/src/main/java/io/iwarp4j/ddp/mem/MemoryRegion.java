package io.iwarp4j.ddp.mem;

import io.iwarp4j.mpa.CopyCounters;
import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
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
 * lock-free and allocate nothing; any thread may call them. Local accessors
 * ({@link #getAndAddLong} and friends) pin internally. The {@link #buffer()} view is not
 * guarded: local code must not use it concurrently with {@code close()}.
 */
public final class MemoryRegion implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MemoryRegion.class);

  /** No new remote access (placement) may start. */
  private static final int INVALID = 1 << 31;
  /** Deregistration has started: no new access of any kind may start. */
  private static final int CLOSING = 1 << 30;
  private static final int COUNT_MASK = CLOSING - 1;

  private static final VarHandle STATE;
  private static final VarHandle RELEASED;
  private static final VarHandle PLACED_OCTETS;
  private static final VarHandle SEND_OWNER;
  /** Aligned 8-octet accesses in native byte order, atomic where the hardware is. */
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      STATE = lookup.findVarHandle(MemoryRegion.class, "state", int.class);
      RELEASED = lookup.findVarHandle(MemoryRegion.class, "released", boolean.class);
      PLACED_OCTETS = lookup.findVarHandle(MemoryRegion.class, "placedOctets", long.class);
      SEND_OWNER = lookup.findVarHandle(MemoryRegion.class, "sendOwner", Thread.class);
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
  /** The same octets for the VarHandle accessors. */
  private final ByteBuffer nio;
  /**
   * Netty keeps one scratch NIO view per root buffer (internalNioBuffer: socket writes, CRC32C),
   * so slices of one root must only ever be sent by one thread. The first thread that sends from
   * this region owns {@link #ownerView} (slices of the region's own memory, recycled: no
   * allocation); any other sending thread gets a root of its own over the same memory
   * ({@link #threadViews}; its slices are allocated, the price of sharing a region between event
   * loops).
   */
  @SuppressWarnings("unused")
  private volatile Thread sendOwner;
  private final ByteBuf ownerView;
  /**
   * Per other sending thread, a view over a root of its own that holds one reference to
   * {@link #memory}: its retained slices keep the root, and so the memory, allocated until the
   * transport released them, even past {@link #close()} (which drops the region's reference to
   * each root). Null values never occur.
   */
  private final ConcurrentHashMap<Thread, ThreadView> threadViews = new ConcurrentHashMap<>(4);

  /** INVALID and CLOSING bits plus the number of pins held. */
  @SuppressWarnings("unused")
  private volatile int state;
  @SuppressWarnings("unused")
  private volatile boolean released;
  @SuppressWarnings("unused")
  private volatile long placedOctets;

  MemoryRegion(StagTable table, ProtectionDomain pd, int stag, long baseTo, ByteBuf memory, int access,
      boolean remoteInvalidation, boolean libraryAllocated, boolean readOnly) {
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
    this.nio = memory.nioBuffer(0, length);
    this.ownerView = new SendView(memory);
  }

  /**
   * The STag naming this region (its value never changes; once invalid it stays invalid).
   *
   * @return the STag naming this region (its value never changes; once invalid it stays invalid)
   */
  public int stag() {
    return stag;
  }

  /**
   * Tagged Offset of the region's first octet (unsigned).
   *
   * @return the Tagged Offset of the region's first octet (unsigned)
   */
  public long baseTo() {
    return baseTo;
  }

  /**
   * Octets in the region.
   *
   * @return octets in the region
   */
  public int length() {
    return length;
  }

  /**
   * The {@link AccessFlags} granted at registration.
   *
   * @return the {@link AccessFlags} granted at registration
   */
  public int access() {
    return access;
  }

  /**
   * The Protection Domain the region belongs to.
   *
   * @return the Protection Domain the region belongs to
   */
  public ProtectionDomain pd() {
    return pd;
  }

  /**
   * True when a peer may invalidate the STag ({@link RegionOptions#allowRemoteInvalidation}).
   *
   * @return true when a peer may invalidate the STag ({@link
   *     RegionOptions#allowRemoteInvalidation})
   */
  public boolean remoteInvalidationAllowed() {
    return remoteInvalidation;
  }

  /**
   * True when the library allocated the memory (and releases it on close).
   *
   * @return true when the library allocated the memory (and releases it on close)
   */
  public boolean isLibraryAllocated() {
    return libraryAllocated;
  }

  /**
   * True until the STag is invalidated (locally, remotely, or by {@link #close()}).
   *
   * @return true until the STag is invalidated (locally, remotely, or by {@link #close()})
   */
  public boolean isValid() {
    return (state & INVALID) == 0;
  }

  /**
   * True once {@link #close()} has released the memory.
   *
   * @return true once {@link #close()} has released the memory
   */
  public boolean isClosed() {
    return released;
  }

  /**
   * Payload octets placed into this region so far: a debug counter to show that each received
   * payload octet is copied exactly once.
   *
   * @return the number of payload octets placed into this region so far: a debug counter to show
   *     that each received payload octet is copied exactly once
   */
  public long placedOctets() {
    return placedOctets;
  }

  /**
   * Validates an access to this region (the checks of {@link StagTable#check} after the
   * lookup). No lock, no allocation.
   *
   * @param to the tagged offset
   * @param len the number of octets
   * @param requiredAccess the access the operation needs, an AccessFlags bit set
   * @param streamPd the protection domain of the stream asking
   * @return the outcome of the check
   * @throws IllegalArgumentException for a negative length
   */
  public StagCheck check(long to, long len, int requiredAccess, ProtectionDomain streamPd) {
    if (len < 0) {
      throw new IllegalArgumentException("negative access length");
    }
    Objects.requireNonNull(streamPd, "streamPd");
    if (!isValid()) {
      return StagCheck.INVALID_STAG;
    }
    if (streamPd != pd) {
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
    return pin(INVALID | CLOSING);
  }

  /**
   * Releases a pin taken by {@link #tryPin()}. Call it in a {@code finally} block right after
   * the access: deregistration waits for it.
   *
   * @throws IllegalStateException when no pin is held
   */
  public void unpin() {
    for (;;) {
      int s = state;
      if ((s & COUNT_MASK) == 0) {
        throw new IllegalStateException("unpin() without a matching successful tryPin() on " + this);
      }
      if (STATE.compareAndSet(this, s, s - 1)) {
        return;
      }
    }
  }

  private boolean pin(int refusingBits) {
    for (;;) {
      int s = state;
      if ((s & refusingBits) != 0) {
        return false;
      }
      if ((s & COUNT_MASK) == COUNT_MASK) {
        throw new IllegalStateException("too many pins on " + this);
      }
      if (STATE.compareAndSet(this, s, s + 1)) {
        return true;
      }
    }
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
    if ((state & COUNT_MASK) == 0) {
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
   * @return a view of the whole region for local reads and writes and for send-side slices: index 0
   *     is the base TO, readerIndex 0, writerIndex {@link #length()}
   * @throws IllegalStateException once the region is closing or closed
   */
  public ByteBuf buffer() {
    if ((state & CLOSING) != 0) {
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
   * @return a retained slice of the region's octets {@code [to, to + length)}, for sending them
   *     without a copy (the source of an RDMA Read Response)
   * @throws IllegalStateException when the region is not pinned
   * @throws IndexOutOfBoundsException when {@code [to, to + length)} is not inside the region
   */
  public ByteBuf retainedSlice(long to, int length) {
    if ((state & COUNT_MASK) == 0) {
      throw new IllegalStateException("retainedSlice() without a pin: call tryPin() first on "
          + this);
    }
    int offset = offsetOf(to, length);
    ByteBuf view = sendView();
    // The owner slices the memory itself: pooled slices are recycled, so nothing is allocated.
    return view == ownerView ? memory.retainedSlice(offset, length)
        : view.retainedSlice(offset, length);
  }

  /**
   * The view the calling thread must take send-side slices from (index 0 = base TO): the
   * region's own memory for the first thread that sends from it, a root of its own over the same
   * memory for any other thread (see the {@code sendOwner} field). Releasing it, or anything
   * derived from it, never releases the region's memory; its retained slices hold a reference
   * that keeps the memory allocated (also past {@link #close()}) until they are released.
   *
   * @return the calling thread's send view
   * @throws IllegalStateException once the region is closing or closed
   */
  public ByteBuf sendView() {
    if ((state & CLOSING) != 0) {
      throw new IllegalStateException("region is closed: " + this);
    }
    Thread t = Thread.currentThread();
    Thread owner = sendOwner;
    if (owner == t || (owner == null && SEND_OWNER.compareAndSet(this, null, t))) {
      return ownerView;
    }
    ThreadView view = threadViews.get(t);
    if (view == null) {
      view = newThreadView();
      ThreadView raced = threadViews.putIfAbsent(t, view);
      if (raced != null) {
        view.release();
        view = raced;
      } else if ((state & CLOSING) != 0 && threadViews.remove(t, view)) {
        // close() ran meanwhile and may have missed this view: drop its reference here.
        view.release();
        throw new IllegalStateException("region is closed: " + this);
      }
    }
    return view.view;
  }

  /**
   * A root of the calling thread's own over the same memory (its own scratch NIO view), holding
   * one reference to the memory so that slices of it keep the memory allocated. Read-only
   * memory cannot be wrapped that way: its view is a plain wrapper whose slices hold no
   * reference (see docs/architecture.md, "Memory lifetime").
   */
  private ThreadView newThreadView() {
    if (readOnly) {
      ByteBuf root = Unpooled.wrappedBuffer(nio.duplicate().clear());
      return new ThreadView(root, Unpooled.unreleasableBuffer(root));
    }
    ByteBuf root = PrivateRoot.over(memory, 0, length);
    return new ThreadView(root, new SendView(root));
  }

  /** A thread's send view and the root it slices, whose one reference the region holds. */
  private record ThreadView(ByteBuf root, ByteBuf view) {
    void release() {
      root.release();
    }
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
    if ((state & CLOSING) != 0) {
      throw new IllegalStateException("region is closed: " + this);
    }
    return new ReceiveView(this, memory);
  }

  /**
   * The region a {@link #receiveView()} belongs to; null for any other buffer.
   *
   * @param buf a buffer
   * @return its region, or null
   */
  public static MemoryRegion regionOf(ByteBuf buf) {
    return buf instanceof ReceiveView v ? v.region : null;
  }

  /**
   * Atomically adds {@code delta} to the 8-octet native-order value at {@code offsetFromBase}
   * and returns the old value (the FetchAdd of RFC 7306).
   *
   * @param offsetFromBase the octet offset from the region's base, 8-aligned
   * @param delta the value to add
   * @return the value before the addition
   * @throws IllegalArgumentException when the target is not 8-octet aligned in memory
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed or read-only
   */
  public long getAndAddLong(long offsetFromBase, long delta) {
    int index = alignedIndex(offsetFromBase);
    pinLocal();
    try {
      return (long) LONGS.getAndAdd(nio, index, delta);
    } finally {
      unpin();
    }
  }

  /**
   * Atomically replaces the 8-octet native-order value at {@code offsetFromBase} with
   * {@code newValue} if it equals {@code expected}; returns the value found (the CmpSwap of
   * RFC 7306).
   *
   * @param offsetFromBase the octet offset from the region's base, 8-aligned
   * @param expected the value expected
   * @param newValue the value to store when it matches
   * @return the value found, whether or not it was replaced
   * @throws IllegalArgumentException when the target is not 8-octet aligned in memory
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed or read-only
   */
  public long compareAndExchangeLong(long offsetFromBase, long expected, long newValue) {
    int index = alignedIndex(offsetFromBase);
    pinLocal();
    try {
      return (long) LONGS.compareAndExchange(nio, index, expected, newValue);
    } finally {
      unpin();
    }
  }

  /**
   * The masked FetchAdd of RFC 7306 §5.1.1, atomic with respect to every other atomic on these
   * octets (remote or local): adds {@code addData} field by field, the fields ending at the set
   * bits of {@code addMask} ({@link MaskedArithmetic#fetchAdd}), and returns the old value. Mask 0
   * is {@link #getAndAddLong}.
   *
   * @param offsetFromBase the octet offset from the region's base, 8-aligned
   * @param addData the value to add
   * @param addMask the field boundaries
   * @return the value before the addition
   * @throws IllegalArgumentException when the target is not 8-octet aligned in memory
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed or read-only
   */
  public long getAndAddMaskedLong(long offsetFromBase, long addData, long addMask) {
    if (addMask == 0) {
      return getAndAddLong(offsetFromBase, addData);
    }
    int index = alignedIndex(offsetFromBase);
    pinLocal();
    try {
      return fetchAddMaskedAt(index, addData, addMask);
    } finally {
      unpin();
    }
  }

  /**
   * The masked CmpSwap of RFC 7306 §5.1.2, atomic with respect to every other atomic on these
   * octets: when the bits under {@code compareMask} equal those of {@code compareData}, replaces
   * the bits under {@code swapMask} with those of {@code swapData}; returns the old value.
   *
   * @param offsetFromBase the octet offset from the region's base, 8-aligned
   * @param compareData the comparand
   * @param compareMask the bits compared
   * @param swapData the replacement
   * @param swapMask the bits replaced
   * @return the value found, whether or not it was replaced
   * @throws IllegalArgumentException when the target is not 8-octet aligned in memory
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed or read-only
   */
  public long compareAndSwapMaskedLong(long offsetFromBase, long compareData, long compareMask,
      long swapData, long swapMask) {
    int index = alignedIndex(offsetFromBase);
    pinLocal();
    try {
      return cmpSwapMaskedAt(index, compareData, compareMask, swapData, swapMask);
    } finally {
      unpin();
    }
  }

  /**
   * Whether the 8 octets at {@code offsetFromBase} lie inside the region, are 8-octet aligned
   * in memory and writable, so the atomics may target them.
   *
   * @param offsetFromBase the octet offset from the region's base
   * @return true when an atomic may target them
   */
  public boolean isAtomicTarget(long offsetFromBase) {
    return !readOnly && offsetFromBase >= 0 && offsetFromBase <= length - Long.BYTES
        && nio.alignmentOffset((int) offsetFromBase, Long.BYTES) == 0;
  }

  /**
   * The remote side of an RFC 7306 FetchAdd: like {@link #getAndAddMaskedLong} for a caller
   * that already holds a pin ({@link #tryPin}) and checked the target ({@link #isAtomicTarget}).
   *
   * @param offsetFromBase the octet offset from the region's base
   * @param addData the value to add
   * @param addMask the field boundaries
   * @return the value before the addition
   */
  public long pinnedFetchAdd(long offsetFromBase, long addData, long addMask) {
    int index = (int) offsetFromBase;
    if (addMask == 0) {
      return (long) LONGS.getAndAdd(nio, index, addData);
    }
    return fetchAddMaskedAt(index, addData, addMask);
  }

  /**
   * The remote side of an RFC 7306 CmpSwap: like {@link #compareAndSwapMaskedLong} for a caller
   * that already holds a pin and checked the target.
   *
   * @param offsetFromBase the octet offset from the region's base
   * @param compareData the comparand
   * @param compareMask the bits compared
   * @param swapData the replacement
   * @param swapMask the bits replaced
   * @return the value found
   */
  public long pinnedCmpSwap(long offsetFromBase, long compareData, long compareMask,
      long swapData, long swapMask) {
    return cmpSwapMaskedAt((int) offsetFromBase, compareData, compareMask, swapData, swapMask);
  }

  private long fetchAddMaskedAt(int index, long addData, long addMask) {
    for (;;) {
      long old = (long) LONGS.getVolatile(nio, index);
      long next = MaskedArithmetic.fetchAdd(old, addData, addMask);
      if ((boolean) LONGS.compareAndSet(nio, index, old, next)) {
        return old;
      }
    }
  }

  private long cmpSwapMaskedAt(int index, long compareData, long compareMask, long swapData,
      long swapMask) {
    for (;;) {
      long old = (long) LONGS.getVolatile(nio, index);
      long next = MaskedArithmetic.cmpSwap(old, compareData, compareMask, swapData, swapMask);
      if (next == old || (boolean) LONGS.compareAndSet(nio, index, old, next)) {
        return old;
      }
    }
  }

  /**
   * Reads the 8-octet native-order value at {@code offsetFromBase} (plain read; any alignment).
   *
   * @param offsetFromBase the octet offset from the region's base
   * @return the value
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed
   */
  public long getLong(long offsetFromBase) {
    int index = longIndex(offsetFromBase);
    pinLocal();
    try {
      return (long) LONGS.get(nio, index);
    } finally {
      unpin();
    }
  }

  /**
   * Writes the 8-octet native-order value at {@code offsetFromBase} (plain write; any
   * alignment).
   *
   * @param offsetFromBase the octet offset from the region's base
   * @param value the value
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed or read-only
   */
  public void putLong(long offsetFromBase, long value) {
    int index = longIndex(offsetFromBase);
    checkWritable();
    pinLocal();
    try {
      LONGS.set(nio, index, value);
    } finally {
      unpin();
    }
  }

  /** Region index of the 8 octets at {@code offsetFromBase}; throws unless inside the region. */
  private int longIndex(long offsetFromBase) {
    if (offsetFromBase < 0 || offsetFromBase > length - Long.BYTES) {
      throw new IndexOutOfBoundsException("8 octets at region offset " + offsetFromBase
          + " outside region of length " + length + " (STag 0x" + Integer.toHexString(stag) + ")");
    }
    return (int) offsetFromBase;
  }

  /** Like {@link #longIndex}, and the target must be 8-octet aligned in memory and writable. */
  private int alignedIndex(long offsetFromBase) {
    int index = longIndex(offsetFromBase);
    if (nio.alignmentOffset(index, Long.BYTES) != 0) {
      throw new IllegalArgumentException("atomic target at region offset " + offsetFromBase
          + " is not 8-octet aligned in memory (RFC 7306 §5.1 requires 64-bit alignment)");
    }
    checkWritable();
    return index;
  }

  private void checkWritable() {
    if (readOnly) {
      throw new IllegalStateException("region is registered over read-only memory: " + this);
    }
  }

  /** Local accesses stay allowed after invalidation (only remote access is revoked) until close. */
  private void pinLocal() {
    if (!pin(CLOSING)) {
      throw new IllegalStateException("region is closed: " + this);
    }
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
    awaitUnpinned();
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
    setBits(INVALID | CLOSING);
    awaitUnpinned();
    if (RELEASED.compareAndSet(this, false, true)) {
      // Views handed out to other threads must fail from now on, not read freed memory.
      // Each thread root goes once the transport released the last slice cut from it.
      for (Thread t : threadViews.keySet()) {
        ThreadView view = threadViews.remove(t);
        if (view != null) {
          view.release();
        }
      }
      memory.release();
      table.release(StagTable.indexOf(stag));
      pd.detach();
      if (log.isDebugEnabled()) {
        log.debug("deregistered {}", this);
      }
    }
  }

  /** Sets state bits; on the first invalidation also removes the STag from the table. */
  private boolean setBits(int bits) {
    for (;;) {
      int s = state;
      if ((s & bits) == bits) {
        return false;
      }
      if (STATE.compareAndSet(this, s, s | bits)) {
        boolean firstInvalidation = (s & INVALID) == 0;
        if (firstInvalidation) {
          table.unpublish(this);
          if (log.isDebugEnabled()) {
            log.debug("invalidated STag 0x{}", Integer.toHexString(stag));
          }
        }
        return firstInvalidation;
      }
    }
  }

  /** Waits until no pin is held: spin briefly (a copy takes microseconds), then back off. */
  private void awaitUnpinned() {
    if ((state & COUNT_MASK) == 0) {
      return;
    }
    long deadline = System.nanoTime() + table.drainTimeoutNanos();
    int round = 0;
    int pins;
    while ((pins = state & COUNT_MASK) != 0) {
      if (round < 256) {
        Thread.onSpinWait();
      } else if (round < 512) {
        Thread.yield();
      } else {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(pins + " access(es) still in flight on " + this + " after "
              + table.drainTimeoutNanos() / 1_000_000 + " ms; a tryPin() was not followed by unpin()"
              + " (the memory stays allocated)");
        }
        LockSupport.parkNanos(10_000);
      }
      round++;
    }
  }

  @Override
  public String toString() {
    int s = state;
    String status = released ? "closed" : (s & INVALID) != 0 ? "invalid" : "valid";
    return "MemoryRegion{stag=0x" + Integer.toHexString(stag) + ", baseTo=0x" + Long.toHexString(baseTo)
        + ", length=" + length + ", access=" + AccessFlags.toString(access) + ", pd=" + pd.id()
        + ", " + status + (libraryAllocated ? ", allocated" : "") + "}";
  }
}
