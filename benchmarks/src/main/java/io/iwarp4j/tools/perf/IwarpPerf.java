package io.iwarp4j.tools.perf;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * {@code iwarp-perf}: perftest's {@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_bw},
 * {@code ib_write_lat}, {@code ib_send_lat} and {@code ib_atomic_bw} over iwarp4j, speaking
 * perftest's own rdma_cm ({@code -R}) protocol so either end may be real perftest. Exit status:
 * 0 success, 1 the test failed (unreachable peer, protocol error, failed work request), 2 a bad
 * command line.
 */
public final class IwarpPerf {
  /** Exit status of a successful run. */
  public static final int OK = 0;
  /** Exit status of a failed test. */
  public static final int FAILED = 1;
  /** Exit status of a bad command line. */
  public static final int USAGE = 2;

  private IwarpPerf() {
  }

  /**
   * Command-line entry point.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the tool.
   *
   * @param args the arguments after {@code iwarp-perf}
   * @param out where results go
   * @param err where progress and errors go
   * @return the exit status
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    for (String a : args) {
      if (a.equals("-h") || a.equals("--help")) {
        out.print(PerfOptions.USAGE);
        return OK;
      }
    }
    PerfOptions o;
    try {
      o = PerfOptions.parse(args);
    } catch (UsageException e) {
      err.println("iwarp-perf: " + e.getMessage() + " (iwarp-perf --help for usage)");
      return USAGE;
    }
    if (o.loopback()) {
      return loopback(o, out, err);
    }
    return runRole(o, out, err, port -> err.println("iwarp-perf: " + o.mode().cliName()
        + " server listening on port " + port));
  }

  /** Server on an ephemeral port of 127.0.0.1 in a thread, client in this one. */
  private static int loopback(PerfOptions o, PrintStream out, PrintStream err) {
    CompletableFuture<Integer> port = new CompletableFuture<>();
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    int[] serverStatus = {FAILED};
    if (o.tls() && o.tlsKeystore == null) {
      try {
        o.generatedTls = TlsMaterial.generate("iwarp-perf-loopback");
      } catch (Exception e) {
        err.println("iwarp-perf: --tls: cannot generate a key pair with keytool: " + e);
        return FAILED;
      }
    }
    PerfOptions serverOpts = o.loopbackServer();
    Thread server = new Thread(() -> serverStatus[0] = runRole(serverOpts, quiet,
        o.debug() ? err : quiet, port::complete), "iwarp-perf-loopback-server");
    server.setDaemon(true);
    server.start();
    int p;
    try {
      p = port.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      err.println("iwarp-perf: the loopback server did not start: " + e);
      return FAILED;
    }
    int status = runRole(o.loopbackClient(p), out, err, x -> { });
    try {
      server.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (status == OK && (server.isAlive() || serverStatus[0] != OK)) {
      err.println("iwarp-perf: the loopback server " + (server.isAlive() ? "did not finish"
          : "failed"));
      return FAILED;
    }
    return status;
  }

  /**
   * Runs one end.
   *
   * @param o the options (a server address makes this the client)
   * @param out results
   * @param err progress and errors
   * @param portListener told the listening port (server only)
   * @return the exit status
   */
  static int runRole(PerfOptions o, PrintStream out, PrintStream err, IntConsumer portListener) {
    PerfSession session = null;
    try (PerfSession s = new PerfSession(o, out, err)) {
      session = s;
      s.setUp(portListener);
      JsonReport json = new JsonReport(o);
      json.peerVersion(s.peerVersion());
      TestDriver.run(s, out, err, json);
      if (o.json() != null) {
        json.write(o.json());
      }
      out.flush();
      s.lingerForPeerClose();
      return OK;
    } catch (IOException | RuntimeException e) {
      String m = e.getMessage() == null ? e.toString() : e.getMessage();
      if (e instanceof UnsupportedOperationException) {
        m = o.mode().cliName() + " is not available: " + m;
      }
      if (session != null && session.peerTerminate() != null) {
        m += " (the peer's " + session.peerTerminate() + ")";
      }
      err.println("iwarp-perf: " + m);
      if (o.debug()) {
        e.printStackTrace(err);
      }
      return FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("iwarp-perf: interrupted");
      return FAILED;
    } catch (OutOfMemoryError e) {
      err.println("iwarp-perf: not enough memory for the test's buffers (-s " + o.size()
          + ", -q " + o.qps() + "): " + e.getMessage() + "; try a smaller -s or -q, or more"
          + " -XX:MaxDirectMemorySize");
      return FAILED;
    }
  }
}
