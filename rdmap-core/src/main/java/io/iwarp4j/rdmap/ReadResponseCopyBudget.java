package io.iwarp4j.rdmap;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many octets of Read Response snapshots may exist at once, shared by every stream of a
 * device (all its event loops). With CRC on, a Data Source copies the source range of each Read
 * Response once and sends the copy, so the CRC the framer computes always matches the octets the
 * socket later sends (see {@link ReadResponder}). Each copy is charged here from the moment it
 * is made until the transport took its response (or the connection closed): a peer that asks
 * for IRD multi-GiB Reads on many queue pairs and never reads its socket holds at most this many
 * copied octets. A response that does not fit is sent without a copy, as with CRC off.
 *
 * <p>Thread-safe: one atomic update per Read Response (not per segment), no lock.
 */
public final class ReadResponseCopyBudget {
  /** The default capacity: 64 MiB. */
  public static final long DEFAULT_CAPACITY = 64L << 20;

  private final long capacity;
  private final AtomicLong inUse = new AtomicLong();

  /**
   * A budget of {@code capacity} octets.
   *
   * @param capacity the most octets charged at once; 0 means no Read Response is ever copied
   * @throws IllegalArgumentException when {@code capacity} is negative
   */
  public ReadResponseCopyBudget(long capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("Read Response copy budget " + capacity
          + " is negative");
    }
    this.capacity = capacity;
  }

  /**
   * The most octets charged at once.
   *
   * @return the capacity given to the constructor
   */
  public long capacity() {
    return capacity;
  }

  /**
   * Octets charged now: snapshots made whose response the transport has not taken yet.
   *
   * @return octets charged now
   */
  public long inUse() {
    return inUse.get();
  }

  /** Charges {@code octets} (positive) if they fit; false, charging nothing, if not. */
  boolean tryAcquire(long octets) {
    long used = inUse.get();
    while (octets <= capacity - used) {
      long witness = inUse.compareAndExchange(used, used + octets);
      if (witness == used) {
        return true;
      }
      used = witness;
    }
    return false;
  }

  /** Gives back {@code octets} charged by {@link #tryAcquire}. */
  void release(long octets) {
    long left = inUse.addAndGet(-octets);
    if (left < 0) {
      throw new IllegalStateException("Read Response copy budget released " + octets
          + " octets more than charged (" + left + ")");
    }
  }

  @Override
  public String toString() {
    return "ReadResponseCopyBudget{" + inUse() + "/" + capacity + "}";
  }
}
