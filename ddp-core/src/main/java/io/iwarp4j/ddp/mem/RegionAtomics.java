package io.iwarp4j.ddp.mem;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 8-octet accesses of one {@link MemoryRegion}: the RFC 7306 atomics (plain and masked,
 * atomic with respect to each other on the same octets, remote or local) and plain native-order
 * reads and writes, with their bounds, alignment and writability checks. The {@code local}
 * methods serve the application: they pin the region around the access (allowed after
 * invalidation, refused once it is closing); the others serve a caller that holds a pin. No
 * allocation.
 */
final class RegionAtomics {
  /** Aligned 8-octet accesses in native byte order, atomic where the hardware is. */
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

  private final MemoryRegion region;
  private final RegionLifetime lifetime;
  private final ByteBuffer nio;
  private final int length;
  private final boolean readOnly;

  RegionAtomics(MemoryRegion region, RegionLifetime lifetime, ByteBuffer nio, boolean readOnly) {
    this.region = region;
    this.lifetime = lifetime;
    this.nio = nio;
    this.length = nio.capacity();
    this.readOnly = readOnly;
  }

  /** Region index of the 8 octets at {@code offsetFromBase}; throws unless inside the region. */
  private int longIndex(long offsetFromBase) {
    if (offsetFromBase < 0 || offsetFromBase > length - Long.BYTES) {
      throw new IndexOutOfBoundsException("8 octets at region offset " + offsetFromBase
          + " outside region of length " + length + " (STag 0x"
          + Integer.toHexString(region.stag()) + ")");
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
      throw new IllegalStateException("region is registered over read-only memory: " + region);
    }
  }

  /** {@link MemoryRegion#isAtomicTarget}. */
  boolean isTarget(long offsetFromBase) {
    return !readOnly && offsetFromBase >= 0 && offsetFromBase <= length - Long.BYTES
        && nio.alignmentOffset((int) offsetFromBase, Long.BYTES) == 0;
  }

  /** {@link MemoryRegion#getAndAddLong}. */
  long localGetAndAdd(long offsetFromBase, long delta) {
    int index = alignedIndex(offsetFromBase);
    pinLocal();
    try {
      return getAndAdd(index, delta);
    } finally {
      lifetime.unpin();
    }
  }

  /** {@link MemoryRegion#compareAndExchangeLong}. */
  long localCompareAndExchange(long offsetFromBase, long expected, long newValue) {
    int index = alignedIndex(offsetFromBase);
    pinLocal();
    try {
      return (long) LONGS.compareAndExchange(nio, index, expected, newValue);
    } finally {
      lifetime.unpin();
    }
  }

  /** {@link MemoryRegion#getAndAddMaskedLong}. */
  long localFetchAddMasked(long offsetFromBase, long addData, long addMask) {
    int index = alignedIndex(offsetFromBase);
    pinLocal();
    try {
      return fetchAddMasked(index, addData, addMask);
    } finally {
      lifetime.unpin();
    }
  }

  /** {@link MemoryRegion#compareAndSwapMaskedLong}. */
  long localCmpSwapMasked(long offsetFromBase, long compareData, long compareMask,
      long swapData, long swapMask) {
    int index = alignedIndex(offsetFromBase);
    pinLocal();
    try {
      return cmpSwapMasked(index, compareData, compareMask, swapData, swapMask);
    } finally {
      lifetime.unpin();
    }
  }

  /** {@link MemoryRegion#getLong}. */
  long localGet(long offsetFromBase) {
    int index = longIndex(offsetFromBase);
    pinLocal();
    try {
      return (long) LONGS.get(nio, index);
    } finally {
      lifetime.unpin();
    }
  }

  /** {@link MemoryRegion#putLong}. */
  void localSet(long offsetFromBase, long value) {
    int index = longIndex(offsetFromBase);
    checkWritable();
    pinLocal();
    try {
      LONGS.set(nio, index, value);
    } finally {
      lifetime.unpin();
    }
  }

  /** Local accesses stay allowed after invalidation (only remote access is revoked) until close. */
  private void pinLocal() {
    if (!lifetime.pin(RegionLifetime.CLOSING)) {
      throw new IllegalStateException("region is closed: " + region);
    }
  }

  private long getAndAdd(int index, long delta) {
    return (long) LONGS.getAndAdd(nio, index, delta);
  }

  /** The masked FetchAdd ({@link MaskedArithmetic#fetchAdd}); mask 0 is {@link #getAndAdd}. */
  long fetchAddMasked(int index, long addData, long addMask) {
    if (addMask == 0) {
      return getAndAdd(index, addData);
    }
    for (;;) {
      long old = (long) LONGS.getVolatile(nio, index);
      long next = MaskedArithmetic.fetchAdd(old, addData, addMask);
      if ((boolean) LONGS.compareAndSet(nio, index, old, next)) {
        return old;
      }
    }
  }

  /** The masked CmpSwap ({@link MaskedArithmetic#cmpSwap}); returns the value found. */
  long cmpSwapMasked(int index, long compareData, long compareMask, long swapData,
      long swapMask) {
    for (;;) {
      long old = (long) LONGS.getVolatile(nio, index);
      long next = MaskedArithmetic.cmpSwap(old, compareData, compareMask, swapData, swapMask);
      if (next == old || (boolean) LONGS.compareAndSet(nio, index, old, next)) {
        return old;
      }
    }
  }

}
