package io.iwarp4j.tools.ping;

import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MpaSettings;
import io.iwarp4j.verbs.RdmaDevice;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * {@code iwarp-ping}: an rping-compatible client and server on the public verbs API. Same wire
 * protocol as rdma-core's {@code rping} (16-octet advertisements in Sends, an RDMA Read of the
 * client's start buffer, an RDMA Write into its sink buffer, "go ahead" Sends), so either side
 * can talk to a real rping over Linux siw or a hardware RNIC. {@code --help} prints the usage on
 * stdout. Exit status 0 on success, 1 on a failure (one line on stderr; the stack trace too
 * under -d), 2 on a usage error (one line on stderr naming it).
 */
public final class IwarpPing {
  private IwarpPing() {
  }

  /**
   * Command-line entry point; exits with the status of {@link #run}.
   *
   * @param args the options (see {@code iwarp-ping --help})
   */
  public static void main(String[] args) {
    int status = run(args, System.out, System.err, a -> { });
    System.out.flush();
    System.exit(status);
  }

  /**
   * Runs iwarp-ping in this JVM.
   *
   * @param args the options
   * @param out where ping data goes ({@code -v})
   * @param err where errors and events go
   * @param onListening the server tells its bound address here once it listens
   * @return 0 on success, 1 on failure, 2 on a usage error
   */
  public static int run(String[] args, PrintStream out, PrintStream err,
      Consumer<InetSocketAddress> onListening) {
    for (String a : args) {
      if (a.equals("-h") || a.equals("--help")) {
        out.println(PingOptions.USAGE);
        return 0;
      }
    }
    PingOptions o;
    try {
      o = PingOptions.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("iwarp-ping: " + e.getMessage() + " (iwarp-ping --help for usage)");
      return 2;
    }
    DeviceConfig config = DeviceConfig.builder()
        .mpaSettings(MpaSettings.builder().crc(o.crc).build()).build();
    try (RdmaDevice device = RdmaDevice.open(config)) {
      if (o.server) {
        new PingServer(o, out, err).run(device, onListening);
      } else if (o.connections > 1) {
        return connections(o, device, out, err);
      } else {
        new PingClient(o, out, err).run(device);
      }
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("iwarp-ping: interrupted");
      return 1;
    } catch (Exception e) {
      err.println("iwarp-ping: " + (e instanceof PingException ? e.getMessage() : e.toString()));
      if (o.debug) {
        e.printStackTrace(err);
      }
      return 1;
    }
  }

  /** {@code --connections=N}: the client N times in this JVM; 0 when every run succeeded. */
  private static int connections(PingOptions o, RdmaDevice device, PrintStream out,
      PrintStream err) throws InterruptedException {
    int ok = 0;
    for (int i = 1; i <= o.connections; i++) {
      try {
        new PingClient(o, out, err).run(device);
        ok++;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        err.println("iwarp-ping: connection " + i + ": " + (e instanceof PingException
            ? e.getMessage() : e.toString()));
      }
    }
    out.println("connections: " + ok + "/" + o.connections + " completed");
    return ok == o.connections ? 0 : 1;
  }

  /** Waits for {@code f}, turning its failure or a timeout into a one-line {@link PingException}. */
  static <T> T await(CompletableFuture<T> f, Duration timeout, String what)
      throws PingException, InterruptedException {
    try {
      return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw new PingException(what + " failed: " + c.getClass().getSimpleName() + ": "
          + c.getMessage(), c);
    } catch (TimeoutException e) {
      f.cancel(false);
      throw new PingException(what + ": no answer within " + timeout.toSeconds() + " s", e);
    }
  }
}
