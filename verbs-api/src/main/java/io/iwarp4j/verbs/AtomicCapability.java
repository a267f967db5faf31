package io.iwarp4j.verbs;

/**
 * How atomic a device's RFC 7306 Atomics are, the counterpart of the verbs
 * {@code ibv_atomic_cap} ({@code IBV_ATOMIC_NONE}, {@code IBV_ATOMIC_HCA}).
 */
public enum AtomicCapability {
  /** No Atomic Operations (RFC 7306 is disabled; Linux siw reports this). */
  NONE,
  /**
   * Atomic with respect to every Atomic the device performs, on any queue pair and event loop,
   * and to local atomics through {@link MemoryRegion#getAndAddLong} and its siblings (RFC 7306
   * §5.3 asks for the former). Plain loads and stores by the application are not atomic with
   * them.
   */
  DEVICE
}
