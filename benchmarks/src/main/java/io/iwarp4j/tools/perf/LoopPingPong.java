package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.CompletionListener;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * send_lat in run-to-completion mode ({@code --run-to-completion}): the listener of the data
 * receive completion queue plays this end's side of the ping-pong on the event loop. Each
 * receive completion reposts the receive (straight into the queue pair's table, no ring: a post
 * from the loop) and posts the next Send (unsignaled, so there is no send completion to reap);
 * the client posts the first Send from the application thread, which then only waits for the
 * end. No thread hand-off and no wake-up per message beyond the socket's own: with {@code
 * --busy-poll} the event loops are the only spinning threads.
 *
 * <p>Fields of a {@link Run} are written by the application thread before it is published
 * (a volatile write) and by the event loop afterwards; the application thread reads the
 * counters only after {@link Run#done} completed (or {@link Run#received} for progress).
 */
final class LoopPingPong implements CompletionListener {
  private final WorkCompletion[] wc = completions(16);
  private final SendWorkRequest wr = new SendWorkRequest(1);
  private final RecvWorkRequest rwr = new RecvWorkRequest(1);
  private volatile Run run;

  /** One size's ping-pong. */
  static final class Run {
    final QueuePair qp;
    final MemoryRegion local;
    final MemoryRegion target;
    final int size;
    final long iters;
    final long[] tposted;
    /** Completes when this end sent and received {@link #iters} messages, or failed. */
    final CompletableFuture<Void> done = new CompletableFuture<>();
    /** Receives completed so far, for progress and the stall check (the loop writes it). */
    volatile long received;
    long scnt;
    long rcnt;
    long recvsPosted;

    Run(QueuePair qp, MemoryRegion local, MemoryRegion target, long size, long iters,
        long[] tposted, long recvsPosted) {
      this.qp = qp;
      this.local = local;
      this.target = target;
      this.size = (int) size;
      this.iters = iters;
      this.tposted = tposted;
      this.recvsPosted = recvsPosted;
    }
  }

  private static WorkCompletion[] completions(int n) {
    WorkCompletion[] a = new WorkCompletion[n];
    for (int i = 0; i < n; i++) {
      a[i] = new WorkCompletion();
    }
    return a;
  }

  /**
   * Makes {@code r} the run the listener plays and arms the notification; before the sync
   * after which the peer may send.
   */
  void arm(Run r, CompletionQueue recvCq) {
    wr.reset().opcode(WorkRequestOpcode.SEND).addSge(r.local, 0, r.size);
    run = r;
    recvCq.requestNotify(false);
  }

  /** The client's first Send, from the application thread (the rest come from the loop). */
  void firstSend() {
    send(run);
  }

  @Override
  public void onCompletion(CompletionQueue cq) {
    Run r = run;
    for (;;) {
      int n;
      while ((n = cq.poll(wc)) > 0) {
        handle(r, n);
      }
      cq.requestNotify(false);
      n = cq.poll(wc); // one that came between the last poll and the arm fires nothing
      if (n == 0) {
        return;
      }
      handle(r, n);
    }
  }

  private void handle(Run r, int n) {
    for (int k = 0; k < n; k++) {
      if (r == null || r.done.isDone()) {
        return; // nothing expected: the peer's failure shows on its own end
      }
      WorkCompletion c = wc[k];
      if (!c.isSuccess()) {
        r.done.completeExceptionally(new IOException("receive " + (r.rcnt + 1) + " failed: "
            + c.status() + (c.vendorError() != 0 ? String.format(" (Terminate 0x%06x)",
            c.vendorError()) : "")));
        return;
      }
      r.rcnt++;
      r.received = r.rcnt;
      try {
        if (r.recvsPosted < r.iters) {
          r.qp.postRecv(rwr.reset().wrId(0).addSge(r.target, 0, r.size));
          r.recvsPosted++;
        }
        if (r.scnt < r.iters) {
          send(r);
        }
      } catch (RuntimeException e) {
        r.done.completeExceptionally(new IOException("data QP is " + r.qp.state() + ": " + e,
            e));
        return;
      }
      if (r.rcnt >= r.iters && r.scnt >= r.iters) {
        r.done.complete(null);
      }
    }
  }

  private void send(Run r) {
    r.tposted[(int) r.scnt] = System.nanoTime();
    r.scnt++;
    r.local.buffer().setByte(r.size - 1, (byte) r.scnt);
    r.qp.postSend(wr.wrId(r.scnt));
  }
}
