package io.iwarp4j.ddp.mem;

/**
 * How a {@link MemoryRegion} is registered, beyond its memory and access flags: which Tagged
 * Offset its first octet has (the base TO), and whether a peer may invalidate its STag.
 *
 * <p>Immutable; each {@code with}-style method returns a new instance. The defaults
 * ({@link #defaults()}) are: base TO = the memory's native address, the way verbs users (and
 * {@code rping}) advertise {@code addr}; remote invalidation not allowed.
 */
public final class RegionOptions {
  private static final RegionOptions DEFAULTS = new RegionOptions(BaseMode.NATIVE_ADDRESS, 0, false);

  /** Where the base TO comes from. */
  enum BaseMode {
    NATIVE_ADDRESS, ZERO, EXPLICIT
  }

  private final BaseMode baseMode;
  private final long baseTo;
  private final boolean remoteInvalidation;

  private RegionOptions(BaseMode baseMode, long baseTo, boolean remoteInvalidation) {
    this.baseMode = baseMode;
    this.baseTo = baseTo;
    this.remoteInvalidation = remoteInvalidation;
  }

  /**
   * Base TO = native address, remote invalidation not allowed.
   *
   * @return the default options
   */
  public static RegionOptions defaults() {
    return DEFAULTS;
  }

  /**
   * These options with the base TO set to the memory's native address (the default).
   *
   * @return these options with the base TO set to the memory's native address (the default)
   */
  public RegionOptions nativeAddressBase() {
    return new RegionOptions(BaseMode.NATIVE_ADDRESS, 0, remoteInvalidation);
  }

  /**
   * These options with a zero-based region: the first octet has TO 0.
   *
   * @return these options with a zero-based region: the first octet has TO 0
   */
  public RegionOptions zeroBased() {
    return new RegionOptions(BaseMode.ZERO, 0, remoteInvalidation);
  }

  /**
   * These options with the caller's base TO (any unsigned 64-bit value; registration refuses
   * one where {@code base + length} does not fit in 64 bits).
   *
   * @param baseTo the base tagged offset
   * @return these options with the caller's base TO (any unsigned 64-bit value; registration
   *     refuses one where {@code base + length} does not fit in 64 bits)
   */
  public RegionOptions baseTo(long baseTo) {
    return new RegionOptions(BaseMode.EXPLICIT, baseTo, remoteInvalidation);
  }

  /**
   * These options with remote invalidation (Send with Invalidate) allowed or not. Allow it only
   * for an STag that a single stream uses (RFC 5040 §8.1.1 item 7).
   *
   * @param allowed whether a peer may invalidate the STag
   * @return these options with remote invalidation (Send with Invalidate) allowed or not
   */
  public RegionOptions allowRemoteInvalidation(boolean allowed) {
    return new RegionOptions(baseMode, baseTo, allowed);
  }

  BaseMode baseMode() {
    return baseMode;
  }

  /** The explicit base TO; meaningful only in {@link BaseMode#EXPLICIT}. */
  long explicitBaseTo() {
    return baseTo;
  }

  /**
   * True when a peer may invalidate the region's STag.
   *
   * @return true when a peer may invalidate the region's STag
   */
  public boolean remoteInvalidationAllowed() {
    return remoteInvalidation;
  }

  @Override
  public String toString() {
    String base = switch (baseMode) {
      case NATIVE_ADDRESS -> "native address";
      case ZERO -> "0";
      case EXPLICIT -> "0x" + Long.toHexString(baseTo);
    };
    return "RegionOptions{baseTo=" + base + ", remoteInvalidation=" + remoteInvalidation + "}";
  }
}
