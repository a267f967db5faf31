package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.RecvWorkRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/** Runs the measured part of each test, with perftest's syncs around it, and prints. */
final class TestDriver {
  /** Before each measured size: the same size for this long, so the pipeline is full. */
  static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private TestDriver() {
  }

  /**
   * {@code --warmup}: every size of the run in turn for its share of the warm-up time, so the
   * JIT has compiled both ends' data paths (in loopback mode the server's too) before anything
   * is measured. Without it the first seconds of a run measure the interpreter.
   */
  private static void warmUp(BandwidthRunner r, PerfOptions o, PrintStream err)
      throws IOException {
    if (o.warmupSeconds() == 0) {
      return;
    }
    if (o.progress()) {
      err.println("iwarp-perf: warming up for " + o.warmupSeconds() + " s (--warmup 0 skips"
          + " it)");
    }
    long[] sizes = o.sizes();
    long slice = TimeUnit.SECONDS.toNanos(o.warmupSeconds()) / sizes.length;
    for (long size : sizes) {
      r.warmUp(size, slice);
    }
  }

  static void run(PerfSession s, PrintStream out, PrintStream err, JsonReport json)
      throws IOException {
    PerfOptions o = s.opts;
    switch (o.mode()) {
      case WRITE_BW, READ_BW, ATOMIC_BW -> oneSidedBandwidth(s, out, err, json);
      case SEND_BW -> sendBandwidth(s, out, err, json);
      case WRITE_LAT, SEND_LAT -> latency(s, out, err, json);
      default -> throw new IllegalStateException(o.mode().toString());
    }
  }

  /** write/read/atomic_bw: only the client works; the server waits and prints its report. */
  private static void oneSidedBandwidth(PerfSession s, PrintStream out, PrintStream err,
      JsonReport json) throws IOException {
    PerfOptions o = s.opts;
    ReportPrinter.bwColumns(out, o.reportGbits());
    BwReport last = new BwReport(0, 0, 0, 0, 0);
    if (s.client) {
      BandwidthRunner r = new BandwidthRunner(s, err, null);
      warmUp(r, o, err);
      for (long size : o.sizes()) {
        if (o.warmupSeconds() > 0) {
          r.warmUp(size, MARGIN_NANOS);
        }
        last = r.run(size);
        out.println(ReportPrinter.bwLine(last));
        json.add(last);
      }
      out.println(ReportPrinter.RESULT_LINE);
      s.finishBandwidth(last);
    } else {
      BwReport theirs = s.finishBandwidth(last);
      out.println(ReportPrinter.bwLine(theirs));
      json.add(theirs);
      out.println(ReportPrinter.RESULT_LINE);
    }
  }

  /** send_bw: the server posts receives, a sync lets the client go, both report. */
  private static void sendBandwidth(PerfSession s, PrintStream out, PrintStream err,
      JsonReport json) throws IOException {
    PerfOptions o = s.opts;
    ReportPrinter.bwColumns(out, o.reportGbits());
    SendCredits credits = s.client ? new SendCredits(s) : null;
    BandwidthRunner client = s.client ? new BandwidthRunner(s, err, credits) : null;
    SendBandwidthServer server = s.client ? null : new SendBandwidthServer(s, err);
    for (long size : o.sizes()) {
      if (server != null) {
        server.postReceives(size);
      }
      s.sync();
      if (credits != null) {
        credits.reset();
      }
      BwReport r = client != null ? client.run(size) : server.run(size);
      out.println(ReportPrinter.bwLine(r));
      json.add(r);
      if (o.sweep()) {
        s.sync();
      }
    }
    out.println(ReportPrinter.RESULT_LINE);
    s.sync(); // ctx_close_connection
  }

  /** write_lat/send_lat: both ends ping-pong and report. */
  private static void latency(PerfSession s, PrintStream out, PrintStream err, JsonReport json)
      throws IOException {
    PerfOptions o = s.opts;
    boolean send = o.mode() == PerfMode.SEND_LAT;
    ReportPrinter.latColumns(out);
    LatencyRunner r = new LatencyRunner(s, err);
    RecvWorkRequest rwr = new RecvWorkRequest(1);
    for (long size : o.sizes()) {
      if (send) {
        long depth = Math.min(o.rxDepth(), o.iterations());
        for (long k = 0; k < depth; k++) {
          s.qps[0].postRecv(rwr.reset().wrId(0).addSge(s.target[0], 0, size));
        }
        r.armLoop(size); // --run-to-completion: the listener must be ready for the first Send
        s.sync(); // the peer sends only after our receives are up
      }
      LatencyRunner.Result res = r.run(size);
      out.println(ReportPrinter.latLine(size, o.iterations(), res.stats()));
      json.add(size, o.iterations(), res.stats());
    }
    out.println(ReportPrinter.RESULT_LINE);
    if (send) {
      s.sync(); // ctx_close_connection; write_lat has none
    }
  }
}
