package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * The receiving end of send_bw ({@code run_iter_bw_server}): receives the client's Sends,
 * reposts receives until {@code iters} were posted, and every {@code rx_depth / 3} receives
 * RDMA-Writes the receive count into the client's credit word (see {@link SendCredits}).
 * Credit words come from a ring of slots so a word is never changed while its Write is in
 * flight (the payload is sent from registered memory without a copy).
 *
 * <p>With {@code --use_srq} the receives go to the session's shared receive queue instead: up
 * to {@code rx_depth} per queue pair, reposted until {@code iters} per queue pair were posted
 * in all, and a completion's queue pair number says whose message it was (perftest's server
 * does the same).
 */
final class SendBandwidthServer {
  private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final PerfSession s;
  private final PrintStream err;
  private final RecvWorkRequest rwr = new RecvWorkRequest(1);
  private final SendWorkRequest credit = new SendWorkRequest(1);
  private final WorkCompletion[] wc;
  private final WorkCompletion[] swc;
  private final long[] rcnt;
  private final long[] posted;
  private final long[] creditSeq;
  private final long[] creditDone;
  /** With an SRQ: receives posted to it for this size, all queue pairs together. */
  private long srqPosted;

  SendBandwidthServer(PerfSession s, PrintStream err) {
    this.s = s;
    this.err = err;
    int q = s.qps.length;
    wc = new WorkCompletion[64];
    swc = new WorkCompletion[64];
    for (int i = 0; i < wc.length; i++) {
      wc[i] = new WorkCompletion();
      swc[i] = new WorkCompletion();
    }
    rcnt = new long[q];
    posted = new long[q];
    creditSeq = new long[q];
    creditDone = new long[q];
  }

  /** Receives this end keeps posted: {@code min(rx_depth, iters)} ({@code ctx_set_recv_wqes}). */
  static long receiveDepth(PerfOptions o) {
    return Math.min(o.rxDepth(), o.iterations());
  }

  /** Posts the receives for one size, before the sync handshake that lets the client go. */
  void postReceives(long size) {
    srqPosted = 0;
    for (int i = 0; i < s.qps.length; i++) {
      rcnt[i] = 0;
      posted[i] = 0;
      for (long k = 0; k < receiveDepth(s.opts); k++) {
        if (s.srq != null) {
          // One buffer for every shared receive, as perftest's: the test counts messages.
          s.srq.postRecv(rwr.reset().wrId(0).addSge(s.target[0], 0, size));
          srqPosted++;
          continue;
        }
        s.qps[i].postRecv(rwr.reset().wrId(i).addSge(s.target[i], 0, size));
        posted[i]++;
      }
    }
  }

  /**
   * Receives one size's messages.
   *
   * @param size the message size
   * @return the report, measured from the first to the last receive
   */
  BwReport run(long size) throws IOException {
    PerfOptions o = s.opts;
    int q = s.qps.length;
    long iters = o.iterations();
    long total = iters * q;
    long creditEvery = Math.max(1, receiveDepth(o) / 3);
    Progress progress = new Progress(err, o.progress(), o.mode().cliName() + " server");
    long first = 0;
    long lastRx = 0;
    long received = 0;
    long lastActivity = System.nanoTime();
    try {
      while (received < total) {
        int n = s.waiter.await(s.recvCq, wc, wc.length, TimeUnit.MILLISECONDS.toNanos(50));
        long now = System.nanoTime();
        for (int k = 0; k < n; k++) {
          WorkCompletion c = wc[k];
          if (!c.isSuccess()) {
            throw new IOException("send_bw receive failed: " + c.status() + " after "
                + received + " messages");
          }
          if (received == 0) {
            first = now;
          }
          received++;
          lastRx = now;
          int i = s.srq != null ? qpIndex(c.qpNumber()) : (int) c.wrId();
          rcnt[i]++;
          if (s.srq != null) {
            if (srqPosted < total) {
              s.srq.postRecv(rwr.reset().wrId(0).addSge(s.target[0], 0, size));
              srqPosted++;
            }
          } else if (posted[i] < iters) {
            s.qps[i].postRecv(rwr.reset().wrId(i).addSge(s.target[i], 0, size));
            posted[i]++;
          }
          if ((rcnt[i] % receiveDepth(o)) % creditEvery == 0) {
            sendCredit(i);
          }
        }
        account(s.sendCq.poll(swc));
        if (n > 0) {
          lastActivity = now;
        } else if (now - lastActivity > STALL_NANOS) {
          throw new IOException("send_bw: no message from the client for 30 s (" + received
              + " received)");
        }
        progress.tick(now, received, total, size);
      }
      progress.finish(received, total, size);
      for (int i = 0; i < q; i++) {
        drainCreditCompletions(i, 0);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return BwStats.fromCount(size, received, Math.max(1, lastRx - first),
        progress.bestPerSecond(), o.reportGbits());
  }

  /** The data queue pair a shared receive's completion belongs to. */
  private int qpIndex(int qpNumber) throws IOException {
    for (int i = 0; i < s.qps.length; i++) {
      if (s.qps[i].number() == qpNumber) {
        return i;
      }
    }
    throw new IOException("send_bw: a receive completed on queue pair " + qpNumber
        + ", not one of this test's");
  }

  private void sendCredit(int i) throws IOException, InterruptedException {
    if (creditSeq[i] == 0) {
      // Client-server MPA: this end may send once the client's first message arrived; the
      // receive completion and the move to RTS are both that moment, seen on two threads.
      try {
        s.established[i].get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new IOException("send_bw: data connection " + i + " not established: " + e, e);
      }
    }
    // At most CREDIT_WRS credit Writes in flight per QP: each has a slot of its own.
    drainCreditCompletions(i, DataQueues.CREDIT_WRS - 1);
    int slot = (int) (creditSeq[i] % DataQueues.CREDIT_WRS) * 4;
    s.creditSource[i].buffer().setIntLE(slot, (int) rcnt[i]);
    PingPongDest r = s.remote[i];
    credit.reset().opcode(WorkRequestOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
        .wrId(i).remote(r.rkey(), r.vaddr()).addSge(s.creditSource[i], slot, 4);
    try {
      s.qps[i].postSend(credit);
    } catch (IllegalStateException e) {
      throw new IOException("send_bw: cannot post a credit Write on QP " + i + ": "
          + e.getMessage(), e);
    }
    creditSeq[i]++;
  }

  /** Waits until QP {@code i} has at most {@code max} credit Writes in flight. */
  private void drainCreditCompletions(int i, int max) throws IOException, InterruptedException {
    long since = System.nanoTime();
    while (creditSeq[i] - creditDone[i] > max) {
      account(s.waiter.await(s.sendCq, swc, swc.length, TimeUnit.MILLISECONDS.toNanos(50)));
      if (System.nanoTime() - since > STALL_NANOS) {
        throw new IOException("send_bw: credit Writes do not complete");
      }
    }
  }

  private void account(int n) throws IOException {
    for (int k = 0; k < n; k++) {
      WorkCompletion c = swc[k];
      if (!c.isSuccess()) {
        throw new IOException("send_bw: credit Write failed: " + c.status());
      }
      creditDone[(int) c.wrId()]++;
    }
  }
}
