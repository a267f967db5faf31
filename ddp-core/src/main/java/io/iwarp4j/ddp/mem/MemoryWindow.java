package io.iwarp4j.ddp.mem;

import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A memory window ({@code ibv_alloc_mw}): one STag slot of a {@link ProtectionDomain} that a
 * bind gives a range of an existing region, remote access rights (a subset of the region's), a
 * new key and, for a type 2 window, the one stream that may use it (RFC 5041 §8.2, RFC 5040
 * §8.1.1 item 2).
 *
 * <p><b>States.</b> INVALID (allocated, or its last binding invalidated) → {@link #bind} → VALID
 * → local invalidation, a peer's Send with Invalidate (on the bound stream only), closing the
 * window or deregistering the region it is bound into → INVALID. A bind is refused unless the
 * window is INVALID (a type 2 window is rebound only once invalid), the STag names this slot
 * with a new key, the region is valid, of this domain and registered with
 * {@link AccessFlags#MW_BIND}, the range lies inside it and the access is a subset of its own.
 *
 * <p><b>Memory.</b> Each binding is a {@link MemoryRegion} of its own over a slice of the
 * region's memory (its {@link MemoryRegion#memoryWindow()} is this, its
 * {@link MemoryRegion#scope()} the stream), published in this window's slot: lookups, checks,
 * pins, placement and remote invalidation are those of any region, and the stream check is one
 * field compare. A peer may invalidate a stream-scoped binding (from its stream); one without a
 * stream (type 1, shared by the domain's streams) it may not (RFC 5040 §8.1.1 item 7). The region records its windows and invalidates them before it is deregistered.
 *
 * <p><b>Threading.</b> {@link #bind}, {@link #invalidate()} and {@link #close()} take this
 * object's monitor; the read side is lock-free.
 */
public final class MemoryWindow extends StagSlot {
  private static final Logger log = LoggerFactory.getLogger(MemoryWindow.class);

  /** The access bits a window may grant. */
  private static final int REMOTE = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_ATOMIC;

  /** The region the latest binding is into, or null. */
  private MemoryRegion parent;

  MemoryWindow(StagTable table, ProtectionDomain pd, int stag) {
    super(table, pd, stag);
  }

  /**
   * Binds {@code [offset, offset + length)} of {@code region} under {@code newStag} with
   * {@code access}, usable only on the stream {@code scope} names (null: on every stream of the
   * domain, a type 1 window). The base TO is the region's base TO plus {@code offset}.
   *
   * @param newStag this window's slot with a key other than the current one
   * @param region the region to bind into, registered with {@link AccessFlags#MW_BIND}
   * @param offset the first octet of the region bound
   * @param length the octets bound, at least 1
   * @param access REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC, each granted by the region too
   * @param scope the stream identity (its DDP stream), or null
   * @return the binding
   * @throws IllegalStateException when the window is closed or still VALID, or the region is
   *     invalid or being deregistered
   * @throws IllegalArgumentException for an STag of another slot or with the current key, a
   *     region of another domain or without MW_BIND, a range outside it, or access it does not
   *     grant
   */
  public synchronized MemoryRegion bind(int newStag, MemoryRegion region, long offset, int length,
      int access, Object scope) {
    Objects.requireNonNull(region, "region");
    checkNewStag(newStag, "memory window", "is still bound: invalidate it before binding it again",
        "bind");
    MemoryRegion old = binding;
    if (region.pd() != pd) {
      throw new IllegalArgumentException("region " + region + " belongs to another protection"
          + " domain than the window (" + pd + ")");
    }
    if ((region.access() & AccessFlags.MW_BIND) == 0) {
      throw new IllegalArgumentException("region " + region + " was not registered with MW_BIND"
          + " access: no window may be bound into it");
    }
    if ((access & ~REMOTE) != 0 || access == 0) {
      throw new IllegalArgumentException("window access " + AccessFlags.toString(access)
          + " must be one or more of REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC");
    }
    if (!AccessFlags.allows(region.access(), access)) {
      throw new IllegalArgumentException("window access " + AccessFlags.toString(access)
          + " exceeds the region's " + AccessFlags.toString(region.access()));
    }
    if (length <= 0 || offset < 0 || offset > region.length() - (long) length) {
      throw new IllegalArgumentException("window range [" + offset + ", +" + length
          + ") is empty or outside the region's " + region.length() + " octets");
    }
    if (!region.boundWindows().add(this)) {
      throw new IllegalStateException("region " + region + " is being deregistered");
    }
    MemoryRegion next;
    boolean done = false;
    try {
      if (!region.tryPin()) {
        throw new IllegalStateException("region " + region + " is not valid: no window may be"
            + " bound into it");
      }
      try {
        int regionAccess = (access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0
            ? access | AccessFlags.LOCAL_WRITE : access;
        next = pd.bindWindow(this, newStag, region.baseTo() + offset,
            region.memory().retainedSlice((int) offset, length), regionAccess, scope);
      } finally {
        region.unpin();
      }
      done = true;
    } finally {
      if (!done) {
        region.boundWindows().remove(this);
      }
    }
    if (old != null) {
      old.close(); // invalid and drained: drops its slice of the old region's memory
      if (parent != null && parent != region) {
        parent.boundWindows().remove(this);
      }
    }
    parent = region;
    publish(next, newStag);
    if (log.isDebugEnabled()) {
      log.debug("bound memory window {}{}", next, scope == null ? "" : " to one stream");
    }
    return next;
  }

  /** The region {@code windows} belongs to is being deregistered: invalidate a binding into it. */
  synchronized void invalidateBindingInto(BoundWindows windows) {
    MemoryRegion b = binding;
    if (b != null && parent != null && parent.boundWindows() == windows) {
      b.invalidate();
    }
  }

  /** Deregisters the current binding and gives the slot back. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    if (parent != null) {
      parent.boundWindows().remove(this);
      parent = null;
    }
    closeSlot();
  }

  @Override
  public String toString() {
    return "MemoryWindow{stag=0x" + Integer.toHexString(stag) + ", pd=" + pd.id() + ", "
        + stateName() + "}";
  }
}
