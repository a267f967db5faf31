package io.iwarp4j.verbs;

/**
 * What a {@link WorkRequestOpcode#BIND_MW} work request binds ({@code struct ibv_mw_bind}): a
 * window, its new STag, and a range and access rights of a region. Held by the
 * {@link SendWorkRequest}; copied with it.
 */
final class WindowBind {
  private MemoryWindow window;
  private int stag;
  private MemoryRegion region;
  private long offset;
  private int length;
  private int access;
  /** Set by {@link QueuePair#bindMemoryWindow} (a type 1 bind), not by the application. */
  private boolean verbCall;

  void set(MemoryWindow window, int stag, MemoryRegion region, long offset, int length,
      int access) {
    this.verbCall = false;
    this.window = window;
    this.stag = stag;
    this.region = region;
    this.offset = offset;
    this.length = length;
    this.access = access;
  }

  void clear() {
    set(null, 0, null, 0, 0, 0);
  }

  void copyFrom(WindowBind other) {
    set(other.window, other.stag, other.region, other.offset, other.length, other.access);
    verbCall = other.verbCall;
  }

  /** Marks the bind as a type 1 bind by {@link QueuePair#bindMemoryWindow}. */
  void markVerbCall() {
    verbCall = true;
  }

  /** What makes the bind malformed (checked at post time), or null. */
  String problem() {
    if (window == null) {
      return "needs the bind: call bindMemoryWindow(window, stag, region, offset, length,"
          + " access)";
    }
    if (io.iwarp4j.ddp.mem.StagTable.indexOf(stag)
        != io.iwarp4j.ddp.mem.StagTable.indexOf(window.stag())) {
      return "STag 0x" + Integer.toHexString(stag) + " does not name memory window " + window
          + " (use its nextStag())";
    }
    if (window.type() == MemoryWindowType.TYPE_1 && !verbCall) {
      return "a type 1 window is bound with QueuePair.bindMemoryWindow (ibv_bind_mw), not with a"
          + " BIND_MW work request";
    }
    return null;
  }

  MemoryWindow window() {
    return window;
  }

  int stag() {
    return stag;
  }

  MemoryRegion region() {
    return region;
  }

  long offset() {
    return offset;
  }

  int length() {
    return length;
  }

  int access() {
    return access;
  }

  @Override
  public String toString() {
    return window == null ? "unset" : "stag=0x" + Integer.toHexString(stag) + ", region "
        + region + " [" + offset + ", +" + length + "), access=" + AccessFlags.toString(access);
  }
}
