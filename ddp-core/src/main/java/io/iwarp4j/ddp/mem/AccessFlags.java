package io.iwarp4j.ddp.mem;

/**
 * Access rights of a {@link MemoryRegion}, as a bit set (the verbs flags; the values match
 * {@code IBV_ACCESS_*}). Local read access is implicit.
 *
 * <p>As in verbs, remote write and remote atomic access require local write access: memory the
 * network may modify must be memory the local side may modify.
 */
public final class AccessFlags {
  /** The local side (the Read Response sink, local atomics) may write the region. */
  public static final int LOCAL_WRITE = 1;
  /** A remote peer may write the region (RDMA Write). Requires {@link #LOCAL_WRITE}. */
  public static final int REMOTE_WRITE = 1 << 1;
  /** A remote peer may read the region (RDMA Read Request source). */
  public static final int REMOTE_READ = 1 << 2;
  /** A remote peer may run atomics on the region (RFC 7306). Requires {@link #LOCAL_WRITE}. */
  public static final int REMOTE_ATOMIC = 1 << 3;
  /**
   * Memory windows may be bound into the region ({@code IBV_ACCESS_MW_BIND}); grants no access
   * by itself.
   */
  public static final int MW_BIND = 1 << 4;
  /** No access beyond local read. */
  public static final int NONE = 0;

  private static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | MW_BIND;

  private AccessFlags() {
  }

  /**
   * Checks that {@code access} is a legal combination and returns it.
   *
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @return {@code access}
   * @throws IllegalArgumentException for unknown bits, or remote write / remote atomic access
   *     without local write access; the message names the flags
   */
  public static int validate(int access) {
    if ((access & ~ALL) != 0) {
      throw new IllegalArgumentException(String.format(
          "unknown access flag bits 0x%x in 0x%x (known: %s)", access & ~ALL, access, toString(ALL)));
    }
    if ((access & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (access & LOCAL_WRITE) == 0) {
      throw new IllegalArgumentException("access " + toString(access)
          + " grants " + toString(access & (REMOTE_WRITE | REMOTE_ATOMIC))
          + " without LOCAL_WRITE; remote write and remote atomic access require LOCAL_WRITE");
    }
    return access;
  }

  /**
   * True when every right in {@code required} is in {@code granted}.
   *
   * @param granted the access granted
   * @param required the access needed
   * @return true when every right in {@code required} is in {@code granted}
   */
  public static boolean allows(int granted, int required) {
    return (granted & required) == required;
  }

  /**
   * The flags as {@code "LOCAL_WRITE|REMOTE_READ"}, {@code "NONE"} for 0; unknown bits in hex.
   *
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @return the flags as {@code "LOCAL_WRITE|REMOTE_READ"}, {@code "NONE"} for 0; unknown bits in
   *     hex
   */
  public static String toString(int access) {
    if (access == 0) {
      return "NONE";
    }
    StringBuilder sb = new StringBuilder();
    append(sb, access, LOCAL_WRITE, "LOCAL_WRITE");
    append(sb, access, REMOTE_WRITE, "REMOTE_WRITE");
    append(sb, access, REMOTE_READ, "REMOTE_READ");
    append(sb, access, REMOTE_ATOMIC, "REMOTE_ATOMIC");
    append(sb, access, MW_BIND, "MW_BIND");
    if ((access & ~ALL) != 0) {
      if (sb.length() > 0) {
        sb.append('|');
      }
      sb.append("0x").append(Integer.toHexString(access & ~ALL));
    }
    return sb.toString();
  }

  private static void append(StringBuilder sb, int access, int flag, String name) {
    if ((access & flag) != 0) {
      if (sb.length() > 0) {
        sb.append('|');
      }
      sb.append(name);
    }
  }
}
