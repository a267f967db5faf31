package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the independent wire checker ({@code shared/tools/iwarp-wirecheck}): captures a port on
 * the loopback interface with tshark, then dissects the capture with Wireshark's iWARP
 * dissectors plus the tool's own RFC checks.
 *
 * <p>When tshark, python3, the tool or capture rights are missing, {@link #requireAvailable()}
 * skips the calling test with a loud message; under CI ({@code CI=true}) it fails instead, because
 * CI installs everything and must always run the check.
 */
public final class WireCheck {
  private static final Path TOOL_DIR = sharedDir().resolve("tools/iwarp-wirecheck");

  private WireCheck() {
  }

  /** The shared/ folder beside the checkout. */
  public static Path sharedDir() {
    String configured = System.getProperty("iwarp4j.shared.dir");
    Path p = configured != null ? Paths.get(configured) : Paths.get("..", "..", "shared");
    return p.toAbsolutePath().normalize();
  }

  /** Why the wire check cannot run here, or null when it can. */
  public static String unavailableReason() {
    if (!Files.isRegularFile(TOOL_DIR.resolve("check.py"))) {
      return "the wire checker is not at " + TOOL_DIR;
    }
    if (!onPath("tshark")) {
      return "tshark is not installed (apt-get install tshark)";
    }
    if (!onPath("python3")) {
      return "python3 is not installed";
    }
    if (!"root".equals(System.getProperty("user.name")) && !onPath("dumpcap")) {
      return "capturing on lo needs root or dumpcap capture rights";
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

  private static boolean onPath(String tool) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Paths.get(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  /** Starts capturing {@code tcp port <port>} on lo into {@code pcap}; returns once tshark runs. */
  public static Capture startCapture(int port, int maxSeconds, Path pcap) throws IOException {
    ProcessBuilder pb = new ProcessBuilder("bash", TOOL_DIR.resolve("capture.sh").toString(),
        Integer.toString(port), Integer.toString(maxSeconds), pcap.toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    List<String> lines = new ArrayList<>();
    CompletableFuture<Boolean> ready = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          synchronized (lines) {
            lines.add(line);
          }
          if (line.contains("READY")) {
            ready.complete(true);
          }
        }
      } catch (IOException e) {
        // the process ended; ready stays incomplete and the caller reports the output
      } finally {
        ready.complete(false);
      }
    }, "capture-output");
    reader.setDaemon(true);
    reader.start();
    boolean ok;
    try {
      ok = ready.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      ok = false;
    }
    if (!ok) {
      p.destroyForcibly();
      synchronized (lines) {
        throw new IOException("capture.sh did not become ready: " + String.join("\n", lines));
      }
    }
    return new Capture(p, reader, pcap, lines);
  }

  /** A running capture. */
  public static final class Capture implements AutoCloseable {
    private final Process process;
    private final Thread reader;
    private final Path pcap;
    private final List<String> output;

    private Capture(Process process, Thread reader, Path pcap, List<String> output) {
      this.process = process;
      this.reader = reader;
      this.pcap = pcap;
      this.output = output;
    }

    /** Stops tshark cleanly (SIGTERM) and waits for the file to be complete. */
    public Path stop() throws IOException, InterruptedException {
      // Give the kernel a moment to hand the last segments to the capture.
      Thread.sleep(300);
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("capture.sh did not stop");
      }
      reader.join(5000);
      if (!Files.isRegularFile(pcap) || Files.size(pcap) == 0) {
        synchronized (output) {
          throw new IOException("no capture written: " + String.join("\n", output));
        }
      }
      return pcap;
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        process.destroyForcibly();
      }
    }
  }

  /** The outcome of check.py. */
  public record Result(int exitCode, String output) {
    /** True when check.py found no error (warnings allowed). */
    public boolean passed() {
      return exitCode == 0;
    }

    /**
     * True when the only errors are {@code T_CAPTURE}: the kernel retransmitted a segment (on a
     * busy 2-core machine a delayed ACK can trigger a tail-loss probe even on loopback), which
     * makes the capture unreliable but says nothing about our protocol.
     */
    public boolean onlyCaptureErrors() {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("(?m)^Errors: (\\d+) \\{(.*)\\}$").matcher(output);
      if (exitCode == 0 || !m.find()) {
        return false;
      }
      return m.group(2).matches("'T_CAPTURE': \\d+");
    }
  }

  /** One capture of traffic: returns check.py's result on it. */
  @FunctionalInterface
  public interface CapturedRun {
    Result run() throws Exception;
  }

  /**
   * Runs {@code run} (traffic + capture + check) and repeats it, up to {@code attempts} times in
   * all, only while the sole errors are capture artefacts ({@link Result#onlyCaptureErrors()}).
   * Any protocol error fails at once.
   */
  public static Result withCaptureRetries(int attempts, CapturedRun run) throws Exception {
    Result last = null;
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

  /** Runs check.py on a capture; {@code extraArgs} e.g. "--allow-reject". */
  public static Result check(Path pcap, int port, String... extraArgs)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("python3", TOOL_DIR.resolve("check.py").toString(),
        pcap.toString(), Integer.toString(port)));
    cmd.addAll(List.of(extraArgs));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectErrorStream(true);
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("check.py did not finish");
    }
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
