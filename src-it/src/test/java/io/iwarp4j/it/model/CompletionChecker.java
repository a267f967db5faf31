package io.iwarp4j.it.model;

import io.iwarp4j.it.model.QueuePairModel.Fault;
import io.iwarp4j.it.model.WorkRequestModel.Kind;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Checks every completion against the model as it is polled, and the memory at the end: each
 * work request completes at most once, on its queue pair's queue, in send-queue order, with a
 * status the model allows; a successful transfer carries exactly the octets posted; nothing
 * outside a work request's slice changes; a deregistered region keeps its canary.
 */
final class CompletionChecker {
  private final Map<Long, WorkRequestModel> byWrId = new HashMap<>();
  private final Map<Long, QueuePairModel> byQpNumber = new HashMap<>();
  private int successes;
  private int flushes;
  private int errors;
  private final Map<WcStatus, Integer> byStatus = new java.util.EnumMap<>(WcStatus.class);

  void posted(WorkRequestModel w) {
    byWrId.put(w.wrId, w);
  }

  void queuePair(QueuePairModel q) {
    byQpNumber.put(key(q.device, q.qp.number()), q);
  }

  Collection<WorkRequestModel> all() {
    return byWrId.values();
  }

  String tally() {
    return successes + " successful, " + flushes + " flushed, " + errors + " failed completions "
        + byStatus;
  }

  /** Queue pair numbers are unique within a device. */
  private static long key(int device, int qpNumber) {
    return (long) device << 32 | qpNumber & 0xFFFF_FFFFL;
  }

  /** One polled completion from a queue of {@code device}, at {@code step}. */
  void completed(WorkCompletion wc, CompletionQueue from, int device, int step) {
    WorkRequestModel w = byWrId.get(wc.wrId());
    check(w != null, "a completion for a work request never posted: " + wc);
    check(w.completions == 0 && !w.retired, "a second completion for " + w + ": " + wc);
    w.completions++;
    w.status = wc.status();
    QueuePairModel q = byQpNumber.get(key(device, wc.qpNumber()));
    check(q != null, "completion names an unknown queue pair: " + wc + " for " + w);
    if (w.kind == Kind.RECV) {
      check(q.receives == w.qp.receives && (q.receives.shared || q.epoch() == w.epoch),
          "receive " + w + " completed on queue pair " + wc.qpNumber() + " (" + q + "): " + wc);
      check(from == q.recvCq, w + " completed on CQ " + from.number() + ", not its receive CQ");
    } else {
      check(q == w.qp && q.epoch() == w.epoch, w + " completed on " + q + ": " + wc);
      check(from == q.sendCq, w + " completed on CQ " + from.number() + ", not its send CQ");
      retireEarlier(w);
    }
    Set<WcStatus> allowed = allowed(w, q, step);
    if (w.deliberateFault && w.kind == Kind.READ) {
      allowed.remove(WcStatus.SUCCESS); // a Read of a deregistered STag can only fail
    }
    check(allowed.contains(wc.status()), "status " + wc.status() + " (vendor error 0x"
        + Integer.toHexString(wc.vendorError()) + ") not among " + allowed + " for " + w
        + " on " + q + ": " + wc);
    if (wc.status() == WcStatus.SUCCESS) {
      successes++;
      succeeded(w, q, wc, step);
    } else if (wc.status() == WcStatus.WR_FLUSH_ERR) {
      flushes++;
    } else {
      byStatus.merge(wc.status(), 1, Integer::sum);
      if (w.kind != Kind.RECV) {
        q.sendErrors++;
        check(q.sendErrors == 1, "a second send work request of " + q + " charged with an"
            + " error (" + w + "): only the one the error is charged to may have one");
      }
      errors++;
    }
  }

  /** Completions are in send-queue order: everything posted before {@code w} is done. */
  private void retireEarlier(WorkRequestModel w) {
    for (WorkRequestModel e : w.qp.sends) {
      if (e == w) {
        return;
      }
      if (!e.resolved()) {
        check(!e.signaled, "send completion of " + w + " came before that of " + e);
        e.retired = true;
      }
    }
  }

  /** The statuses the model allows {@code w} when polled at {@code step}. */
  static Set<WcStatus> allowed(WorkRequestModel w, QueuePairModel q, int step) {
    if (!q.doomed() || q.doomedAt > step) {
      return EnumSet.of(WcStatus.SUCCESS);
    }
    // Doomed: success (it may have finished first), a flush, or the error the fault charges.
    EnumSet<WcStatus> s = EnumSet.of(WcStatus.SUCCESS, WcStatus.WR_FLUSH_ERR);
    if (w.local != null && w.local.region().deregistered()) {
      s.add(WcStatus.LOC_PROT_ERR);
    }
    EnumSet<Fault> peer = q.peer.faults;
    if (peer.contains(Fault.LOCAL_DEREGISTER) || peer.contains(Fault.MODIFY_TO_ERROR)) {
      s.add(WcStatus.REM_OP_ERR); // the peer's Terminate says RDMAP local catastrophic
    }
    if ((peer.contains(Fault.DISCONNECT) || peer.contains(Fault.CLOSE)) && w.kind.answered()) {
      // The peer's FIN while this waits for its response: an LLP close with operations
      // outstanding, the oldest charged FATAL_ERR (conformance.md, RFC 5040 §6.2.1).
      s.add(WcStatus.FATAL_ERR);
    }
    if ((peer.contains(Fault.DISCONNECT) || peer.contains(Fault.CLOSE)) && w.kind != Kind.RECV) {
      // Known departure (docs/reliability.md, "Model-based test"): a queue pair closed or
      // disconnected locally flushes its receives first, then answers a message of the peer
      // still in flight with DDP Terminate 1/2/0x02 "no buffer available", charged to the
      // peer's oldest outstanding send work request.
      s.add(WcStatus.REM_INV_REQ_ERR);
    }
    if (q.faults.contains(Fault.LOST) || peer.contains(Fault.LOST)) {
      s.add(WcStatus.FATAL_ERR); // the one in flight when the connection was lost
    }
    if (q.faults.contains(Fault.DEAD_STAG) && w.kind != Kind.RECV) {
      s.add(WcStatus.REM_ACCESS_ERR);
    }
    if (q.faults.contains(Fault.NO_RECEIVE) && w.kind != Kind.RECV) {
      // The peer's Terminate is charged to the oldest send work request not yet retired: the
      // message itself once TCP took it, else one behind it.
      s.add(WcStatus.REM_INV_REQ_ERR);
    }
    return s;
  }

  private void succeeded(WorkRequestModel w, QueuePairModel q, WorkCompletion wc, int step) {
    if (w.kind != Kind.RECV) {
      check(wc.opcode() == w.kind.wcOpcode, "opcode " + wc.opcode() + " for " + w + ": " + wc);
    }
    switch (w.kind) {
      case READ -> {
        check(wc.byteLen() == w.local.length(), "Read byteLen " + wc.byteLen() + " for " + w);
        if (!w.local.region().deregistered()) {
          // Strict even if the source was deregistered meanwhile: with MPA CRC on, a Read
          // Response is sent from a snapshot taken before the close could return.
          checkOctets(w.local.region().read(w.local), w.payload, null, false,
              "the sink of " + w);
        }
        q.confirmUpTo(w.sendSeq);
      }
      case FETCH_ADD, CMP_SWAP -> {
        check(wc.byteLen() == 8, "Atomic byteLen " + wc.byteLen() + " for " + w);
        if (!w.local.region().deregistered()) {
          long got = w.local.region().mr().getLong(w.local.offset());
          check(got == w.original, "Atomic result 0x" + Long.toHexString(got) + ", the target"
              + " held 0x" + Long.toHexString(w.original) + ": " + w);
        }
        if (!w.remote.region().deregistered()) {
          long now = w.remote.region().mr().getLong(w.remote.offset());
          long want = w.kind == Kind.FETCH_ADD ? w.original + w.operand
              : w.original == w.compare ? w.operand : w.original;
          check(now == want, "Atomic target 0x" + Long.toHexString(now) + ", expected 0x"
              + Long.toHexString(want) + ": " + w);
        }
        q.confirmUpTo(w.sendSeq);
      }
      case RECV -> received(w, q, wc, step);
      default -> { }
    }
  }

  /** A successful receive: which message it took, and its octets. */
  private void received(WorkRequestModel r, QueuePairModel q, WorkCompletion wc, int step) {
    QueuePairModel sender = q.peer;
    WorkRequestModel m = null;
    if (wc.opcode() == WcOpcode.RECV_IMMEDIATE_DATA) {
      m = byWrId.get(wc.immData());
    } else {
      check(wc.opcode() == WcOpcode.RECV, "receive opcode " + wc.opcode() + ": " + wc);
      if (wc.byteLen() >= 8 && !r.local.region().deregistered()) {
        m = byWrId.get(r.local.region().memory().getLong(r.local.offset()));
      }
      if (m == null) {
        m = nextUndelivered(sender); // its source may have been deregistered: octets unknown
      }
    }
    check(m != null && m.kind.consumesReceive() && m.qp == sender && m.epoch == sender.epoch(),
        "receive " + r + " on " + q + " took a message that is not its peer's: " + m + ", " + wc);
    check(!m.delivered, "message " + m + " received twice, the second time by " + r);
    check(m.sendSeq > q.lastDelivered, "message " + m + " received after a later one");
    if (!q.doomed() || q.doomedAt > step) {
      WorkRequestModel next = nextUndelivered(sender);
      check(m == next, "on a healthy connection " + r + " took " + m + ", expected " + next);
    }
    m.delivered = true;
    r.message = m;
    q.lastDelivered = m.sendSeq;
    sender.confirmUpTo(m.sendSeq);
    boolean mixed = m.sourceDeregisteredInFlight;
    switch (m.kind) {
      case SEND -> {
        check(wc.byteLen() == m.payload.length, "byteLen " + wc.byteLen() + " for " + m.payload
            .length + " octets sent by " + m + ", received by " + r);
        if (!r.local.region().deregistered()) {
          byte[] got = java.util.Arrays.copyOf(r.local.region().read(r.local), m.payload.length);
          checkOctets(got, m.payload, null, mixed, "the receive buffer of " + r + " (from " + m
              + ")");
          checkUntouchedTail(r, m.payload.length);
        }
      }
      case IMMEDIATE -> {
        check(wc.immData() == m.immData && wc.byteLen() == 0, "Immediate Data " + wc + " for "
            + m);
        checkUntouchedTail(r, 0);
      }
      case WRITE_IMMEDIATE -> {
        check(wc.immData() == m.immData, "Write with Immediate " + wc + " for " + m);
        checkUntouchedTail(r, 0);
        if (!m.remote.region().deregistered()) {
          checkOctets(m.remote.region().read(m.remote), m.payload, null, mixed,
              "the target of " + m + " when its immediate data arrived");
        }
      }
      default -> throw new AssertionError(m.kind);
    }
  }

  private void checkUntouchedTail(WorkRequestModel r, int from) {
    if (r.local.region().deregistered()) {
      return;
    }
    byte[] got = r.local.region().read(r.local);
    for (int i = from; i < got.length; i++) {
      byte bg = r.local.region().background(r.local.offset() + i);
      check(got[i] == bg, "octet " + i + " of receive " + r + " beyond the message was written");
    }
  }

  private static WorkRequestModel nextUndelivered(QueuePairModel sender) {
    for (WorkRequestModel s : sender.sends) {
      if (s.kind.consumesReceive() && !s.delivered && !s.deliberateFault) {
        return s;
      }
    }
    return null;
  }

  /**
   * {@code got} must equal {@code want}, or, where {@code old} is given, hold the old octet; a
   * deregistered source ({@code canaryAllowed}) may have sent canary octets instead.
   */
  static void checkOctets(byte[] got, byte[] want, byte[] old, boolean canaryAllowed,
      String what) {
    check(got.length == want.length, what + ": length " + got.length + " != " + want.length);
    for (int i = 0; i < got.length; i++) {
      if (got[i] == want[i] || old != null && got[i] == old[i]
          || canaryAllowed && got[i] == RegionModel.CANARY) {
        continue;
      }
      throw new AssertionError(what + ": octet " + i + " is 0x" + Integer.toHexString(got[i]
          & 0xFF) + ", expected 0x" + Integer.toHexString(want[i] & 0xFF)
          + (old != null ? " or the old 0x" + Integer.toHexString(old[i] & 0xFF) : ""));
    }
  }

  /** Memory at the end: Write targets, sources, the rest of each region, the canaries. */
  void checkMemory(Collection<RegionModel> regions) {
    for (WorkRequestModel w : byWrId.values()) {
      if (w.kind == Kind.WRITE || w.kind == Kind.WRITE_IMMEDIATE) {
        if (!w.remote.region().deregistered()) {
          byte[] old = background(w.remote);
          boolean exact = w.confirmed && (w.status == null || w.status == WcStatus.SUCCESS);
          checkOctets(w.remote.region().read(w.remote), w.payload, exact ? null : old,
              w.sourceDeregisteredInFlight, "the target of " + w
                  + (exact ? " (confirmed)" : " (placed or not)"));
        }
      }
      if ((w.kind == Kind.SEND || w.kind == Kind.WRITE || w.kind == Kind.WRITE_IMMEDIATE)
          && !w.local.region().deregistered()) {
        checkOctets(w.local.region().read(w.local), w.payload, null, false,
            "the source of " + w + " (nothing may write into it)");
      }
      if (w.kind == Kind.READ && !w.remote.region().deregistered()) {
        checkOctets(w.remote.region().read(w.remote), w.payload, null, false,
            "the source of " + w + " at the peer");
      }
    }
    for (RegionModel r : regions) {
      if (r.deregistered()) {
        int at = r.firstNotCanary();
        check(at < 0, "octet " + at + " of deregistered " + r + " was written after its close");
      } else {
        int at = r.firstStrayOctet();
        check(at < 0, "octet " + at + " of " + r + " outside every work request's slice changed");
      }
    }
  }

  private static byte[] background(Slice s) {
    byte[] b = new byte[s.length()];
    for (int i = 0; i < b.length; i++) {
      b[i] = s.region().background(s.offset() + i);
    }
    return b;
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }
}
