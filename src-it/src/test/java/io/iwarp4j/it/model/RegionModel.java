package io.iwarp4j.it.model;

import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;

/**
 * One registered region over caller-owned memory and what its octets must hold: a background
 * pattern everywhere no work request was given a slice, and a canary over all of it from the
 * moment {@link MemoryRegion#close()} returned (nothing may be placed there afterwards).
 */
final class RegionModel {
  static final byte CANARY = (byte) 0xC5;

  private final String name;
  private final int device;
  private final int pdIndex;
  private final ByteBuf memory;
  private final MemoryRegion mr;
  private final List<Slice> slices = new ArrayList<>();
  private int used;
  private boolean deregistered;

  RegionModel(String name, int device, int pdIndex, ProtectionDomain pd, int length, int access) {
    this.name = name;
    this.device = device;
    this.pdIndex = pdIndex;
    this.memory = Unpooled.directBuffer(length, length);
    byte[] background = new byte[length];
    for (int i = 0; i < length; i++) {
      background[i] = background(i);
    }
    memory.writeBytes(background);
    this.mr = pd.register(memory, access);
  }

  String name() {
    return name;
  }

  /** 0 for device A, 1 for device B. */
  int device() {
    return device;
  }

  int pdIndex() {
    return pdIndex;
  }

  MemoryRegion mr() {
    return mr;
  }

  ByteBuf memory() {
    return memory;
  }

  boolean deregistered() {
    return deregistered;
  }

  int free() {
    return memory.capacity() - used;
  }

  List<Slice> slices() {
    return slices;
  }

  /** What an octet holds until a work request's slice covers it. */
  byte background(int index) {
    return (byte) (index * 7 + name.hashCode());
  }

  /**
   * The next {@code length} free octets whose native address is 8-aligned (atomics need it), or
   * null when the region is full or deregistered.
   */
  Slice take(int length) {
    if (deregistered) {
      return null;
    }
    int start = used;
    while (((memory.memoryAddress() + start) & 7) != 0) {
      start++;
    }
    if (start + length > memory.capacity()) {
      return null;
    }
    used = start + length;
    Slice s = new Slice(this, start, length);
    slices.add(s);
    return s;
  }

  /** {@link MemoryRegion#close()}, then the canary over every octet. */
  void deregistered(boolean alreadyClosed) {
    if (!alreadyClosed) {
      mr.close();
    }
    deregistered = true;
    byte[] canary = new byte[memory.capacity()];
    java.util.Arrays.fill(canary, CANARY);
    memory.setBytes(0, canary);
  }

  /** The first octet that is not the canary, or -1. */
  int firstNotCanary() {
    byte[] now = new byte[memory.capacity()];
    memory.getBytes(0, now);
    for (int i = 0; i < now.length; i++) {
      if (now[i] != CANARY) {
        return i;
      }
    }
    return -1;
  }

  /** The first octet outside every slice that is not the background, or -1. */
  int firstStrayOctet() {
    byte[] now = new byte[memory.capacity()];
    memory.getBytes(0, now);
    boolean[] covered = new boolean[now.length];
    for (Slice s : slices) {
      java.util.Arrays.fill(covered, s.offset(), s.offset() + s.length(), true);
    }
    for (int i = 0; i < now.length; i++) {
      if (!covered[i] && now[i] != background(i)) {
        return i;
      }
    }
    return -1;
  }

  byte[] read(Slice s) {
    byte[] b = new byte[s.length()];
    memory.getBytes(s.offset(), b);
    return b;
  }

  void write(Slice s, byte[] octets) {
    memory.setBytes(s.offset(), octets);
  }

  @Override
  public String toString() {
    return name + (deregistered ? " (deregistered)" : "");
  }
}
