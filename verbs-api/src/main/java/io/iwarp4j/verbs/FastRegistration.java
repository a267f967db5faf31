package io.iwarp4j.verbs;

import io.netty.buffer.ByteBuf;

/**
 * What a {@link WorkRequestOpcode#REG_MR} work request binds ({@code struct ib_reg_wr}): the
 * fast-register region, its new STag, the memory range and the access rights. Part of a
 * {@link SendWorkRequest}, copied with it at posting (references only, no allocation).
 */
final class FastRegistration {
  private FastRegisterRegion region;
  private int stag;
  private ByteBuf memory;
  private int index;
  private int length;
  private int access;

  void set(FastRegisterRegion region, int stag, ByteBuf memory, int index, int length,
      int access) {
    this.region = region;
    this.stag = stag;
    this.memory = memory;
    this.index = index;
    this.length = length;
    this.access = access;
  }

  /** Drops the references (a reset, or a retired send queue slot). */
  void clear() {
    set(null, 0, null, 0, 0, 0);
  }

  void copyFrom(FastRegistration other) {
    set(other.region, other.stag, other.memory, other.index, other.length, other.access);
  }

  /**
   * Why a REG_MR work request with this registration cannot be posted, or null. What only the
   * execution can tell (the region's state, its capacity, the memory's reference count) is
   * checked there and fails the work request instead.
   */
  String problem() {
    if (region == null) {
      return "needs the registration: call fastRegister(region, stag, memory, index, length,"
          + " access)";
    }
    if (io.iwarp4j.ddp.mem.StagTable.indexOf(stag)
        != io.iwarp4j.ddp.mem.StagTable.indexOf(region.stag())) {
      return "STag 0x" + Integer.toHexString(stag) + " does not name fast-register region "
          + region + " (use its nextStag())";
    }
    if (!memory.isDirect() || memory.nioBufferCount() != 1) {
      return "the memory must be one direct, contiguous buffer (" + memory + ")";
    }
    if (length <= 0 || index < 0 || index > memory.capacity() - length) {
      return "range [" + index + ", " + index + "+" + length + ") is empty or outside the"
          + " buffer's capacity " + memory.capacity();
    }
    try {
      io.iwarp4j.ddp.mem.AccessFlags.validate(access);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    return null;
  }

  FastRegisterRegion region() {
    return region;
  }

  int stag() {
    return stag;
  }

  ByteBuf memory() {
    return memory;
  }

  int index() {
    return index;
  }

  int length() {
    return length;
  }

  int access() {
    return access;
  }

  @Override
  public String toString() {
    return region == null ? "unset" : "stag=0x" + Integer.toHexString(stag) + ", memory["
        + index + ", +" + length + "), access=" + AccessFlags.toString(access);
  }
}
