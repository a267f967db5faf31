package io.iwarp4j.verbs;

/**
 * How a {@link MemoryRegion} is registered beyond its memory and {@link AccessFlags}: the Tagged
 * Offset of its first octet (the verbs {@code addr}, or the {@code iova} of
 * {@code ibv_reg_mr_iova}), and whether a peer may invalidate its STag.
 *
 * <p>Immutable; each method returns new options. The {@link #defaults()}: base TO = the memory's
 * native address, as verbs users (and {@code rping}) advertise it; remote invalidation not
 * allowed.
 */
public final class RegionOptions {
  private static final RegionOptions DEFAULTS =
      new RegionOptions(io.iwarp4j.ddp.mem.RegionOptions.defaults());

  private final io.iwarp4j.ddp.mem.RegionOptions options;

  private RegionOptions(io.iwarp4j.ddp.mem.RegionOptions options) {
    this.options = options;
  }

  /**
   * Base TO = the memory's native address, remote invalidation not allowed.
   *
   * @return the default options
   */
  public static RegionOptions defaults() {
    return DEFAULTS;
  }

  /**
   * These options with the base TO at the memory's native address (the default).
   *
   * @return new options
   */
  public RegionOptions nativeAddressBase() {
    return new RegionOptions(options.nativeAddressBase());
  }

  /**
   * These options with a zero-based region: its first octet has TO 0.
   *
   * @return new options
   */
  public RegionOptions zeroBased() {
    return new RegionOptions(options.zeroBased());
  }

  /**
   * These options with the caller's base TO: any unsigned 64-bit value (registration refuses one
   * where {@code base + length} does not fit in 64 bits).
   *
   * @param baseTo the Tagged Offset of the region's first octet
   * @return new options
   */
  public RegionOptions baseTo(long baseTo) {
    return new RegionOptions(options.baseTo(baseTo));
  }

  /**
   * These options with remote invalidation (a peer's Send with Invalidate) allowed or not.
   * Allow it only for an STag that a single connection uses (RFC 5040 §8.1.1 item 7).
   *
   * @param allowed whether a peer may invalidate the region's STag
   * @return new options
   */
  public RegionOptions allowRemoteInvalidation(boolean allowed) {
    return new RegionOptions(options.allowRemoteInvalidation(allowed));
  }

  /**
   * Whether a peer may invalidate the region's STag.
   *
   * @return true when remote invalidation is allowed
   */
  public boolean remoteInvalidationAllowed() {
    return options.remoteInvalidationAllowed();
  }

  /** The DDP layer's options these stand for. */
  io.iwarp4j.ddp.mem.RegionOptions ddp() {
    return options;
  }

  @Override
  public String toString() {
    return options.toString();
  }
}
