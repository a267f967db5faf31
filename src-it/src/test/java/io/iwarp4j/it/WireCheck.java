package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.iwarp4j.it.wirecheck.LoopbackCapture;
import io.iwarp4j.it.wirecheck.Tshark;
import io.iwarp4j.it.wirecheck.WireChecker;
import io.iwarp4j.it.wirecheck.WireReport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

/**
 * The wire check of the integration tests: captures a port on the loopback interface
 * ({@link LoopbackCapture}) and checks the capture with the project's own checker
 * ({@link WireChecker}: tshark's iWARP dissectors plus the RFC rules tshark does not apply).
 *
 * <p>When tshark (with its dumpcap) or capture rights are missing, {@link #requireAvailable()}
 * skips the calling test with a loud message; under CI ({@code CI=true}) it fails instead, because
 * CI installs tshark and must always run the check.
 */
public final class WireCheck {
  private WireCheck() {
  }

  /** Why the wire check cannot run here, or null when it can. */
  public static String unavailableReason() {
    if (Tshark.onPath("tshark") == null) {
      return "tshark is not installed (apt-get install tshark)";
    }
    if (Tshark.onPath("dumpcap") == null) {
      return "dumpcap (installed with tshark) is not on the PATH";
    }
    if (!Tshark.canCaptureOnLoopback()) {
      return "capturing on lo needs root or dumpcap's capture capabilities"
          + " (dpkg-reconfigure wireshark-common, then join the wireshark group)";
    }
    return null;
  }

  /** Skips (or, under CI, fails) the calling test when the wire check cannot run here. */
  public static void requireAvailable() {
    String reason = unavailableReason();
    if (reason == null) {
      return;
    }
    String msg = "WIRE CHECK SKIPPED: " + reason;
    System.err.println("**********************************************************");
    System.err.println(msg);
    System.err.println("**********************************************************");
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(msg + " (CI must run the wire check; .ci/run installs tshark)");
    }
    assumeTrue(false, msg);
  }

  /** A free TCP port on 127.0.0.1. */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Starts capturing {@code tcp port <port>} on lo into {@code pcap}; returns once it runs. */
  public static LoopbackCapture startCapture(int port, int maxSeconds, Path pcap)
      throws IOException {
    return LoopbackCapture.start(port, maxSeconds, pcap);
  }

  /** One capture of traffic: returns the checker's report on it. */
  @FunctionalInterface
  public interface CapturedRun {
    WireReport run() throws Exception;
  }

  /**
   * Runs {@code run} (traffic + capture + check) and repeats it, up to {@code attempts} times in
   * all, only while the sole errors are capture artefacts ({@link WireReport#onlyCaptureErrors()}).
   * Any protocol error fails at once.
   */
  public static WireReport withCaptureRetries(int attempts, CapturedRun run) throws Exception {
    WireReport last = null;
    for (int i = 1; i <= attempts; i++) {
      last = run.run();
      if (!last.onlyCaptureErrors()) {
        return last;
      }
      System.err.println("wire check attempt " + i + " hit a TCP retransmission in the capture"
          + " (T_CAPTURE only); capturing again");
    }
    return last;
  }

  /** Checks every connection on {@code port} in {@code pcap}. */
  public static WireReport check(Path pcap, int port) throws IOException, InterruptedException {
    return WireChecker.check(pcap, port, WireChecker.Options.STRICT);
  }
}
