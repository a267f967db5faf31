package io.iwarp4j.ddp.mem;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The lifetime state word of one {@link MemoryRegion}: the number of pins held and the INVALID
 * and CLOSING bits, in one atomic int. A pin is a compare-and-set that succeeds only while the
 * bits it is refused by are clear, so once a bit is set no new pin of that kind succeeds, and
 * {@link #awaitUnpinned} then waits out every pin taken before (see {@link MemoryRegion} for why
 * that keeps placement out of released memory). Lock-free; pinning allocates nothing.
 */
final class RegionLifetime {
  /** No new remote access (placement) may start. */
  static final int INVALID = 1 << 31;
  /** Deregistration has started: no new access of any kind may start. */
  static final int CLOSING = 1 << 30;
  private static final int COUNT_MASK = CLOSING - 1;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(RegionLifetime.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final MemoryRegion region;

  /** INVALID and CLOSING bits plus the number of pins held. */
  @SuppressWarnings("unused")
  private volatile int state;

  RegionLifetime(MemoryRegion region) {
    this.region = region;
  }

  /** Whether any of {@code bits} is set. */
  boolean has(int bits) {
    return (state & bits) != 0;
  }

  /** Whether at least one pin is held. */
  boolean pinned() {
    return (state & COUNT_MASK) != 0;
  }

  /** Takes a pin unless one of {@code refusingBits} is set. */
  boolean pin(int refusingBits) {
    for (;;) {
      int s = state;
      if ((s & refusingBits) != 0) {
        return false;
      }
      if ((s & COUNT_MASK) == COUNT_MASK) {
        throw new IllegalStateException("too many pins on " + region);
      }
      if (STATE.compareAndSet(this, s, s + 1)) {
        return true;
      }
    }
  }

  /** Releases one pin. */
  void unpin() {
    for (;;) {
      int s = state;
      if ((s & COUNT_MASK) == 0) {
        throw new IllegalStateException("unpin() without a matching successful tryPin() on "
            + region);
      }
      if (STATE.compareAndSet(this, s, s - 1)) {
        return;
      }
    }
  }

  /**
   * Sets {@code bits}.
   *
   * @return whether this call set INVALID (the first invalidation)
   */
  boolean set(int bits) {
    for (;;) {
      int s = state;
      if ((s & bits) == bits) {
        return false;
      }
      if (STATE.compareAndSet(this, s, s | bits)) {
        return (s & INVALID) == 0;
      }
    }
  }

  /**
   * Waits until no pin is held: spin briefly (a copy takes microseconds), then back off.
   *
   * @throws IllegalStateException after {@code timeoutNanos} with pins still held
   */
  void awaitUnpinned(long timeoutNanos) {
    if ((state & COUNT_MASK) == 0) {
      return;
    }
    long deadline = System.nanoTime() + timeoutNanos;
    int round = 0;
    int pins;
    while ((pins = state & COUNT_MASK) != 0) {
      if (round < 256) {
        Thread.onSpinWait();
      } else if (round < 512) {
        Thread.yield();
      } else {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(pins + " access(es) still in flight on " + region
              + " after " + timeoutNanos / 1_000_000 + " ms; a tryPin() was not followed by"
              + " unpin() (the memory stays allocated)");
        }
        LockSupport.parkNanos(10_000);
      }
      round++;
    }
  }
}
