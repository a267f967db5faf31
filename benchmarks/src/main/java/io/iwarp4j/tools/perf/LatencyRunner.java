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
 *
 * <p>The completion of each signaled Send or Write is reaped just before the next post (and
 * after the last), not waited for right after its own post: by the time the peer's answer is
 * in, it has long been added, so the reap is a poll that finds it, and a parked end wakes once
 * per round trip (for the answer) instead of twice. With {@code --run-to-completion} send_lat
 * is played on the event loops instead ({@link LoopPingPong}).
 */
final class LatencyRunner {
  private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final PerfSession s;
  private final PrintStream err;
  private final SendWorkRequest wr = new SendWorkRequest(1);
  private final RecvWorkRequest rwr = new RecvWorkRequest(1);
  private final WorkCompletion[] wc = {new WorkCompletion()};
  private long[] tposted = new long[0];
  /** --run-to-completion: the run armed for the coming size. */
  private LoopPingPong.Run loopRun;
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
    if (s.loopPingPong != null) {
      return runOnLoop(size);
    }
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
    boolean sendUnreaped = false;
    while (scnt < iters || rcnt < iters) {
      if (rcnt < iters && !(scnt == 0 && goesFirst(o.mode(), s.client))) {
        rcnt++;
        if (write) {
          waitForByte(polled, last, (byte) rcnt);
        } else {
          awaitOne(s.recvCq, "receive ", rcnt);
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
        if (sendUnreaped) {
          awaitOne(s.sendCq, "send ", scnt); // the previous one's: there already, as a rule
        }
        tposted[(int) scnt] = System.nanoTime();
        scnt++;
        local.buffer().setByte(last, (byte) scnt);
        try {
          qp.postSend(wr.wrId(scnt));
        } catch (IllegalStateException e) {
          throw new IOException("data QP is " + qp.state() + ": " + e.getMessage(), e);
        }
        sendUnreaped = true;
      }
      progress.tick(System.nanoTime(), scnt, iters, size);
    }
    if (sendUnreaped) {
      awaitOne(s.sendCq, "send ", scnt);
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
   * {@code --run-to-completion}: hands the listener this size's run and arms it, before the
   * sync after which the peer may send. Does nothing otherwise.
   *
   * @param size message size
   */
  void armLoop(long size) {
    if (s.loopPingPong == null) {
      return;
    }
    long iters = s.opts.iterations();
    if (tposted.length < iters) {
      tposted = new long[(int) iters];
    }
    loopRun = new LoopPingPong.Run(s.qps[0], s.local[0], s.target[0], size, iters, tposted,
        Math.min(s.opts.rxDepth(), iters));
    s.loopPingPong.arm(loopRun, s.recvCq);
  }

  /**
   * send_lat with {@code --run-to-completion}: the client posts the first Send, then this
   * thread only waits (parked) for the event loop to finish the ping-pong, printing progress
   * and giving up after 30 s without a message.
   */
  private Result runOnLoop(long size) throws IOException {
    PerfOptions o = s.opts;
    LoopPingPong.Run r = loopRun;
    long iters = r.iters;
    Progress progress = new Progress(err, o.progress(), o.mode().cliName());
    s.device.counters(wakeUpsBefore);
    if (s.client) {
      try {
        s.loopPingPong.firstSend();
      } catch (IllegalStateException e) {
        throw new IOException("data QP is " + r.qp.state() + ": " + e.getMessage(), e);
      }
    }
    long seen = -1;
    long lastChange = System.nanoTime();
    for (;;) {
      try {
        r.done.get(1, TimeUnit.SECONDS);
        break;
      } catch (java.util.concurrent.TimeoutException e) {
        long now = System.nanoTime();
        long got = r.received;
        if (got != seen) {
          seen = got;
          lastChange = now;
        } else if (now - lastChange > STALL_NANOS) {
          throw new IOException("receive " + (got + 1) + ": no completion within 30 s");
        }
        progress.tick(now, got, iters, size);
      } catch (java.util.concurrent.ExecutionException e) {
        Throwable c = e.getCause();
        throw c instanceof IOException io ? io : new IOException(c.toString(), c);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    progress.finish(r.rcnt, iters, size);
    reportWakeUps(Math.min(r.scnt, r.rcnt));
    int n = (int) Math.min(r.scnt, tposted.length);
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
    err.printf("# wake-ups per round trip (this end, %s%s): loop %.2f, poller %.2f%n",
        s.opts.waitKind().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
        s.loopPingPong != null ? ", run-to-completion" : "",
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

  /** Waits for one completion of {@code cq}; {@code what} and {@code n} name it in a failure. */
  private void awaitOne(io.iwarp4j.verbs.CompletionQueue cq, String what, long n)
      throws IOException {
    try {
      if (s.waiter.await(cq, wc, 1, STALL_NANOS) != 1) {
        throw new IOException(what + n + ": no completion within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (!wc[0].isSuccess()) {
      throw new IOException(what + n + " failed: " + wc[0].status()
          + (wc[0].vendorError() != 0 ? String.format(" (Terminate 0x%06x)",
          wc[0].vendorError()) : ""));
    }
  }
}
