package io.iwarp4j.tools.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code --json} file: the test's parameters and one entry per message size, with
 * perftest's own key names for the results ({@code MsgSize}, {@code BW_peak}, ...).
 */
final class JsonReport {
  private final PerfOptions opts;
  private final List<String> results = new ArrayList<>();
  private String peerVersion = "";

  JsonReport(PerfOptions opts) {
    this.opts = opts;
  }

  void peerVersion(String v) {
    this.peerVersion = v;
  }

  void add(BwReport r) {
    results.add(String.format(Locale.ROOT, "{\"MsgSize\": %d, \"n_iterations\": %d,"
            + " \"BW_peak\": %.6f, \"BW_average\": %.6f, \"MsgRate\": %.6f}", r.size(),
        r.iterations(), r.peak(), r.average(), r.msgRateMpps()));
  }

  void add(long size, long iters, LatStats l) {
    results.add(String.format(Locale.ROOT, "{\"MsgSize\": %d, \"n_iterations\": %d,"
            + " \"t_min\": %.3f, \"t_max\": %.3f, \"t_typical\": %.3f, \"t_avg\": %.3f,"
            + " \"t_stdev\": %.3f, \"percentile_99\": %.3f, \"percentile_99_9\": %.3f}", size,
        iters, l.min(), l.max(), l.typical(), l.avg(), l.stdev(), l.p99(), l.p999()));
  }

  String toJson() {
    StringBuilder b = new StringBuilder();
    b.append("{\n");
    b.append("  \"tool\": \"iwarp-perf\",\n");
    b.append("  \"perftest_version\": \"").append(PerftestExchange.VERSION).append("\",\n");
    b.append("  \"peer_version\": \"").append(escape(peerVersion)).append("\",\n");
    b.append("  \"test\": \"").append(opts.mode().cliName()).append("\",\n");
    b.append("  \"role\": \"").append(opts.isClient() ? "client" : "server").append("\",\n");
    b.append("  \"qps\": ").append(opts.qps()).append(",\n");
    b.append("  \"tx_depth\": ").append(opts.txDepth()).append(",\n");
    b.append("  \"cq_mod\": ").append(opts.cqMod()).append(",\n");
    b.append("  \"crc\": ").append(opts.crc()).append(",\n");
    b.append("  \"markers\": ").append(opts.markers()).append(",\n");
    b.append("  \"unit\": \"").append(opts.mode().isLatency() ? "usec"
        : opts.reportGbits() ? "Gb/sec" : "MB/sec").append("\",\n");
    b.append("  \"results\": [");
    for (int i = 0; i < results.size(); i++) {
      b.append(i == 0 ? "\n    " : ",\n    ").append(results.get(i));
    }
    b.append("\n  ]\n}\n");
    return b.toString();
  }

  void write(Path file) throws IOException {
    Files.writeString(file, toJson(), StandardCharsets.UTF_8);
  }

  private static String escape(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
