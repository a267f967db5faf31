package io.iwarp4j.it.wirecheck;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Finds and runs tshark with the dissection preferences the wire check needs.
 *
 * <ul>
 *   <li>{@code tcp.try_heuristic_first}: tshark's MPA dissector ({@code iwarp_mpa}) is heuristic
 *       only, with no Decode-As entry, so any dissector registered for the port (e.g. gryphon on
 *       7000) would otherwise win and the connection would show as plain TCP.
 *   <li>TCP reassembly and sequence analysis on: FPDUs span segments; retransmissions are
 *       reported (a capture with them is unreliable).
 *   <li>{@code iwarp_ddp_rdmap.reassemble_iwarp_rdma_send} off: Send reassembly is keyed per TCP
 *       conversation, not per direction and queue; every segment is checked on its own instead.
 *   <li>the {@code rpcrdma_iwarp} and {@code smb_direct_iwarp} payload heuristics off: they claim
 *       arbitrary Send payloads and throw "Malformed Packet" on short ones (a zero-length RTR).
 * </ul>
 */
public final class Tshark {
  static final List<String> PREFERENCES = List.of("-n",
      "-o", "tcp.try_heuristic_first:TRUE",
      "-o", "tcp.desegment_tcp_streams:TRUE",
      "-o", "tcp.analyze_sequence_numbers:TRUE",
      "-o", "iwarp_ddp_rdmap.reassemble_iwarp_rdma_send:FALSE",
      "--disable-heuristic", "rpcrdma_iwarp",
      "--disable-heuristic", "smb_direct_iwarp");

  private Tshark() {
  }

  /** The tool on PATH, or null. */
  public static Path onPath(String tool) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Paths.get(dir, tool);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  /** True when dumpcap may open lo here (root, or dumpcap's capture capabilities). */
  public static boolean canCaptureOnLoopback() {
    try {
      // Listing lo's link-layer types opens the interface, as a capture does.
      Process p = new ProcessBuilder("dumpcap", "-L", "-i", "lo").redirectErrorStream(true)
          .start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** tshark's command line for reading {@code pcap} with the preferences, plus {@code args}. */
  static List<String> command(Path pcap, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add("tshark");
    cmd.add("-r");
    cmd.add(pcap.toString());
    cmd.addAll(PREFERENCES);
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Runs tshark to completion and returns its standard output; fails on a non-zero status. */
  static String run(List<String> cmd) throws IOException, InterruptedException {
    Path err = Files.createTempFile("tshark", ".err");
    try {
      Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(300, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("tshark did not finish: " + cmd);
      }
      if (p.exitValue() != 0) {
        throw new IOException("tshark failed (" + p.exitValue() + "): " + cmd + "\n"
            + Files.readString(err, StandardCharsets.UTF_8));
      }
      return new String(out, StandardCharsets.UTF_8);
    } finally {
      Files.deleteIfExists(err);
    }
  }

  /** The first line of {@code tshark --version}. */
  static String version() throws IOException, InterruptedException {
    return run(List.of("tshark", "--version")).lines().findFirst().orElse("tshark");
  }
}
