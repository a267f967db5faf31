package io.iwarp4j.it.wirecheck;

import io.iwarp4j.it.wirecheck.Finding.Sender;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The wire checker from the command line, for scripts such as {@code src-it/interop/run-interop.sh}:
 *
 * <pre>
 * java -cp src-it/target/test-classes io.iwarp4j.it.wirecheck.WireCheckMain PCAP PORT[-LAST]
 *     [--allow-reject] [--ours initiator|responder]
 * </pre>
 *
 * A range {@code PORT-LAST} checks every connection on those ports in one pass (one report).
 *
 * Prints the report. Exit status 0 no error, 1 errors, 2 usage or tshark failure, 3 no MPA
 * connection on the port.
 *
 * <p>With {@code --ours}, the capture is between this project (the given MPA role) and a peer
 * (Linux siw), and the verdict is per sender: one line
 * {@code ours N {codes} | peer N {codes} | capture N {codes} | ... | verdict PASS|FAIL}. It fails
 * on any error our end sent or that names no sender, and on any error of the peer's other than
 * its known non-zero PAD (docs/interop.md). Not counted against either end, but printed: capture
 * artefacts ({@code T_CAPTURE}: TCP retransmissions on the busy loopback; {@code T_NO_REPLY} on a
 * connection whose Responder sent nothing: qemu's hostfwd accepts on the host before anything
 * listens in the guest), a stream cut by the other end's reset (the octets in flight are
 * dropped), and tshark's own dissector assertions on streams the own framer found well-formed.
 */
public final class WireCheckMain {
  private static final Set<Code> PEER_KNOWN = EnumSet.of(Code.S_PAD_NONZERO, Code.F_PAD_NONZERO);

  private WireCheckMain() {
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: WireCheckMain PCAP PORT[-LAST] [--allow-reject]"
          + " [--ours initiator|responder]");
      return 2;
    }
    Path pcap = Paths.get(args[0]);
    int port;
    int last;
    boolean allowReject = false;
    Sender ours = null;
    try {
      int dash = args[1].indexOf('-');
      port = Integer.parseInt(dash < 0 ? args[1] : args[1].substring(0, dash));
      last = dash < 0 ? port : Integer.parseInt(args[1].substring(dash + 1));
      for (int i = 2; i < args.length; i++) {
        switch (args[i]) {
          case "--allow-reject" -> allowReject = true;
          case "--ours" -> ours = Sender.valueOf(args[++i].toUpperCase());
          default -> throw new IllegalArgumentException("unknown argument " + args[i]);
        }
      }
    } catch (RuntimeException e) {
      System.err.println("WireCheckMain: " + e.getMessage());
      return 2;
    }
    WireReport r;
    try {
      r = WireChecker.check(pcap, port, last, new WireChecker.Options(allowReject));
    } catch (Exception e) {
      System.err.println("WireCheckMain: " + e.getMessage());
      return 2;
    }
    System.out.print(r.summary());
    if (r.mpaConnections() == 0) {
      return 3;
    }
    if (ours == null) {
      return r.passed() ? 0 : 1;
    }
    Map<String, Map<Code, Integer>> by = bySender(r, ours);
    boolean pass = passes(by);
    StringBuilder line = new StringBuilder();
    for (Map.Entry<String, Map<Code, Integer>> e : by.entrySet()) {
      int n = e.getValue().values().stream().mapToInt(Integer::intValue).sum();
      line.append(e.getKey()).append(' ').append(n)
          .append(n == 0 ? "" : " " + e.getValue()).append(" | ");
    }
    System.out.println("By sender: " + line + "verdict " + (pass ? "PASS" : "FAIL"));
    return pass ? 0 : 1;
  }

  /**
   * The verdict on {@link #bySender}: nothing of ours, nothing unattributed, and from the peer
   * only its known non-zero PAD.
   */
  static boolean passes(Map<String, Map<Code, Integer>> by) {
    return by.get("ours").isEmpty() && by.get("unattributed").isEmpty()
        && PEER_KNOWN.containsAll(by.get("peer").keySet());
  }

  /** Every error, counted by who is to blame. */
  static Map<String, Map<Code, Integer>> bySender(WireReport r, Sender ours) {
    Map<String, Map<Code, Integer>> by = new LinkedHashMap<>();
    for (String k : new String[] {"ours", "peer", "capture", "cut by a reset",
        "tshark dissector bug", "unattributed"}) {
      by.put(k, new TreeMap<>());
    }
    for (Finding f : r.errors()) {
      WireReport.Connection c = r.connections().stream().filter(x -> x.stream() == f.stream())
          .findFirst().orElse(null);
      String who;
      if (f.code() == Code.T_CAPTURE || (f.code() == Code.T_NO_REPLY && c != null
          && c.payloadOctets()[Sender.RESPONDER.ordinal()] == 0)) {
        who = "capture";
      } else if ((f.code() == Code.T_MALFORMED || f.code() == Code.T_UNDECODED)
          && r.dissectorBugFrames().contains(f.frame()) && !framingErrors(r, f.stream(), null)) {
        who = "tshark dissector bug";
      } else if (f.sender() != null && f.sender() != ours && desyncedByDissectorBug(r, f, c)) {
        // tshark lost the peer's framing at its own failed assertion; what it then decoded
        // (CRC verdicts, header fields) is of octets that are no FPDU. The own framer framed
        // every FPDU of that direction and found every CRC good. Never applied to ours.
        who = "tshark dissector bug";
      } else if (c != null && f.sender() != null && c.resetBy().contains(f.sender().other())
          && (f.code() == Code.F_TRUNCATED
          || f.code() == Code.T_UNDECODED && onlyTruncated(r, f.stream(), f.sender()))) {
        who = "cut by a reset";
      } else if (f.sender() == null) {
        who = "unattributed";
      } else {
        who = f.sender() == ours ? "ours" : "peer";
      }
      by.get(who).merge(f.code(), 1, Integer::sum);
    }
    return by;
  }

  /**
   * Whether {@code f}, a tshark CRC verdict, header check, or a frame tshark could not dissect
   * ({@code T_MALFORMED}, {@code T_UNDECODED} of one frame: after the desync tshark reads FPDU
   * lengths out of payload octets and some of its "FPDUs" then have no DDP header), comes after
   * tshark failed an assertion in the same direction of the same stream (so tshark may have lost
   * the framing), while the own framer framed that direction (at least one FPDU) and found no
   * framing or CRC error in it (the PAD aside). The own framer's header checks then stand for
   * that direction (W_TSHARK_LIMIT).
   */
  static boolean desyncedByDissectorBug(WireReport r, Finding f, WireReport.Connection c) {
    boolean tsharksFrame = (f.code() == Code.T_MALFORMED || f.code() == Code.T_UNDECODED)
        && f.frame() >= 0;
    if (c == null || !(f.code() == Code.T_CRC_BAD || f.code().name().startsWith("S_")
        || tsharksFrame)
        || c.ownFpdus()[f.sender().ordinal()] <= 0 || framingErrors(r, f.stream(), f.sender())
        || !ownHeaderChecks(r, f.stream(), f.sender())) {
      return false;
    }
    return r.findings().stream().anyMatch(g -> g.stream() == f.stream()
        && g.sender() == f.sender() && g.frame() >= 0 && g.frame() <= f.frame()
        && (g.code() == Code.T_MALFORMED || g.code() == Code.T_UNDECODED)
        && r.dissectorBugFrames().contains(g.frame()));
  }

  /** Whether the own framer checked the DDP/RDMAP headers of that direction (W_TSHARK_LIMIT). */
  private static boolean ownHeaderChecks(WireReport r, int stream, Sender sender) {
    return r.findings().stream().anyMatch(f -> f.stream() == stream && f.sender() == sender
        && f.code() == Code.W_TSHARK_LIMIT);
  }

  /** Own-framer errors on the stream (from {@code sender}, or either end), the PAD aside. */
  private static boolean framingErrors(WireReport r, int stream, Sender sender) {
    return r.errors().stream().anyMatch(f -> f.stream() == stream
        && f.code().name().startsWith("F_") && !PEER_KNOWN.contains(f.code())
        && (sender == null || f.sender() == sender));
  }

  private static boolean onlyTruncated(WireReport r, int stream, Sender sender) {
    return r.errors().stream().filter(f -> f.stream() == stream && f.sender() == sender
        && f.code().name().startsWith("F_")).allMatch(f -> f.code() == Code.F_TRUNCATED)
        && r.errors().stream().anyMatch(f -> f.stream() == stream && f.sender() == sender
        && f.code() == Code.F_TRUNCATED);
  }
}
