package io.iwarp4j.ddp.mem;

import java.util.ArrayList;
import java.util.List;

/**
 * The memory windows bound into one {@link MemoryRegion}: deregistering the region invalidates
 * them first (nothing is placed through a window into deregistered memory), and a region that is
 * closing takes no new binding. Registration-time bookkeeping only: the data path never looks at
 * it. Guarded by this object's monitor; windows are invalidated outside it.
 */
final class BoundWindows {
  private List<MemoryWindow> windows;
  private boolean closed;

  /** Records a binding; false once the region is being deregistered. */
  synchronized boolean add(MemoryWindow w) {
    if (closed) {
      return false;
    }
    if (windows == null) {
      windows = new ArrayList<>(2);
    }
    windows.add(w);
    return true;
  }

  synchronized void remove(MemoryWindow w) {
    if (windows != null) {
      windows.remove(w);
    }
  }

  /** The windows whose binding into this region is valid now. */
  synchronized List<MemoryWindow> valid() {
    List<MemoryWindow> out = new ArrayList<>();
    if (windows != null) {
      for (MemoryWindow w : windows) {
        if (w.isValid()) {
          out.add(w);
        }
      }
    }
    return out;
  }

  /** Takes no more bindings and invalidates every window bound so far. */
  void invalidateAll() {
    List<MemoryWindow> copy;
    synchronized (this) {
      closed = true;
      if (windows == null || windows.isEmpty()) {
        return;
      }
      copy = new ArrayList<>(windows);
    }
    for (MemoryWindow w : copy) {
      w.invalidateBindingInto(this);
    }
  }
}
