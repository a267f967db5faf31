package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.MemoryRegion;

/** What each test needs on its data queue pairs before and around the handshakes. */
final class DataQueues {
  /** Extra send slots per QP for send_bw's credit RDMA Writes. */
  static final int CREDIT_WRS = 8;

  private DataQueues() {
  }

  /**
   * The buffer this end advertises in its {@code pingpong_dest}: the target of the peer's
   * Writes, Reads and Atomics; for send_bw on iWARP the 4-octet credit word the peer writes
   * (perftest's {@code ctx_alloc_credit} overwrites rkey and vaddr with it).
   */
  static MemoryRegion advertised(PerfSession s, int qp) {
    return s.opts.mode() == PerfMode.SEND_BW ? s.credit[qp] : s.target[qp];
  }
}
