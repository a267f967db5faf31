package io.iwarp4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * The zero-length message an Initiator sends first in the RFC 6581 peer-to-peer model, to tell
 * the Responder it is Ready To Receive (the "RTR"; Linux iWARP drivers call the choice the
 * peer-to-peer or RTR type). The Initiator offers some, the Responder picks one it supports;
 * see {@link ConnectParams.Builder#rtrTypes(Set)} and {@link MpaSettings.Builder#rtrTypes(Set)}.
 * The RTR is sent and consumed by the stack: the application never sees it.
 */
public enum RtrType {
  /** A zero-length Send (RFC 6581 flag B). */
  SEND(io.iwarp4j.mpa.RtrType.SEND),
  /** A zero-length RDMA Write (flag C). */
  WRITE(io.iwarp4j.mpa.RtrType.WRITE),
  /** A zero-length RDMA Read Request, answered by a zero-length Read Response (flag D). */
  READ(io.iwarp4j.mpa.RtrType.READ);

  private final io.iwarp4j.mpa.RtrType mpa;

  RtrType(io.iwarp4j.mpa.RtrType mpa) {
    this.mpa = mpa;
  }

  /** The MPA layer's type this stands for. */
  io.iwarp4j.mpa.RtrType mpa() {
    return mpa;
  }

  /** The API's name for the MPA layer's type, or null for null. */
  static RtrType of(io.iwarp4j.mpa.RtrType mpa) {
    if (mpa == null) {
      return null;
    }
    for (RtrType t : values()) {
      if (t.mpa == mpa) {
        return t;
      }
    }
    throw new IllegalArgumentException("no verbs RTR type for " + mpa);
  }

  /** The MPA layer's set for a set of API types. */
  static Set<io.iwarp4j.mpa.RtrType> toMpa(Set<RtrType> types) {
    Set<io.iwarp4j.mpa.RtrType> out = EnumSet.noneOf(io.iwarp4j.mpa.RtrType.class);
    for (RtrType t : types) {
      out.add(t.mpa);
    }
    return out;
  }

  /** The API's set for a set of the MPA layer's types. */
  static Set<RtrType> of(Set<io.iwarp4j.mpa.RtrType> types) {
    Set<RtrType> out = EnumSet.noneOf(RtrType.class);
    for (io.iwarp4j.mpa.RtrType t : types) {
      out.add(of(t));
    }
    return out;
  }
}
