package io.iwarp4j.it.model;

import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.QueuePair;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The model of one queue pair: its send stream and receives in the current connection (epoch),
 * the faults that hit that connection on either side, and how far the peer is known to have
 * processed its send stream. Its peer is the other end of the same connection.
 */
final class QueuePairModel {
  /** What may have ended the connection, by the side that caused it. */
  enum Fault {
    /** This side deregistered memory an outstanding work request of it used. */
    LOCAL_DEREGISTER,
    /** This side named a dead STag of the peer (deliberately, or the peer deregistered it). */
    DEAD_STAG,
    /** This side sent a message with no receive posted at the peer. */
    NO_RECEIVE,
    MODIFY_TO_ERROR,
    DISCONNECT,
    CLOSE,
    /** The TCP connection was reset under both ends (a RST from the relay). */
    LOST
  }

  private final String name;
  final int device;
  final int pair;
  final CompletionQueue sendCq;
  final CompletionQueue recvCq;
  final int pdIndex;
  QueuePairModel peer;
  /** Receives this queue pair takes (its own, or the shared queue's). */
  ReceivePool receives;
  QueuePair qp;
  boolean closed;
  private volatile int epoch;
  /** The step of the first fault on this connection, or -1 while healthy. */
  volatile int doomedAt = -1;
  /** Faults caused by this side in this epoch. */
  final EnumSet<Fault> faults = EnumSet.noneOf(Fault.class);
  /** Known to the generator (deterministic, a superset of the doom): revive before reuse. */
  boolean generatorFaulted;
  /** Send work requests of this epoch, in posting order. */
  final List<WorkRequestModel> sends = new ArrayList<>();
  /** Sends whose success proves the peer processed them: every one before this index. */
  int confirmed;
  long nextSendSeq;
  /** Send completions of this epoch with an error other than a flush. */
  int sendErrors;
  /** The peer's send sequence number of the last message a receive here took, or -1. */
  long lastDelivered = -1;

  QueuePairModel(String name, int device, int pair, int pdIndex, CompletionQueue sendCq,
      CompletionQueue recvCq) {
    this.name = name;
    this.device = device;
    this.pair = pair;
    this.pdIndex = pdIndex;
    this.sendCq = sendCq;
    this.recvCq = recvCq;
  }

  String name() {
    return name;
  }

  int epoch() {
    return epoch;
  }

  boolean doomed() {
    return doomedAt >= 0;
  }

  /** Marks the connection (both ends) as possibly ended by {@code fault} of this side. */
  void doom(Fault fault, int step) {
    faults.add(fault);
    if (doomedAt < 0) {
      doomedAt = step;
    }
    if (peer.doomedAt < 0) {
      peer.doomedAt = step;
    }
  }

  /** Send work requests of this epoch the stack may still hold. */
  int outstandingSends() {
    int n = 0;
    for (int i = sends.size() - 1; i >= 0; i--) {
      WorkRequestModel w = sends.get(i);
      if (w.resolved()) {
        break; // completions come in send-queue order: everything before is resolved too
      }
      n++;
    }
    return n;
  }

  /** A new connection on this queue pair (reset, or a new queue pair): nothing outstanding. */
  void newEpoch(QueuePair qp) {
    this.qp = qp;
    epoch++;
    doomedAt = -1;
    faults.clear();
    generatorFaulted = false;
    closed = false;
    sends.clear();
    confirmed = 0;
    sendErrors = 0;
    lastDelivered = -1;
  }

  /** Marks every send before and including {@code seq} as processed by the peer. */
  void confirmUpTo(long seq) {
    while (confirmed < sends.size() && sends.get(confirmed).sendSeq <= seq) {
      sends.get(confirmed).confirmed = true;
      confirmed++;
    }
  }

  @Override
  public String toString() {
    return name + "#" + epoch + (qp != null ? " qp " + qp.number() + " " + qp.state() : "")
        + (doomed() ? " doomed@" + doomedAt + " " + faults + " peer " + peer.faults : "");
  }
}
