package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkQueueFullException;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The client's bandwidth loop ({@code run_iter_bw}): keep TX depth work requests outstanding
 * on every data QP (at most {@link #MAX_IN_FLIGHT} octets of them), signal one in {@code cqMod} (and the last), stamp post and completion
 * times. One work request object per QP is reused: nothing is allocated per operation.
 */
final class BandwidthRunner {
  private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** The longest single wait for completions, between checks of the stall and the deadline. */
  private static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final int QP_SHIFT = 40;
  /** send_bw: idle CQ polls spun before each short park while waiting for credits. */
  private static final int CREDIT_SPINS = 200;
  private static final long CREDIT_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(10);
  private static final long SEQ_MASK = (1L << QP_SHIFT) - 1;

  private final PerfSession s;
  private final PrintStream err;
  private final SendWorkRequest[] wr;
  private final WorkCompletion[] wc;
  private final long[] scnt;
  private final long[] ccnt;
  private final boolean[] lastSignaled;
  private final SendCredits credits;
  private int idleSpins;
  private long[] tposted = new long[0];
  private long[] tcompleted = new long[0];
  /** The depth of the size being run ({@link #depth}). */
  private int currentDepth;

  BandwidthRunner(PerfSession s, PrintStream err, SendCredits credits) {
    this.s = s;
    this.err = err;
    this.credits = credits;
    int q = s.qps.length;
    wr = new SendWorkRequest[q];
    for (int i = 0; i < q; i++) {
      wr[i] = new SendWorkRequest(1);
    }
    wc = new WorkCompletion[Math.max(16, s.opts.txDepth())];
    for (int i = 0; i < wc.length; i++) {
      wc[i] = new WorkCompletion();
    }
    scnt = new long[q];
    ccnt = new long[q];
    lastSignaled = new boolean[q];
  }

  /** Most octets a QP keeps in flight: plenty for any link, and a short drain at the end. */
  static final long MAX_IN_FLIGHT = 64L << 20;

  /**
   * The work requests a QP keeps outstanding: {@code -t}, but at most {@link #MAX_IN_FLIGHT}
   * octets' worth (at 8 MiB, 8 rather than 128: a gigabyte in flight took seconds to drain
   * after each size of a sweep, and added nothing).
   */
  static int depth(int txDepth, long size) {
    return (int) Math.max(1, Math.min(txDepth, MAX_IN_FLIGHT / Math.max(1, size)));
  }

  /** Prepares the work request of QP {@code i} for messages of {@code size} octets. */
  private void prepare(int i, long size) {
    SendWorkRequest w = wr[i].reset();
    PingPongDest r = s.remote[i];
    switch (s.opts.mode()) {
      case WRITE_BW -> w.opcode(WorkRequestOpcode.RDMA_WRITE).remote(r.rkey(), r.vaddr())
          .addSge(s.local[i], 0, size);
      case READ_BW -> w.opcode(WorkRequestOpcode.RDMA_READ).remote(r.rkey(), r.vaddr())
          .addSge(s.local[i], 0, size);
      case ATOMIC_BW -> w.opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).remote(r.rkey(), r.vaddr())
          .addData(1).localResult(s.local[i], 0);
      case SEND_BW -> w.opcode(WorkRequestOpcode.SEND).addSge(s.local[i], 0, size);
      default -> throw new IllegalStateException("not a bandwidth test: " + s.opts.mode());
    }
  }

  /**
   * Runs one size.
   *
   * @param size the message size
   * @return the report
   */
  BwReport run(long size) throws IOException {
    PerfOptions o = s.opts;
    return measure(size, o.byDuration() ? TimeUnit.SECONDS.toNanos(o.durationSeconds()) : 0,
        o.progress());
  }

  /**
   * Runs {@code size} for {@code nanos} without reporting: warms the JIT, the caches and the
   * pipeline up before a measurement, like the margin of perftest's duration mode.
   *
   * @param size the message size
   * @param nanos how long
   */
  void warmUp(long size, long nanos) throws IOException {
    measure(size, Math.max(1, nanos), false);
  }

  /**
   * The loop: {@code -n} iterations per QP when {@code nanos} is 0, else for {@code nanos}.
   */
  private BwReport measure(long size, long nanos, boolean showProgress) throws IOException {
    PerfOptions o = s.opts;
    int q = s.qps.length;
    boolean duration = nanos > 0;
    long perQp = duration ? Long.MAX_VALUE : o.iterations();
    int total = duration ? 0 : (int) Math.min(Integer.MAX_VALUE - 8, perQp * q);
    if (tposted.length < total) {
      tposted = new long[total];
      tcompleted = new long[total];
    }
    for (int i = 0; i < q; i++) {
      prepare(i, size);
      scnt[i] = 0;
      ccnt[i] = 0;
    }
    int depth = depth(o.txDepth(), size);
    currentDepth = depth;
    int cqMod = Math.min(o.cqMod(), depth); // a signaled request within every depth, as -t/-Q
    CompletionQueue cq = s.sendCq;
    Progress progress = new Progress(err, showProgress, o.mode().cliName());
    long start = System.nanoTime();
    long deadline = start + nanos;
    long lastCompletion = start;
    long lastCheck = start;
    int totS = 0;
    int totC = 0;
    long completedOps = 0;
    boolean stopping = false;
    while (true) {
      long now = System.nanoTime();
      if (duration && !stopping && now - deadline >= 0) {
        stopping = true;
      }
      boolean allDone = true;
      for (int i = 0; i < q; i++) {
        QueuePair qp = s.qps[i];
        while (!stopping && scnt[i] < perQp && scnt[i] - ccnt[i] < depth
            && (credits == null || credits.mayPost(i, scnt[i]))) {
          long seq = scnt[i] + 1;
          boolean last = !duration && seq == perQp;
          boolean signal = seq % cqMod == 0 || last;
          SendWorkRequest w = wr[i].wrId(((long) i << QP_SHIFT) | seq)
              .flags(signal ? SendFlags.SIGNALED : 0);
          if (!duration) {
            tposted[totS] = System.nanoTime();
          }
          try {
            qp.postSend(w);
          } catch (WorkQueueFullException e) {
            break; // unsignaled slots not freed yet: poll first
          } catch (IllegalStateException e) {
            throw new IOException("data QP " + i + " is " + qp.state() + ": " + e.getMessage(),
                e);
          }
          scnt[i] = seq;
          lastSignaled[i] = signal;
          totS++;
        }
        // In duration mode a batch ends on a signaled request only, so every one completes.
        if (stopping && ccnt[i] < scnt[i] && !lastSignaled[i]) {
          postSignaledFence(i);
        }
        if (ccnt[i] < (duration ? scnt[i] : perQp)) {
          allDone = false;
        }
      }
      if (allDone && (!duration || stopping)) {
        break;
      }
      int n;
      try {
        // Credits arrive as Writes without a completion here: spin on the CQ while they may
        // be what the loop waits for.
        n = credits != null ? cq.poll(wc) : s.waiter.await(cq, wc, wc.length, WAIT_NANOS);
        if (n == 0 && credits != null) {
          // Spin a little, then step aside: on a machine with fewer cores than busy threads
          // an endless spin takes the CPU the event loops need to deliver those very credits
          // (2 vCPUs: 0.03-0.3 M msg/s instead of millions).
          if (++idleSpins < CREDIT_SPINS) {
            Thread.onSpinWait();
          } else {
            LockSupport.parkNanos(CREDIT_PARK_NANOS);
          }
        } else {
          idleSpins = 0;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      now = System.nanoTime();
      for (int k = 0; k < n; k++) {
        WorkCompletion c = wc[k];
        if (!c.isSuccess()) {
          throw new IOException(o.mode().cliName() + ": work request failed: " + c.status()
              + (c.vendorError() != 0 ? String.format(" (Terminate 0x%06x)", c.vendorError())
              : "") + " after " + completedOps + " completions");
        }
        int i = (int) (c.wrId() >>> QP_SHIFT);
        long seq = c.wrId() & SEQ_MASK;
        long done = seq - ccnt[i];
        ccnt[i] = seq;
        completedOps += done;
        if (!duration) {
          for (long d = 0; d < done; d++) {
            tcompleted[totC++] = now;
          }
        }
      }
      if (n > 0) {
        lastCompletion = now;
      } else if (now - lastCheck > CHECK_NANOS) {
        // Unsignaled requests of a failed QP may complete silently: look at the state too.
        lastCheck = now;
        for (int i = 0; i < q; i++) {
          QpState st = s.qps[i].state();
          if (st == QpState.ERROR || st == QpState.CLOSED) {
            throw new IOException(o.mode().cliName() + ": data QP " + i + " is " + st
                + " (peer gone or Terminate) after " + completedOps + " completions");
          }
        }
      }
      if (n == 0 && now - lastCompletion > STALL_NANOS) {
        throw new IOException(o.mode().cliName() + ": no completion for 30 s ("
            + completedOps + " done)");
      }
      progress.tick(now, completedOps, duration ? 0 : total, size);
    }
    long end = System.nanoTime();
    progress.finish(completedOps, duration ? 0 : total, size);
    if (duration) {
      return BwStats.fromCount(size, completedOps, end - start, progress.bestPerSecond(),
          o.reportGbits());
    }
    return BwStats.compute(size, total, tposted, tcompleted, cqMod, o.reportGbits());
  }

  /** Duration mode: one signaled request ends the batch so the loop sees everything done. */
  private void postSignaledFence(int i) throws IOException {
    if (scnt[i] - ccnt[i] >= currentDepth) {
      return; // try again after a poll
    }
    long seq = scnt[i] + 1;
    try {
      s.qps[i].postSend(wr[i].wrId(((long) i << QP_SHIFT) | seq).flags(SendFlags.SIGNALED));
      scnt[i] = seq;
      lastSignaled[i] = true;
    } catch (WorkQueueFullException e) {
      // after the next poll
    } catch (IllegalStateException e) {
      throw new IOException("data QP " + i + " is " + s.qps[i].state(), e);
    }
  }
}
