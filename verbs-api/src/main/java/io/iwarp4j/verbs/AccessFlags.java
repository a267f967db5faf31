package io.iwarp4j.verbs;

/**
 * Access rights of a {@link MemoryRegion}, the counterpart of {@code IBV_ACCESS_*}: an
 * {@code int} bit set passed to {@link ProtectionDomain#register} and
 * {@link ProtectionDomain#allocate}, and returned by {@link MemoryRegion#access()}. Local read
 * access is implicit. As in verbs, remote write and remote atomic access require local write
 * access; registration refuses other combinations with an exception naming the flags.
 */
public final class AccessFlags {
  /** The local side may write the region (receives, the Read Response sink, atomic results). */
  public static final int LOCAL_WRITE = 1;
  /** A remote peer may write the region (RDMA Write). Requires {@link #LOCAL_WRITE}. */
  public static final int REMOTE_WRITE = 1 << 1;
  /** A remote peer may read the region (the source of its RDMA Read). */
  public static final int REMOTE_READ = 1 << 2;
  /** A remote peer may run RFC 7306 atomics on the region. Requires {@link #LOCAL_WRITE}. */
  public static final int REMOTE_ATOMIC = 1 << 3;
  /** No access beyond local read. */
  /**
   * Memory windows may be bound into the region ({@code IBV_ACCESS_MW_BIND}); without it a
   * {@link WorkRequestOpcode#BIND_MW} into the region completes with
   * {@link WcStatus#MW_BIND_ERR}. Grants no access by itself.
   */
  public static final int MW_BIND = 1 << 4;
  /** No access beyond local read. */
  public static final int NONE = 0;

  private AccessFlags() {
  }

  /**
   * The flags as text, such as {@code "LOCAL_WRITE|REMOTE_READ"}; {@code "NONE"} for 0, unknown
   * bits in hex.
   *
   * @param access an {@link AccessFlags} bit set
   * @return the names of the flags that are set
   */
  public static String toString(int access) {
    // The DDP layer's flags have the same values (AccessFlagsTest): one table of names.
    return io.iwarp4j.ddp.mem.AccessFlags.toString(access);
  }
}
