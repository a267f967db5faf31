package io.iwarp4j.mpa;

import io.iwarp4j.wire.EnhancedConnectionData;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.RtrFrames;
import java.util.EnumSet;
import java.util.Set;

/**
 * MPA's RTR types as the wire knows them (RFC 6581 §9.2): the zero-length RDMAP messages they
 * are ({@link RtrFrames}) and their B/C/D flags in the enhanced connection data
 * ({@link EnhancedConnectionData}).
 */
final class RtrWire {
  private RtrWire() {
  }

  /** The RDMAP opcode of the RTR of {@code type}. */
  static RdmapOpcode of(RtrType type) {
    switch (type) {
      case SEND:
        return RdmapOpcode.SEND;
      case WRITE:
        return RdmapOpcode.RDMA_WRITE;
      case READ:
        return RdmapOpcode.RDMA_READ_REQUEST;
      default:
        throw new IllegalArgumentException("unknown RTR type " + type);
    }
  }

  /** The RTR type a {@link RtrFrames#match} result names; null for null. */
  static RtrType of(RdmapOpcode opcode) {
    if (opcode == null) {
      return null;
    }
    switch (opcode) {
      case SEND:
        return RtrType.SEND;
      case RDMA_WRITE:
        return RtrType.WRITE;
      case RDMA_READ_REQUEST:
        return RtrType.READ;
      default:
        throw new IllegalArgumentException(opcode + " is no RTR");
    }
  }

  /** The RTR set ({@link EnhancedConnectionData#RTR_SEND}, ...) of {@code types}. */
  static int flags(Set<RtrType> types) {
    int flags = 0;
    for (RtrType t : types) {
      flags |= flag(t);
    }
    return flags;
  }

  /** The RTR types of an RTR set. */
  static Set<RtrType> types(int flags) {
    EnumSet<RtrType> set = EnumSet.noneOf(RtrType.class);
    for (RtrType t : RtrType.values()) {
      if ((flags & flag(t)) != 0) {
        set.add(t);
      }
    }
    return set;
  }

  private static int flag(RtrType type) {
    switch (type) {
      case SEND:
        return EnhancedConnectionData.RTR_SEND;
      case WRITE:
        return EnhancedConnectionData.RTR_WRITE;
      case READ:
        return EnhancedConnectionData.RTR_READ;
      default:
        throw new IllegalArgumentException("unknown RTR type " + type);
    }
  }
}
