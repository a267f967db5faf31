package io.iwarp4j.it.wirecheck;

import io.iwarp4j.it.wirecheck.Finding.Level;
import io.iwarp4j.it.wirecheck.Finding.Sender;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What {@link WireChecker} found on one port of a capture: the connections, what tshark decoded
 * (FPDUs, CRC verdicts, Markers, messages per RDMAP opcode) and every {@link Finding}.
 *
 * @param pcap the capture file
 * @param port the TCP port checked
 * @param tsharkVersion the first line of {@code tshark --version}
 * @param connections every TCP connection on the port, in tshark's stream order
 * @param totals FPDUs, CRC verdicts, Markers and malformed packets over all connections
 * @param segments FPDU segments per RDMAP opcode
 * @param messages messages (segments with L=1) per RDMAP opcode
 * @param findings everything found, errors first
 * @param dissectorBugFrames frames on which a tshark dissector failed an assertion
 */
public record WireReport(String pcap, int port, String tsharkVersion,
    List<Connection> connections, Totals totals, Map<Integer, Integer> segments,
    Map<Integer, Integer> messages, List<Finding> findings, Set<Integer> dissectorBugFrames) {

  /** RDMAP opcode names (RFC 5040 §4.4, RFC 7306 §6). */
  public static final List<String> OPCODE_NAMES = List.of("RDMA Write", "RDMA Read Request",
      "RDMA Read Response", "Send", "Send with Invalidate", "Send with SE",
      "Send with SE and Invalidate", "Terminate", "Immediate Data", "Immediate Data with SE",
      "Atomic Request", "Atomic Response");

  /**
   * One TCP connection.
   *
   * @param stream tshark's stream index
   * @param initiatorPort the TCP port of the MPA Initiator (0 when no MPA Request was seen)
   * @param request the MPA Request, or null
   * @param reply the MPA Reply, or null
   * @param fpdus FPDUs tshark decoded, initiator to responder and back
   * @param ownFpdus FPDUs the own framer found, each way (-1: not framed)
   * @param payloadOctets TCP payload octets each way
   * @param resetBy which ends sent a TCP RST
   * @param responderPort the TCP port of the MPA Responder (0 when no MPA Request was seen)
   * @param startEpoch when the capture saw the connection's first frame (seconds since the
   *     epoch)
   * @param holeHidden per sender, how many octets it sent after the first hole in the capture
   *     of its direction (nothing of them was checked), or -1 when that direction has no hole
   */
  public record Connection(int stream, int initiatorPort, MpaFrame request, MpaFrame reply,
      int[] fpdus, int[] ownFpdus, long[] payloadOctets, Set<Sender> resetBy, int responderPort,
      double startEpoch, long[] holeHidden) {
    /** A connection without port, time or hole information (tests). */
    public Connection(int stream, int initiatorPort, MpaFrame request, MpaFrame reply,
        int[] fpdus, int[] ownFpdus, long[] payloadOctets, Set<Sender> resetBy) {
      this(stream, initiatorPort, request, reply, fpdus, ownFpdus, payloadOctets, resetBy, 0, 0,
          new long[] {-1, -1});
    }

    /** CRC in use: either side asked for it. */
    public boolean crc() {
      return request != null && reply != null && (request.c() || reply.c());
    }
  }

  /**
   * An MPA Request or Reply as tshark decoded it (RFC 5044 §7.1, RFC 6581 §5).
   *
   * @param m Marker flag
   * @param c CRC flag
   * @param r Reject flag
   * @param res the four reserved bits and S (0x10)
   * @param rev revision
   * @param privateData the private data
   * @param pdLengthShown false when tshark refused the length (over 512)
   */
  public record MpaFrame(boolean m, boolean c, boolean r, int res, int rev, byte[] privateData,
      boolean pdLengthShown) {
    /** The RFC 6581 S bit. */
    public boolean enhanced() {
      return (res & 0x10) != 0;
    }

    @Override
    public String toString() {
      return "rev=" + rev + " M=" + (m ? 1 : 0) + " C=" + (c ? 1 : 0) + " R=" + (r ? 1 : 0)
          + " S=" + (enhanced() ? 1 : 0) + " PD=" + privateData.length;
    }
  }

  /**
   * Counts over the capture.
   *
   * @param fpdus FPDUs tshark decoded
   * @param crcGood CRCs tshark verified
   * @param crcBad CRCs tshark found bad
   * @param crcUnchecked FPDUs without CRC (not negotiated)
   * @param markers Markers tshark decoded
   * @param malformed malformed packets
   */
  public record Totals(int fpdus, int crcGood, int crcBad, int crcUnchecked, int markers,
      int malformed) {
  }

  /** Connections that began with an MPA Request. */
  public long mpaConnections() {
    return connections.stream().filter(c -> c.request() != null).count();
  }

  /** Findings at {@code level}. */
  public List<Finding> at(Level level) {
    return findings.stream().filter(f -> f.level() == level).toList();
  }

  /** The errors. */
  public List<Finding> errors() {
    return at(Level.ERROR);
  }

  /** How many findings at {@code level} per code. */
  public Map<Code, Long> codes(Level level) {
    return at(level).stream().collect(Collectors.groupingBy(Finding::code, TreeMap::new,
        Collectors.counting()));
  }

  /** Messages of RDMAP opcode {@code op} (0 when none). */
  public int messages(int op) {
    return messages.getOrDefault(op, 0);
  }

  /** At least one MPA connection, and no error. */
  public boolean passed() {
    return mpaConnections() > 0 && errors().isEmpty();
  }

  /**
   * True when the only errors are {@code T_CAPTURE} or {@code T_CAPTURE_HOLE}: the kernel
   * retransmitted a segment (on a busy 2-core machine a delayed ACK can trigger a tail-loss probe
   * even on loopback) or dumpcap missed one, which makes the capture unreliable but says nothing
   * about the protocol.
   */
  public boolean onlyCaptureErrors() {
    List<Finding> e = errors();
    // A hole (octets dumpcap never saw) is as much the capture's; capturing again is the cure.
    return !e.isEmpty() && e.stream().allMatch(f -> f.code() == Code.T_CAPTURE
        || f.code() == Code.T_CAPTURE_HOLE);
  }

  /** A human-readable summary: connections, counts, findings (the first 40 errors). */
  public String summary() {
    StringBuilder s = new StringBuilder();
    s.append("wirecheck: ").append(pcap).append(" port ").append(port).append(" (")
        .append(tsharkVersion).append(")\n");
    s.append("TCP connections: ").append(connections.size()).append(", with MPA startup: ")
        .append(mpaConnections()).append('\n');
    for (Connection c : connections) {
      s.append("  stream ").append(c.stream());
      if (c.request() == null) {
        s.append(": no MPA\n");
        continue;
      }
      s.append(" initiator port ").append(c.initiatorPort()).append(": Req ").append(c.request());
      if (c.reply() != null) {
        s.append(" | Rep ").append(c.reply()).append(" | CRC ").append(c.crc() ? "on" : "off")
            .append(", markers i->r ").append(c.reply().m() ? "on" : "off").append(" r->i ")
            .append(c.request().m() ? "on" : "off");
      }
      s.append(" | FPDUs i->r ").append(c.fpdus()[0]).append(" r->i ").append(c.fpdus()[1])
          .append(" | own framer i->r ").append(c.ownFpdus()[0]).append(" r->i ")
          .append(c.ownFpdus()[1]);
      long errs = errors().stream().filter(f -> f.stream() == c.stream()).count();
      s.append(" | ").append(errs == 0 ? "OK" : errs + " error(s)").append('\n');
    }
    s.append("FPDUs decoded by tshark: ").append(totals.fpdus()).append('\n');
    s.append("RDMAP opcodes (segments / messages):\n");
    for (Map.Entry<Integer, Integer> e : new TreeMap<>(segments).entrySet()) {
      int op = e.getKey();
      s.append(String.format("  %2d %-28s %5d / %d%n", op,
          op < OPCODE_NAMES.size() ? OPCODE_NAMES.get(op) : "reserved", e.getValue(),
          messages(op)));
    }
    s.append("MPA CRC: good ").append(totals.crcGood()).append(", bad ").append(totals.crcBad())
        .append(", not negotiated ").append(totals.crcUnchecked()).append('\n');
    s.append("Markers seen: ").append(totals.markers()).append("; malformed packets: ")
        .append(totals.malformed()).append('\n');
    s.append("Errors: ").append(errors().size()).append(' ').append(codes(Level.ERROR))
        .append('\n');
    s.append("Warnings: ").append(at(Level.WARNING).size()).append(' ')
        .append(codes(Level.WARNING)).append('\n');
    s.append("Notes: ").append(codes(Level.NOTE)).append('\n');
    List<Finding> shown = findings.stream().filter(f -> f.level() != Level.NOTE).limit(40)
        .toList();
    for (Finding f : shown) {
      s.append("  ").append(f).append('\n');
    }
    s.append("RESULT: ").append(mpaConnections() == 0 ? "NO IWARP TRAFFIC FOUND"
        : !errors().isEmpty() ? "FAIL" : at(Level.WARNING).isEmpty() ? "PASS"
        : "PASS (with warnings)").append('\n');
    return s.toString();
  }

  @Override
  public String toString() {
    return summary();
  }
}
