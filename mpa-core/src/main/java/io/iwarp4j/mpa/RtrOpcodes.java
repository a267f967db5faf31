package io.iwarp4j.mpa;

import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.RtrFrames;

/**
 * MPA's RTR types as the zero-length RDMAP messages they are on the wire (RFC 6581 §9.2); the
 * frames themselves are {@link RtrFrames}.
 */
final class RtrOpcodes {
  private RtrOpcodes() {
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
}
