package io.iwarp4j.it.wirecheck;

import io.iwarp4j.it.wirecheck.Finding.Sender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The wire checker from the command line, for scripts such as {@code src-it/interop/run-interop.sh}:
 *
 * <pre>
 * java -cp src-it/target/test-classes io.iwarp4j.it.wirecheck.WireCheckMain PCAP PORT[-LAST]
 *     [--ours initiator|responder] [--rows FILE] [--expect ROW=reject|terminate:L/T/C]...
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
 * on any error our end sent or that names no sender, on any error of the peer's other than its
 * known non-zero PAD, on any Terminate from the peer that its row does not expect, and on an
 * expectation no connection met. Not counted against either end, but printed: capture artefacts
 * ({@code T_CAPTURE}: TCP retransmissions and duplicates on the busy loopback; {@code T_NO_REPLY}
 * only where the silent Responder is the peer: qemu's hostfwd accepts on the host before anything
 * listens in the guest; a hole in the capture ({@code T_CAPTURE_HOLE}) of the peer's direction,
 * or of ours when it hides at most {@link #HOLE_BOUND} octets: what follows a hole is printed as
 * unchecked), a stream cut by the other end's reset (the octets in flight are dropped), and
 * tshark's own dissector assertions on streams the own framer found well-formed.
 *
 * <p>{@code --rows FILE} (tab-separated {@code id port start end}, times in seconds since the
 * epoch, port 0 for any; host/matrix.sh writes it) names the row each connection belongs to: the
 * row whose port is the connection's Responder port and whose window holds the connection's
 * first frame. {@code --expect ROW=reject} lets that row's connections be rejected (MPA Reply
 * R=1) and requires one to be; {@code --expect ROW=terminate:L/T/C} lets the peer send that row
 * a Terminate of exactly that Layer, Error Type and Error Code (RFC 5040 §4.8 layout, hex code)
 * and requires one.
 */
public final class WireCheckMain {
  private static final Set<Code> PEER_KNOWN = EnumSet.of(Code.S_PAD_NONZERO, Code.F_PAD_NONZERO);
  /**
   * The most octets of our direction a capture hole may leave unchecked and still pass: one
   * 64 KiB message. A hole there hides our octets from every check; more than this fails.
   */
  static final long HOLE_BOUND = 65536;

  private WireCheckMain() {
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** One row of the suite: its id, the Responder port (0: any) and its time window. */
  record Row(String id, int port, double start, double end) {
    boolean portMatches(WireReport.Connection c) {
      return port == 0 || port == c.responderPort();
    }

    /** How far the connection's first frame lies outside the window (0 inside). */
    double distance(WireReport.Connection c) {
      double t = c.startEpoch();
      return t < start ? start - t : t > end ? t - end : 0;
    }
  }

  /** The rows and what each expects ({@code reject}, {@code terminate:L/T/C}). */
  record Expectations(List<Row> rows, Map<String, String> expected) {
    static final Expectations NONE = new Expectations(List.of(), Map.of());

    /**
     * The row a connection belongs to: the one whose window holds its first frame, else the
     * nearest within half a second (windows from whole-second times); null when none.
     */
    String rowOf(WireReport.Connection c) {
      Row best = null;
      for (Row r : rows) {
        if (r.portMatches(c) && r.distance(c) <= 0.5
            && (best == null || r.distance(c) < best.distance(c))) {
          best = r;
        }
      }
      return best == null ? null : best.id();
    }

    String of(WireReport.Connection c) {
      String row = c == null ? null : rowOf(c);
      return row == null ? null : expected.get(row);
    }

    static List<Row> read(Path file) throws java.io.IOException {
      List<Row> rows = new ArrayList<>();
      for (String l : Files.readAllLines(file)) {
        String[] f = l.split("\t");
        if (f.length >= 4 && !l.isBlank()) {
          rows.add(new Row(f[0], Integer.parseInt(f[1].trim()), Double.parseDouble(f[2].trim()),
              Double.parseDouble(f[3].trim())));
        }
      }
      return rows;
    }
  }

  static int run(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: WireCheckMain PCAP PORT[-LAST] [--ours initiator|responder]"
          + " [--rows FILE] [--expect ROW=reject|terminate:L/T/C]...");
      return 2;
    }
    Path pcap = Paths.get(args[0]);
    int port;
    int last;
    Sender ours = null;
    List<Row> rows = List.of();
    Map<String, String> expected = new LinkedHashMap<>();
    try {
      int dash = args[1].indexOf('-');
      port = Integer.parseInt(dash < 0 ? args[1] : args[1].substring(0, dash));
      last = dash < 0 ? port : Integer.parseInt(args[1].substring(dash + 1));
      for (int i = 2; i < args.length; i++) {
        switch (args[i]) {
          case "--ours" -> ours = Sender.valueOf(args[++i].toUpperCase());
          case "--rows" -> rows = Expectations.read(Paths.get(args[++i]));
          case "--expect" -> {
            String[] kv = args[++i].split("=", 2);
            if (kv.length != 2 || !(kv[1].equals("reject")
                || kv[1].matches("terminate:[0-9]+/[0-9]+/0x[0-9a-f]+"))) {
              throw new IllegalArgumentException("--expect ROW=reject|terminate:L/T/0xC, not "
                  + args[i]);
            }
            expected.put(kv[0], kv[1]);
          }
          default -> throw new IllegalArgumentException("unknown argument " + args[i]);
        }
      }
    } catch (RuntimeException | java.io.IOException e) {
      System.err.println("WireCheckMain: " + e.getMessage());
      return 2;
    }
    WireReport r;
    try {
      r = WireChecker.check(pcap, port, last, WireChecker.Options.STRICT);
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
    Expectations exp = new Expectations(rows, expected);
    for (String line : details(r, ours, exp)) {
      System.out.println(line);
    }
    Map<String, Map<Code, Integer>> by = bySender(r, ours, exp);
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
   * The verdict on {@link #bySender}: nothing of ours, nothing unattributed, no expectation
   * unmet, and from the peer only its known non-zero PAD.
   */
  static boolean passes(Map<String, Map<Code, Integer>> by) {
    return by.get("ours").isEmpty() && by.get("unattributed").isEmpty()
        && by.get("expected, not seen").isEmpty()
        && PEER_KNOWN.containsAll(by.get("peer").keySet());
  }

  /** Every error, counted by who is to blame, without rows. */
  static Map<String, Map<Code, Integer>> bySender(WireReport r, Sender ours) {
    return bySender(r, ours, Expectations.NONE);
  }

  /**
   * Every error and every Terminate, counted by who is to blame; what a row expects is counted
   * as "expected", and an expectation no connection of its row met as "expected, not seen".
   */
  static Map<String, Map<Code, Integer>> bySender(WireReport r, Sender ours, Expectations exp) {
    Map<String, Map<Code, Integer>> by = new LinkedHashMap<>();
    for (String k : new String[] {"ours", "peer", "capture", "cut by a reset",
        "tshark dissector bug", "expected", "expected, not seen", "unattributed"}) {
      by.put(k, new TreeMap<>());
    }
    Set<String> met = new java.util.HashSet<>();
    for (Finding f : r.errors()) {
      WireReport.Connection c = connection(r, f);
      String expect = exp.of(c);
      String who;
      if (f.code() == Code.T_CAPTURE
          || f.code() == Code.T_NO_REPLY && ours == Sender.INITIATOR && c != null
          && c.payloadOctets()[Sender.RESPONDER.ordinal()] == 0
          || f.code() == Code.T_CAPTURE_HOLE && (f.sender() != ours || c != null
          && c.holeHidden()[ours.ordinal()] <= HOLE_BOUND)) {
        // T_NO_REPLY: the silent Responder is the peer (hostfwd accepted for the guest); never
        // when we are the Responder. A hole: printed as unchecked by details().
        who = "capture";
      } else if (f.code() == Code.T_MPA_REJECT && "reject".equals(expect)) {
        who = "expected";
        met.add(exp.rowOf(c));
      } else if ((f.code() == Code.T_MALFORMED || f.code() == Code.T_UNDECODED)
          && r.dissectorBugFrames().contains(f.frame()) && !framingErrors(r, f.stream(), null)) {
        who = "tshark dissector bug";
      } else if (f.sender() != null && f.sender() != ours && desyncedByDissectorBug(r, f, c)) {
        // tshark lost the peer's framing at its own failed assertion; what it then decoded
        // (CRC verdicts, header fields) is of octets that are no FPDU. The own framer framed
        // every FPDU of that direction and found every CRC good. Never applied to ours.
        who = "tshark dissector bug";
      } else if (f.sender() != null && f.sender() != ours && desyncedByLostSegment(r, f, c)) {
        // The capture missed a segment of the peer's direction (tcp.analysis.lost_segment) and
        // tshark's reassembly lost the framing there; the own framer, which assembles by
        // sequence number, framed every FPDU of that direction with every CRC good. Never ours.
        who = "capture";
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
    // Terminates: the peer's count against it unless its row expects exactly that one; ours
    // against us unless the peer sent an error on that connection first (our Terminate answers
    // it, and the peer's error fails the verdict already).
    for (Finding f : r.findings()) {
      if (f.code() != Code.I_TERMINATE || f.sender() == null) {
        continue;
      }
      WireReport.Connection c = connection(r, f);
      String expect = exp.of(c);
      String who;
      if (f.sender() != ours && expect != null && expect.startsWith("terminate:")
          && f.message().startsWith("Terminate " + expect.substring("terminate:".length())
          + " ")) {
        who = "expected";
        met.add(exp.rowOf(c));
      } else if (f.sender() != ours) {
        who = "peer";
      } else if (r.errors().stream().anyMatch(e -> e.stream() == f.stream()
          && e.sender() == ours.other() && !PEER_KNOWN.contains(e.code()))) {
        continue; // printed by details(); the peer's error carries the verdict
      } else {
        who = "ours";
      }
      by.get(who).merge(f.code(), 1, Integer::sum);
    }
    for (Map.Entry<String, String> e : exp.expected().entrySet()) {
      if (!met.contains(e.getKey())) {
        by.get("expected, not seen").merge(e.getValue().equals("reject") ? Code.T_MPA_REJECT
            : Code.I_TERMINATE, 1, Integer::sum);
      }
    }
    return by;
  }

  /** The lines that say what the counts do not: Terminates, holes, rows expected but unmet. */
  static List<String> details(WireReport r, Sender ours, Expectations exp) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : exp.expected().entrySet()) {
      out.add("Row " + e.getKey() + " expects " + e.getValue() + (exp.rows().stream()
          .anyMatch(x -> x.id().equals(e.getKey())) ? "" : " (no such row in --rows)"));
    }
    for (Finding f : r.findings()) {
      WireReport.Connection c = connection(r, f);
      String row = c == null ? null : exp.rowOf(c);
      String where = "stream " + f.stream() + (row != null ? " (row " + row + ")" : "");
      if (f.code() == Code.I_TERMINATE) {
        out.add("Terminate from " + (f.sender() == ours ? "us" : "the peer") + " on " + where
            + ": " + f.message());
      } else if (f.code() == Code.T_CAPTURE_HOLE) {
        out.add("Unchecked: " + where + ", " + (f.sender() == ours ? "our" : "the peer's")
            + " direction: " + f.message()
            + (f.sender() == ours && c != null && c.holeHidden()[ours.ordinal()] > HOLE_BOUND
            ? " (more than " + HOLE_BOUND + ": FAIL)" : ""));
      }
    }
    return out;
  }

  private static WireReport.Connection connection(WireReport r, Finding f) {
    return r.connections().stream().filter(x -> x.stream() == f.stream()).findFirst()
        .orElse(null);
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
    return ownFramerStandsFor(r, f, c) && afterInItsDirection(r, f,
        g -> (g.code() == Code.T_MALFORMED || g.code() == Code.T_UNDECODED)
            && r.dissectorBugFrames().contains(g.frame()));
  }

  /**
   * Whether {@code f} (as in {@link #desyncedByDissectorBug}) comes after the capture missed a
   * segment in the same direction of the same stream ({@code T_CAPTURE} with
   * {@code tcp.analysis.lost_segment}), while the own framer framed that direction with no
   * framing or CRC error (the PAD aside) and checked its headers (W_TSHARK_LIMIT). Full-matrix
   * run of 2026-11-27 05:27, port 7210-7249: siw's Read Responses of stream 61, a lost segment
   * at frame 45733, then 40 "bad CRCs" and impossible header fields from tshark, which decoded
   * 8258 FPDUs where the own framer framed 9200, every CRC good.
   */
  static boolean desyncedByLostSegment(WireReport r, Finding f, WireReport.Connection c) {
    return ownFramerStandsFor(r, f, c) && afterInItsDirection(r, f,
        g -> g.code() == Code.T_CAPTURE && g.message().contains("tcp.analysis.lost_segment"));
  }

  /**
   * Whether {@code f} is a tshark CRC verdict, header check or undissected frame in a direction
   * the own framer framed (at least one FPDU) with no framing or CRC error and whose headers it
   * checked: the precondition of both desync rules above.
   */
  private static boolean ownFramerStandsFor(WireReport r, Finding f, WireReport.Connection c) {
    boolean tsharksFrame = (f.code() == Code.T_MALFORMED || f.code() == Code.T_UNDECODED)
        && f.frame() >= 0;
    return c != null
        && (f.code() == Code.T_CRC_BAD || f.code().name().startsWith("S_") || tsharksFrame)
        && c.ownFpdus()[f.sender().ordinal()] > 0 && !framingErrors(r, f.stream(), f.sender())
        && ownHeaderChecks(r, f.stream(), f.sender());
  }

  /** Whether a finding {@code cause} accepts came at or before {@code f}, in its direction. */
  private static boolean afterInItsDirection(WireReport r, Finding f,
      java.util.function.Predicate<Finding> cause) {
    return r.findings().stream().anyMatch(g -> g.stream() == f.stream()
        && g.sender() == f.sender() && g.frame() >= 0 && g.frame() <= f.frame() && cause.test(g));
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
