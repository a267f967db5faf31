package io.iwarp4j.it.model;

import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkRequestOpcode;

/**
 * One posted work request and what the model knows of it: its slices (local: source, sink,
 * result or receive buffer; remote: the peer's octets it targets), the octets it carries, and
 * the completion that was seen for it (at most one may ever be).
 */
final class WorkRequestModel {
  /** What the work request does; the receive is the only one on the receive side. */
  enum Kind {
    SEND(WorkRequestOpcode.SEND, WcOpcode.SEND),
    IMMEDIATE(WorkRequestOpcode.IMMEDIATE_DATA, WcOpcode.IMMEDIATE_DATA),
    WRITE(WorkRequestOpcode.RDMA_WRITE, WcOpcode.RDMA_WRITE),
    WRITE_IMMEDIATE(WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE, WcOpcode.RDMA_WRITE_WITH_IMMEDIATE),
    READ(WorkRequestOpcode.RDMA_READ, WcOpcode.RDMA_READ),
    FETCH_ADD(WorkRequestOpcode.ATOMIC_FETCH_ADD, WcOpcode.ATOMIC_FETCH_ADD),
    CMP_SWAP(WorkRequestOpcode.ATOMIC_CMP_SWAP, WcOpcode.ATOMIC_CMP_SWAP),
    RECV(null, WcOpcode.RECV);

    final WorkRequestOpcode opcode;
    final WcOpcode wcOpcode;

    Kind(WorkRequestOpcode opcode, WcOpcode wcOpcode) {
      this.opcode = opcode;
      this.wcOpcode = wcOpcode;
    }

    /** Consumes one of the peer's receives. */
    boolean consumesReceive() {
      return this == SEND || this == IMMEDIATE || this == WRITE_IMMEDIATE;
    }

    /** Its success proves the peer processed everything posted before it on the queue pair. */
    boolean answered() {
      return this == READ || this == FETCH_ADD || this == CMP_SWAP;
    }

    boolean atomic() {
      return this == FETCH_ADD || this == CMP_SWAP;
    }
  }

  final long wrId;
  final Kind kind;
  final QueuePairModel qp;
  /** Its connection (the queue pair's epoch) when posted. */
  final int epoch;
  final boolean signaled;
  final int step;
  /** Position in the queue pair's send stream (send side), or -1. */
  final long sendSeq;
  Slice local;
  Slice remote;
  /** What the source slice was filled with (Send, Write), or the Read source's octets. */
  byte[] payload;
  long immData;
  /** Atomics: the target's value before, the operands. */
  long original;
  long operand;
  long compare;
  /** A deliberate fault: its remote STag was dead when posted, or no receive was posted. */
  boolean deliberateFault;

  WcStatus status;
  int completions;
  /** Resolved without a completion: an unsignaled send retired by a later one, or dropped. */
  boolean retired;
  /** Receives: the send work request whose message it took. */
  WorkRequestModel message;
  /** Messages: received by the peer (a successful receive carried it). */
  boolean delivered;
  /** Sends: the peer processed it (a later answer or delivered message proves it). */
  boolean confirmed;
  /** Its local source region was deregistered while the stack could still read it. */
  boolean sourceDeregisteredInFlight;

  WorkRequestModel(long wrId, Kind kind, QueuePairModel qp, boolean signaled, int step,
      long sendSeq) {
    this.wrId = wrId;
    this.kind = kind;
    this.qp = qp;
    this.epoch = qp.epoch();
    this.signaled = signaled;
    this.step = step;
    this.sendSeq = sendSeq;
  }

  /** Completed (seen) or retired: the stack no longer holds it. */
  boolean resolved() {
    return completions > 0 || retired;
  }

  /** The octets of a message or Write: the sender's wrId first, then a pattern of it. */
  static byte[] pattern(long wrId, int length) {
    byte[] b = new byte[length];
    long x = wrId * 0x9E3779B97F4A7C15L + 1;
    for (int i = 0; i < length; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      b[i] = (byte) x;
    }
    if (length >= 8) {
      for (int i = 0; i < 8; i++) {
        b[i] = (byte) (wrId >>> (56 - 8 * i));
      }
    }
    return b;
  }

  @Override
  public String toString() {
    return "wr " + wrId + " " + kind + " on " + qp.name() + "#" + epoch
        + (signaled ? "" : " unsignaled") + (local != null ? " local " + local : "")
        + (remote != null ? " remote " + remote : "")
        + (deliberateFault ? " (deliberate fault)" : "")
        + (completions > 0 ? " -> " + status : "") + " @" + step;
  }
}
