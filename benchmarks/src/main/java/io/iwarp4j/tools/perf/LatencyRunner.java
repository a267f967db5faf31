package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The ping-pong loops of write_lat ({@code run_iter_lat_write}) and send_lat
 * ({@code run_iter_lat_send}), both ends alike; the client goes first.
 *
 * <p>write_lat: each end RDMA-Writes {@code size} octets into the peer's buffer with the
 * iteration number (mod 256) in the last octet, and waits until the same octet of its own
 * buffer shows the peer's next number. send_lat: a Send per iteration into a receive posted in
 * advance. The round trip is the gap between two posts, halved for the report.
 */
final class LatencyRunner {
  private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final PerfSession s;
  private final PrintStream err;
  private final SendWorkRequest wr = new SendWorkRequest(1);
  private final RecvWorkRequest rwr = new RecvWorkRequest(1);
  private final WorkCompletion[] wc = {new WorkCompletion()};
  private long[] tposted = new long[0];
  private final io.iwarp4j.verbs.CountersSnapshot wakeUpsBefore =
      new io.iwarp4j.verbs.CountersSnapshot();
  private final io.iwarp4j.verbs.CountersSnapshot wakeUpsAfter =
      new io.iwarp4j.verbs.CountersSnapshot();

  LatencyRunner(PerfSession s, PrintStream err) {
    this.s = s;
    this.err = err;
  }

  /**
   * Runs one size.
   *
   * @param size message size
   * @return the statistics and the iteration count
   */
  Result run(long size) throws IOException {
    PerfOptions o = s.opts;
    boolean write = o.mode() == PerfMode.WRITE_LAT;
    long iters = o.iterations();
    int cap = (int) iters;
    if (tposted.length < cap) {
      tposted = new long[cap];
    }
    QueuePair qp = s.qps[0];
    MemoryRegion local = s.local[0];
    ByteBuf polled = s.target[0].buffer();
    int last = (int) (size - 1);
    PingPongDest r = s.remote[0];
    wr.reset().flags(SendFlags.SIGNALED).addSge(local, 0, size);
    if (write) {
      wr.opcode(WorkRequestOpcode.RDMA_WRITE).remote(r.rkey(), r.vaddr());
    } else {
      wr.opcode(WorkRequestOpcode.SEND);
    }
    Progress progress = new Progress(err, o.progress(), o.mode().cliName());
    s.device.counters(wakeUpsBefore);
    long scnt = 0;
    long rcnt = 0;
    int recvsPosted = write ? 0 : (int) Math.min(o.rxDepth(), iters);
    while (scnt < iters || rcnt < iters) {
      if (rcnt < iters && !(scnt == 0 && goesFirst(o.mode(), s.client))) {
        rcnt++;
        if (write) {
          waitForByte(polled, last, (byte) rcnt);
        } else {
          awaitOne(s.recvCq, "receive " + rcnt);
          if (recvsPosted < iters) {
            qp.postRecv(rwr.reset().wrId(0).addSge(s.target[0], 0, size));
            recvsPosted++;
          }
        }
      }
      if (scnt < iters) {
        if (scnt == 0 && !s.client) {
          waitEstablished();
        }
        tposted[(int) scnt] = System.nanoTime();
        scnt++;
        local.buffer().setByte(last, (byte) scnt);
        try {
          qp.postSend(wr.wrId(scnt));
        } catch (IllegalStateException e) {
          throw new IOException("data QP is " + qp.state() + ": " + e.getMessage(), e);
        }
        awaitOne(s.sendCq, "send " + scnt);
      }
      progress.tick(System.nanoTime(), scnt, iters, size);
    }
    progress.finish(scnt, iters, size);
    reportWakeUps(Math.min(scnt, rcnt));
    int n = (int) Math.min(scnt, cap);
    if (n < LatStats.MEASURE_TAIL + 2) {
      throw new IOException(o.mode().cliName() + ": only " + n + " iterations ran");
    }
    return new Result(n, LatStats.fromPosts(tposted, n, 2));
  }

  /**
   * Says on stderr how many wake-ups this end's device counted per round trip
   * ({@code CountersSnapshot.loopWakeUps}, {@code pollerWakeUps}): drain tasks this thread handed
   * the event loop, and times the loop unparked this thread.
   */
  private void reportWakeUps(long roundTrips) {
    if (roundTrips == 0) {
      return;
    }
    s.device.counters(wakeUpsAfter);
    err.printf("# wake-ups per round trip (this end, %s): loop %.2f, poller %.2f%n",
        s.opts.waitKind().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
        (wakeUpsAfter.loopWakeUps() - wakeUpsBefore.loopWakeUps()) / (double) roundTrips,
        (wakeUpsAfter.pollerWakeUps() - wakeUpsBefore.pollerWakeUps()) / (double) roundTrips);
  }

  /**
   * Which end posts first, as perftest has it: write_lat's server ({@code run_iter_lat_write}
   * skips the first wait on the SERVER), send_lat's client ({@code run_iter_lat_send}).
   *
   * @param mode WRITE_LAT or SEND_LAT
   * @param client whether this end is the client
   * @return whether this end posts before it waits
   */
  static boolean goesFirst(PerfMode mode, boolean client) {
    return mode == PerfMode.WRITE_LAT ? !client : client;
  }

  /** The outcome of one size. */
  record Result(long iterations, LatStats stats) {
  }

  private void waitEstablished() throws IOException {
    try {
      s.established[0].get(STALL_NANOS, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      if (s.opts.mode() == PerfMode.WRITE_LAT) {
        // perftest's client waits for our first Write and we may not send it: deadlock.
        throw new IOException("write_lat: the client sent no FPDU on the data connection for "
            + "30 s, and this server writes first (as perftest's does) but as MPA Responder may "
            + "send only after the Initiator's first FPDU (RFC 5044 §7.1.2 rule 4): the client "
            + "must connect in peer-to-peer mode (RFC 6581, as iwarp-perf's client does), or "
            + "this server must be started with --responder-sends-first (not conformant)", e);
      }
      throw new IOException("data connection not established within 30 s", e);
    } catch (Exception e) {
      throw new IOException("data connection not established: " + e, e);
    }
  }

  /** Spins on the last octet of the peer's Write; the acquire fence keeps the load in the loop. */
  private void waitForByte(ByteBuf buf, int index, byte expected) throws IOException {
    long since = System.nanoTime();
    int spins = 0;
    while (true) {
      VarHandle.acquireFence();
      if (buf.getByte(index) == expected) {
        return;
      }
      Thread.onSpinWait();
      if (++spins == 4096) {
        spins = 0;
        if (s.qps[0].state() != io.iwarp4j.verbs.QpState.RTS
            && s.qps[0].state() != io.iwarp4j.verbs.QpState.INIT
            && s.qps[0].state() != io.iwarp4j.verbs.QpState.RTR) {
          throw new IOException("data QP is " + s.qps[0].state() + " while waiting for Write "
              + (expected & 0xff));
        }
        if (System.nanoTime() - since > STALL_NANOS) {
          throw new IOException("no Write from the peer for 30 s");
        }
      }
    }
  }

  private void awaitOne(io.iwarp4j.verbs.CompletionQueue cq, String what) throws IOException {
    try {
      if (s.waiter.await(cq, wc, 1, STALL_NANOS) != 1) {
        throw new IOException(what + ": no completion within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (!wc[0].isSuccess()) {
      throw new IOException(what + " failed: " + wc[0].status()
          + (wc[0].vendorError() != 0 ? String.format(" (Terminate 0x%06x)",
          wc[0].vendorError()) : ""));
    }
  }
}
