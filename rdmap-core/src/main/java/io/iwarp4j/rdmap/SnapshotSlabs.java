package io.iwarp4j.rdmap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Slabs of pooled direct memory that one thread (an event loop) cuts its Read Response
 * snapshots from, reused for as long as the thread lives.
 *
 * <p><b>Why.</b> A snapshot allocated on its own is a fresh pooled root buffer. At depth the
 * snapshots in flight (128 × 64 KiB = 8 MiB on one queue pair) make Netty's arena create and
 * destroy chunks continually, and a buffer from a new chunk has no cached NIO view, so the CRC
 * over it creates a {@code DirectByteBuffer} per response (JFR: ~90 B per 64 KiB Read, plus the
 * chunk's own bookkeeping and the arena's lock). A snapshot cut as a retained slice of a slab is a
 * recycled derived buffer whose root is the slab: CRC32C reads it through the slab's one cached
 * view, and the arena is not touched.
 *
 * <p><b>How.</b> Snapshots are cut one after another from the current slab. When it is full the
 * next slab whose reference count is back to 1 (only this class holds it: every snapshot cut
 * from it was released by the transport) becomes current; when none is free a new slab is
 * allocated, up to {@link #MAX_SLABS}. A snapshot larger than a slab, or one that finds every
 * slab busy at the limit, is not served ({@link #take} returns null) and the caller allocates it
 * on its own as before. Memory kept per thread is therefore at most {@code MAX_SLABS ×
 * SLAB_SIZE} (8 MiB), in addition to what the device's {@link ReadResponseCopyBudget} charges per
 * snapshot. The slabs are released when the thread ends (Netty's event loops run
 * {@link FastThreadLocal#removeAll()} before their termination future completes) or by
 * {@link #releaseCurrentThread()}.
 *
 * <p>Thread-confined: each thread has its own slabs, so nothing here is shared or locked.
 */
final class SnapshotSlabs {
  /** Octets per slab. */
  static final int SLAB_SIZE = 1 << 20;
  /** Slabs kept per thread. */
  static final int MAX_SLABS = 8;
  /** Snapshots start on this alignment inside a slab (a cache line). */
  private static final int ALIGN = 64;

  private static final FastThreadLocal<SnapshotSlabs> LOCAL = new FastThreadLocal<>() {
    @Override
    protected SnapshotSlabs initialValue() {
      return new SnapshotSlabs();
    }

    @Override
    protected void onRemoval(SnapshotSlabs slabs) {
      slabs.releaseAll();
    }
  };

  private final ByteBuf[] slabs = new ByteBuf[MAX_SLABS];
  private int count;
  private int current = -1;
  private int position;

  /** The calling thread's slabs. */
  static SnapshotSlabs current() {
    return LOCAL.get();
  }

  /** Releases the calling thread's slabs (tests, and threads that are not event loops). */
  static void releaseCurrentThread() {
    if (LOCAL.isSet()) {
      LOCAL.remove();
    }
  }

  /**
   * A buffer of exactly {@code size} readable octets (contents undefined) cut from a slab, or
   * null when {@code size} exceeds a slab or every slab is in use and no more may be made.
   *
   * @param alloc where a new slab comes from
   * @param size octets, positive
   * @return a retained slice of a slab (the caller releases it), or null
   */
  ByteBuf take(ByteBufAllocator alloc, int size) {
    if (size > SLAB_SIZE) {
      return null;
    }
    if (current < 0 || position + size > SLAB_SIZE) {
      if (!switchSlab(alloc)) {
        return null;
      }
    }
    ByteBuf copy = slabs[current].retainedSlice(position, size);
    position = Math.min(SLAB_SIZE, (position + size + ALIGN - 1) & -ALIGN);
    return copy;
  }

  /** Makes a free (or new) slab current, from its start; false when none can be had. */
  private boolean switchSlab(ByteBufAllocator alloc) {
    // Round robin from the slab after the current one, so the current one (most likely still
    // being sent) is looked at last.
    for (int k = 1; k <= count; k++) {
      int i = (current + k) % count;
      if (slabs[i].refCnt() == 1) {
        current = i;
        position = 0;
        return true;
      }
    }
    if (count == MAX_SLABS) {
      return false;
    }
    ByteBuf slab;
    try {
      slab = alloc.directBuffer(SLAB_SIZE, SLAB_SIZE);
    } catch (OutOfMemoryError e) {
      return false;
    }
    slabs[count] = slab;
    current = count++;
    position = 0;
    return true;
  }

  /** Slabs allocated by this thread and not released. */
  int slabCount() {
    return count;
  }

  /** Gives every slab back; snapshots still in flight keep their slab alive until released. */
  private void releaseAll() {
    for (int i = 0; i < count; i++) {
      slabs[i].release();
      slabs[i] = null;
    }
    count = 0;
    current = -1;
    position = 0;
  }
}
