package io.iwarp4j.verbs;

/**
 * Pins the regions of a send work request's SGEs while the queue pair cuts their slices: the
 * SGEs were checked when the request was issued, but an application thread may deregister a
 * region between that check and the cut. A pin makes the cut either happen before the region's
 * memory can be released (the retained slices then keep it allocated until the transport took
 * them) or not at all. One pin and one unpin per SGE; preallocated, event-loop confined.
 */
final class SgePins {
  private final io.iwarp4j.ddp.mem.MemoryRegion[] pinned;
  private int count;

  SgePins(int maxSge) {
    pinned = new io.iwarp4j.ddp.mem.MemoryRegion[Math.max(1, maxSge)];
  }

  /**
   * Pins the region of every SGE that is a {@link MemoryRegion} or a {@link FastRegisterRegion}.
   *
   * @return false, with nothing left pinned, when one was deregistered meanwhile
   */
  boolean pinAll(ScatterGatherList sgl) {
    int n = sgl.count();
    for (int i = 0; i < n; i++) {
      LocalBuffer b = sgl.buffer(i);
      if (b instanceof MemoryRegion || b instanceof FastRegisterRegion) {
        // A fast-register region's current registration: the one the SGE check looked up.
        io.iwarp4j.ddp.mem.MemoryRegion r = b instanceof MemoryRegion mr ? mr.region()
            : ((FastRegisterRegion) b).currentBinding();
        if (r == null || !r.tryPin()) {
          unpinAll();
          return false;
        }
        pinned[count++] = r;
      }
    }
    return true;
  }

  /** Releases every pin {@link #pinAll} took. */
  void unpinAll() {
    while (count > 0) {
      pinned[--count].unpin();
      pinned[count] = null;
    }
  }
}
