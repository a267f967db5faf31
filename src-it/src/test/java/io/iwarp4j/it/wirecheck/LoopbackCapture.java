package io.iwarp4j.it.wirecheck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A capture of {@code tcp port N} on the loopback interface with dumpcap (Wireshark's capture
 * engine, installed with tshark), into a classic pcap file. Start it before the connection is
 * made: tshark recognises MPA only from the Request and Reply. Needs root or dumpcap's capture
 * capabilities.
 */
public final class LoopbackCapture implements AutoCloseable {
  private final Process process;
  private final Thread reader;
  private final Path pcap;
  private final List<String> output;

  private LoopbackCapture(Process process, Thread reader, Path pcap, List<String> output) {
    this.process = process;
    this.reader = reader;
    this.pcap = pcap;
    this.output = output;
  }

  /**
   * Starts capturing {@code tcp port <port>} on lo into {@code pcap} for at most
   * {@code maxSeconds}; returns once packets are being captured.
   */
  public static LoopbackCapture start(int port, int maxSeconds, Path pcap) throws IOException {
    Files.deleteIfExists(pcap);
    // -B: a 64 MiB kernel buffer, so that bursts on lo are not dropped; -P: classic pcap.
    Process p = new ProcessBuilder("dumpcap", "-i", "lo", "-f", "tcp port " + port, "-a",
        "duration:" + maxSeconds, "-B", "64", "-s", "0", "-P", "-q", "-w", pcap.toString())
        .redirectErrorStream(true).start();
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
          if (line.contains("Capturing on")) {
            ready.complete(true);
          }
        }
      } catch (IOException e) {
        // dumpcap ended; the caller reports its output
      } finally {
        ready.complete(false);
      }
    }, "dumpcap-output");
    reader.setDaemon(true);
    reader.start();
    boolean ok;
    try {
      ok = ready.get(30, TimeUnit.SECONDS);
      // dumpcap says "Capturing on" a moment before the first packet reaches it.
      Thread.sleep(500);
    } catch (Exception e) {
      ok = false;
    }
    if (!ok || !p.isAlive()) {
      p.destroyForcibly();
      synchronized (lines) {
        throw new IOException("dumpcap did not start capturing: " + String.join("\n", lines));
      }
    }
    return new LoopbackCapture(p, reader, pcap, lines);
  }

  /** Stops dumpcap cleanly (SIGTERM) and returns the complete capture file. */
  public Path stop() throws IOException, InterruptedException {
    // The last segments may still be on their way to the capture.
    Thread.sleep(300);
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("dumpcap did not stop");
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
