package io.iwarp4j.verbs;

/**
 * Pins the regions of a send work request's SGEs while the queue pair cuts their slices: the
 * SGEs were checked when the request was issued, but an application thread may deregister a
 * region between that check and the cut. A pin makes the cut either happen before the region's
 * memory can be released (the retained slices then keep it allocated until the transport took
 * them) or not at all.
 *
 * <p>One pin is kept for the rest of an issue batch: the first region a batch pins stays pinned
 * until {@link #releaseHeld()}, so a batch of work requests from one region (the common case)
 * costs one pin and one unpin instead of one per work request. A work request that finds its
 * region held checks that it is still valid, which is what a new pin would check (INVALID is set
 * by invalidation and by deregistration alike), and deregistration waits for the held pin as for
 * any other. The issuer releases it before anything that may run application code (the flush,
 * an error), so a listener that deregisters the region on this loop never waits for it.
 * Preallocated, event-loop confined.
 */
final class SgePins {
  private final io.iwarp4j.ddp.mem.MemoryRegion[] pinned;
  private int count;
  /** The region pinned for the rest of the issue batch, or null. */
  private io.iwarp4j.ddp.mem.MemoryRegion held;

  SgePins(int maxSge) {
    pinned = new io.iwarp4j.ddp.mem.MemoryRegion[Math.max(1, maxSge)];
  }

  /**
   * Pins the region of every SGE that is a {@link MemoryRegion} or a {@link FastRegisterRegion}
   * (or, for the held region, checks that it is still valid).
   *
   * @return false, with nothing but the held region left pinned, when one was invalidated or
   *     deregistered meanwhile
   */
  boolean pinAll(ScatterGatherList sgl) {
    int n = sgl.count();
    for (int i = 0; i < n; i++) {
      LocalBuffer b = sgl.buffer(i);
      if (b instanceof MemoryRegion || b instanceof FastRegisterRegion) {
        // A fast-register region's current registration: the one the SGE check looked up.
        io.iwarp4j.ddp.mem.MemoryRegion r = b instanceof MemoryRegion mr ? mr.region()
            : ((FastRegisterRegion) b).currentBinding();
        if (r != null && r == held) {
          if (!r.isValid()) {
            unpinAll();
            return false;
          }
          continue;
        }
        if (r == null || !r.tryPin()) {
          unpinAll();
          return false;
        }
        pinned[count++] = r;
      }
    }
    return true;
  }

  /**
   * Releases every pin {@link #pinAll} took, but keeps one for the rest of the batch when none
   * is held yet.
   */
  void unpinAll() {
    while (count > 0) {
      io.iwarp4j.ddp.mem.MemoryRegion r = pinned[--count];
      pinned[count] = null;
      if (held == null && r.isValid()) {
        held = r;
      } else {
        r.unpin();
      }
    }
  }

  /** Releases the pin kept for the batch: at the end of each issue batch, and before errors. */
  void releaseHeld() {
    io.iwarp4j.ddp.mem.MemoryRegion r = held;
    if (r != null) {
      held = null;
      r.unpin();
    }
  }
}
