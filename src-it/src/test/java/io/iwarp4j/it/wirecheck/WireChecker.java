package io.iwarp4j.it.wirecheck;

import io.iwarp4j.it.wirecheck.Finding.Level;
import io.iwarp4j.it.wirecheck.Finding.Sender;
import io.iwarp4j.it.wirecheck.Pdml.Node;
import io.iwarp4j.it.wirecheck.WireReport.Connection;
import io.iwarp4j.it.wirecheck.WireReport.MpaFrame;
import io.iwarp4j.testing.Hex;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.stream.XMLStreamException;

/**
 * The project's wire checker: dissects every TCP connection on one port of a capture with
 * tshark's iWARP dissectors ({@code iwarp_mpa}, {@code iwarp_ddp_rdmap}), takes tshark's own
 * verdicts (CRC, expert items, malformed packets, what it could not decode) and applies the RFC
 * rules tshark does not check to the fields it decoded:
 *
 * <ul>
 *   <li>MPA startup (RFC 5044 §7.1, RFC 6581): revisions, reserved bits, the S bit and its private
 *       data, the Reject bit, the peer-to-peer RTR;
 *   <li>framing: tshark's CRC verdicts, plus the checker's own framing of the raw byte stream
 *       ({@link OwnFramer}: CRC32c, PAD, Marker FPDUPTR and Reserved), which also tells a broken
 *       stream from one tshark 4 cannot follow;
 *   <li>DDP and RDMAP headers (RFC 5041, RFC 5040, RFC 7306): versions, reserved bits, opcode
 *       against T flag and queue number, MSN and MO per queue, TO per tagged message, single
 *       segment and fixed-length messages, the Invalidate STag field, Read Responses against
 *       Read Requests, Atomic Responses against Atomic Requests, Terminate fields.
 * </ul>
 *
 * Every finding names its sender (the MPA Initiator or Responder), so an interop run can tell its
 * own faults from the peer's. Needs only tshark (4.0 or later) on the PATH.
 */
public final class WireChecker {
  static final Set<Integer> TAGGED = Set.of(0, 2);
  static final Map<Integer, Integer> QUEUE = Map.of(1, 1, 3, 0, 4, 0, 5, 0, 6, 0, 7, 2,
      8, 0, 9, 0, 10, 1, 11, 3);
  static final Set<Integer> SINGLE_SEGMENT = Set.of(1, 7, 8, 9, 10, 11);
  static final Map<Integer, Integer> FIXED_PAYLOAD = Map.of(1, 28, 8, 8, 9, 8, 10, 52,
      11, 12);
  static final Set<Integer> INVALIDATE = Set.of(4, 6);
  private static final Set<Integer> NAMED_BY_TSHARK = Set.of(0, 1, 2, 3, 4, 5, 6, 7, 10, 11);
  private static final Set<Code> SEQUENCING = EnumSet.of(Code.S_MSN, Code.S_MO, Code.S_TO,
      Code.S_STAG, Code.S_READ_RESP, Code.S_ATOMIC_RESP, Code.S_LAST, Code.S_RTR,
      Code.S_UNFINISHED);

  /**
   * How to judge the capture.
   *
   * @param allowReject an MPA Reply with R=1 is expected (a note, not an error)
   */
  public record Options(boolean allowReject) {
    /** The defaults: every reject is an error. */
    public static final Options STRICT = new Options(false);
  }

  private final int port;
  /** The last port checked: {@link #port} for one port, above it for a range. */
  private final int lastPort;
  private final Options options;
  private final List<Finding> findings = new ArrayList<>();
  private final Map<Integer, Stream> streams = new TreeMap<>();
  private final Map<Integer, Integer> segments = new TreeMap<>();
  private final Map<Integer, Integer> messages = new TreeMap<>();
  private final Set<Integer> dissectorBugFrames = new HashSet<>();
  private int fpdus;
  private int crcGood;
  private int crcBad;
  private int crcUnchecked;
  private int markers;
  private int malformed;

  private WireChecker(int port, int lastPort, Options options) {
    this.port = port;
    this.lastPort = lastPort;
    this.options = options;
  }

  /** Checks every connection on {@code port} in {@code pcap}. */
  public static WireReport check(Path pcap, int port, Options options)
      throws IOException, InterruptedException {
    return check(pcap, port, port, options);
  }

  /**
   * Checks every connection on the ports {@code first..last} in {@code pcap}, in one tshark
   * pass (the interop suite gives every perftest row a port of its own; a pass per port re-reads
   * the whole capture each time). Each connection is judged on its own, as on one port; the MPA
   * roles come from each connection's Request.
   */
  public static WireReport check(Path pcap, int first, int last, Options options)
      throws IOException, InterruptedException {
    if (!Files.isRegularFile(pcap)) {
      throw new IOException("no capture at " + pcap);
    }
    if (last < first) {
      throw new IllegalArgumentException("port range " + first + "-" + last + " is empty");
    }
    WireChecker c = new WireChecker(first, last, options);
    c.dissect(pcap);
    c.judgeConnections();
    c.crossCheckExpertTap(Tshark.run(Tshark.command(pcap, "-q", "-z",
        "expert,note," + c.portFilter())));
    return c.report(pcap, Tshark.version());
  }

  /** tshark's display filter for the ports checked. */
  private String portFilter() {
    return port == lastPort ? "tcp.port == " + port
        : "tcp.port in {" + port + ".." + lastPort + "}";
  }

  // ------------------------------------------------------------------------------------------
  // Per-connection state.

  /** One TCP connection as the checker follows it. */
  private static final class Stream {
    final int id;
    int initiatorPort = -1;
    int responderPort;
    double startEpoch = -1;
    MpaFrame request;
    MpaFrame reply;
    int requestFrame = -1;
    int replyFrame = -1;
    long preMpaOctets;
    /** Directions in which tshark skipped or misdecoded octets. */
    final Set<Sender> incomplete = EnumSet.noneOf(Sender.class);
    final OwnFramer.Result[] own = new OwnFramer.Result[2];
    final long[] holeHidden = {-1, -1};
    final Direction[] dirs = {new Direction(), new Direction()};
    final Map<Integer, List<Segment>> segmentsByPort = new HashMap<>();
    final List<Integer> misalignedFrames = new ArrayList<>();
    final Set<Sender> resetBy = EnumSet.noneOf(Sender.class);
    final Map<Integer, Sender> frameSender = new HashMap<>();
    final int[] ownFpdus = {-1, -1};

    Stream(int id) {
      this.id = id;
    }

    Direction dir(Sender s) {
      return dirs[s.ordinal()];
    }

    /** CRC is used both ways when either side asked for it (RFC 5044 §7.1.2). */
    boolean crc() {
      return request.c() || reply.c();
    }
  }

  /** What one sender has sent on a connection. */
  private static final class Direction {
    long payloadOctets;
    long decodedOctets;
    final List<Fpdu> fpdus = new ArrayList<>();
    final Map<Long, long[]> queues = new HashMap<>(); // qn -> {expected msn, in msg, msn, mo}
    final Map<Long, Long> openTagged = new HashMap<>(); // stag -> next TO
    final ArrayDeque<long[]> reads = new ArrayDeque<>(); // {sink stag, sink to, size, got}
    final ArrayDeque<Long> atomics = new ArrayDeque<>();
  }

  private record Segment(long seq, byte[] payload, int frame) {
  }

  /** One FPDU as tshark decoded it. */
  private static final class Fpdu {
    int frame;
    int ulpduLength;
    int lengthPos;
    String crcVerdict; // good, bad, unchecked
    String crcText;
    Long crcField;
    byte[] pad;
    final List<int[]> markers = new ArrayList<>(); // {pos, reserved, ptr}
    Node ddp;
    long payloadLength = -1;
  }

  // ------------------------------------------------------------------------------------------
  // Dissection.

  private void dissect(Path pcap) throws IOException, InterruptedException {
    Path err = Files.createTempFile("tshark", ".err");
    Process p = new ProcessBuilder(Tshark.command(pcap, "-Y", portFilter(), "-T",
        "pdml")).redirectError(err.toFile()).start();
    boolean read = false;
    try (InputStream in = p.getInputStream()) {
      Pdml.read(in, this::packet);
      read = true;
    } catch (XMLStreamException e) {
      throw new IOException("tshark's PDML could not be read: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      // A fault of the checker itself; tshark's exit status after the closed pipe would hide it.
      throw new IOException("the wire checker failed on tshark's PDML: " + e, e);
    } finally {
      if (!read) {
        p.destroyForcibly();
      }
      if (!p.waitFor(300, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      String stderr = Files.readString(err);
      Files.deleteIfExists(err);
      if (read && !p.isAlive() && p.exitValue() != 0) {
        throw new IOException("tshark -T pdml failed (" + p.exitValue() + "): " + stderr);
      }
    }
  }

  private void packet(List<Node> protos) {
    Node tcp = null;
    int frame = -1;
    double epoch = -1;
    for (Node proto : protos) {
      if (proto.name.equals("frame")) {
        Long n = proto.number("frame.number");
        frame = n == null ? -1 : n.intValue();
        Node t = proto.first("frame.time_epoch");
        if (t != null && t.show != null) {
          try {
            epoch = Double.parseDouble(t.show);
          } catch (NumberFormatException e) {
            epoch = -1;
          }
        }
      } else if (proto.name.equals("tcp")) {
        tcp = proto;
      }
    }
    if (tcp == null || tcp.number("tcp.stream") == null) {
      return;
    }
    int sid = tcp.number("tcp.stream").intValue();
    Stream st = streams.computeIfAbsent(sid, Stream::new);
    if (st.startEpoch < 0) {
      st.startEpoch = epoch;
    }
    int srcPort = tcp.number("tcp.srcport").intValue();
    Long len = tcp.number("tcp.len");
    int tcpLen = len == null ? 0 : len.intValue();
    List<String> analysis = new ArrayList<>();
    for (String a : List.of("lost_segment", "ack_lost_segment", "retransmission",
        "fast_retransmission", "spurious_retransmission", "out_of_order")) {
      if (tcp.has("tcp.analysis." + a)) {
        analysis.add("tcp.analysis." + a);
      }
    }
    boolean retransmitted = analysis.stream().anyMatch(a -> a.contains("retransmission"));
    Sender sender = st.initiatorPort < 0 ? null
        : srcPort == st.initiatorPort ? Sender.INITIATOR : Sender.RESPONDER;
    Long reset = tcp.number("tcp.flags.reset");
    if (reset != null && reset != 0 && sender != null) {
      st.resetBy.add(sender);
    }
    if (!analysis.isEmpty()) {
      add(Code.T_CAPTURE, st, frame, sender, String.join(", ", analysis));
    }
    if (tcpLen > 0) {
      Node payload = tcp.first("tcp.payload");
      byte[] octets = payload == null ? null : Pdml.hex(payload.value);
      Long seq = tcp.number("tcp.seq");
      if (octets != null && seq != null) {
        st.segmentsByPort.computeIfAbsent(srcPort, k -> new ArrayList<>())
            .add(new Segment(seq, octets, frame));
      }
    }

    int fpdusHere = 0;
    List<Fpdu> here = new ArrayList<>(2);
    Fpdu pending = null;
    for (Node proto : protos) {
      experts(proto, st, frame, sender);
      switch (proto.name) {
        case "_ws.malformed" -> {
          malformed++;
          boolean bug = dissectorBugFrames.contains(frame);
          add(Code.T_MALFORMED, st, frame, sender, bug
              ? "tshark dissector bug (a failed assertion in tshark, not in the octets)"
              : "malformed packet");
        }
        case "iwarp_mpa" -> {
          pending = null;
          if (proto.has("iwarp_mpa.req") || proto.has("iwarp_mpa.rep")) {
            boolean req = proto.has("iwarp_mpa.req");
            MpaFrame m = mpaFrame(proto);
            if (req) {
              if (st.request == null) {
                st.request = m;
                st.requestFrame = frame;
                st.initiatorPort = srcPort;
                st.responderPort = tcp.number("tcp.dstport").intValue();
                sender = Sender.INITIATOR;
              }
              st.dir(Sender.INITIATOR).decodedOctets += 20 + m.privateData().length;
            } else {
              if (st.reply == null) {
                st.reply = m;
                st.replyFrame = frame;
              }
              st.dir(Sender.RESPONDER).decodedOctets += 20 + m.privateData().length;
            }
          } else if (proto.has("iwarp_mpa.fpdu")) {
            fpdusHere++;
            if (sender == null) {
              continue;
            }
            Fpdu f = fpdu(proto, frame);
            Direction d = st.dir(sender);
            int pad = (4 - (f.ulpduLength + 2) % 4) % 4;
            int wire = 2 + f.ulpduLength + pad + 4 + 4 * f.markers.size();
            d.decodedOctets += wire;
            d.fpdus.add(f);
            fpdus++;
            markers += f.markers.size();
            switch (f.crcVerdict) {
              case "good" -> crcGood++;
              case "bad" -> {
                crcBad++;
                add(Code.T_CRC_BAD, st, frame, sender, f.crcText);
              }
              default -> {
                crcUnchecked++;
                if (f.crcField != null && f.crcField != 0) {
                  add(Code.I_CRC_FIELD_NONZERO, st, frame, sender, String.format(
                      "CRC not negotiated, CRC field 0x%08x", f.crcField));
                }
              }
            }
            if (wire > tcpLen || fpdusHere > 1) {
              st.misalignedFrames.add(frame);
            }
            framingRules(st, sender, f);
            here.add(f);
            pending = f;
          }
        }
        case "iwarp_ddp_rdmap" -> {
          if (pending != null) {
            pending.ddp = proto;
            Fpdu f = pending;
            pending = null;
            ddpRules(st, sender, f);
          } else {
            add(Code.T_UNDECODED, st, frame, sender, "DDP/RDMAP without an MPA FPDU");
          }
        }
        default -> {
        }
      }
    }
    // An FPDU tshark framed but whose DDP header it did not decode.
    for (Fpdu f : here) {
      if (f.ddp == null) {
        add(Code.T_UNDECODED, st, frame, sender, "FPDU without a DDP/RDMAP decode");
      }
    }
    if (sender != null) {
      st.frameSender.put(frame, sender);
      if (!retransmitted) {
        st.dir(sender).payloadOctets += tcpLen;
      }
    } else if (tcpLen > 0 && st.request == null) {
      st.preMpaOctets += tcpLen;
    }
  }

  private void experts(Node proto, Stream st, int frame, Sender sender) {
    for (Node ex : proto.all("_ws.expert")) {
      Long sev = ex.number("_ws.expert.severity");
      Node msg = ex.first("_ws.expert.message");
      String text = msg != null && msg.show != null ? msg.show : String.valueOf(ex.showname);
      if (text.contains("failed assertion") || text.contains("Dissector bug")) {
        dissectorBugFrames.add(frame);
      }
      if (sev == null || sev < 0x00600000L) {
        continue;
      }
      String field = null;
      for (Node c : ex.children) {
        if (!c.name.startsWith("_ws.expert")) {
          field = c.name;
          break;
        }
      }
      boolean iwarp = proto.name.startsWith("iwarp") || (field != null
          && field.startsWith("iwarp"));
      if (!iwarp) {
        continue;
      }
      if ("iwarp_mpa.bad_length".equals(field)) {
        add(Code.T_MPA_PD_TOO_LONG, st, frame, sender, text);
      } else {
        add(Code.T_EXPERT, st, frame, sender, field + ": " + text);
      }
    }
  }

  private static MpaFrame mpaFrame(Node proto) {
    Long pdLength = proto.number("iwarp_mpa.pdlength");
    byte[] pd = proto.octets("iwarp_mpa.privatedata");
    return new MpaFrame(flag(proto, "iwarp_mpa.marker_flag"), flag(proto, "iwarp_mpa.crc_flag"),
        flag(proto, "iwarp_mpa.rej_flag"), num(proto, "iwarp_mpa.res"),
        num(proto, "iwarp_mpa.rev"), pd == null ? new byte[0] : pd, pdLength != null);
  }

  private static Fpdu fpdu(Node proto, int frame) {
    Fpdu f = new Fpdu();
    f.frame = frame;
    Node len = proto.first("iwarp_mpa.ulpdulength");
    f.ulpduLength = len == null ? 0 : (int) (long) Pdml.parseNumber(len.show);
    f.lengthPos = len == null ? -1 : len.pos;
    Node check = proto.first("iwarp_mpa.crc_check");
    if (check != null) {
      String shown = String.valueOf(check.showname);
      f.crcVerdict = shown.contains("Good CRC32") ? "good" : shown.contains("Bad CRC32") ? "bad"
          : "unknown";
      f.crcText = shown;
      if (f.crcVerdict.equals("unknown")) {
        f.crcVerdict = "bad";
        f.crcText = "tshark gave no CRC verdict: " + shown;
      }
    } else {
      f.crcVerdict = "unchecked";
      f.crcField = proto.number("iwarp_mpa.crc");
    }
    f.pad = proto.octets("iwarp_mpa.pad");
    List<Node> res = proto.all("iwarp_mpa.marker_res");
    List<Node> ptr = proto.all("iwarp_mpa.marker_fpduptr");
    for (int i = 0; i < Math.min(res.size(), ptr.size()); i++) {
      f.markers.add(new int[] {res.get(i).pos, (int) (long) Pdml.parseNumber(res.get(i).show),
          (int) (long) Pdml.parseNumber(ptr.get(i).show)});
    }
    return f;
  }

  private static boolean flag(Node n, String field) {
    Long v = n.number(field);
    return v != null && v != 0;
  }

  private static int num(Node n, String field) {
    Long v = n.number(field);
    return v == null ? -1 : v.intValue();
  }

  // ------------------------------------------------------------------------------------------
  // RFC 5044 Markers and PAD, RFC 5041 / 5040 / 7306 headers, on tshark's fields.

  private void framingRules(Stream st, Sender sender, Fpdu f) {
    int frame = f.frame;
    for (int[] m : f.markers) {
      if (m[1] != 0) {
        add(Code.S_MARKER_RES, st, frame, sender, String.format("marker Reserved 0x%04x", m[1]));
      }
      if (f.lengthPos >= 0 && m[0] >= 0) {
        int expected = m[0] + 4 == f.lengthPos ? 0 : m[0] - f.lengthPos;
        if (m[2] != expected) {
          add(Code.S_MARKER_PTR, st, frame, sender, "FPDUPTR " + m[2] + ", expected " + expected);
        }
      }
    }
    // With Markers tshark shows the wrong octets as PAD (its offset is taken modulo 512); the own
    // framer checks every PAD.
    if (f.markers.isEmpty() && f.pad != null) {
      for (byte b : f.pad) {
        if (b != 0) {
          add(Code.S_PAD_NONZERO, st, frame, sender, "PAD " + Hex.of(f.pad));
          break;
        }
      }
    }
  }

  private void ddpRules(Stream st, Sender sender, Fpdu f) {
    int frame = f.frame;
    Node d = f.ddp;
    boolean tagged = flag(d, "iwarp_ddp.tagged_flag");
    boolean last = flag(d, "iwarp_ddp.last_flag");
    int header = tagged ? 14 : 18;
    if (f.ulpduLength < header) {
      add(Code.S_ULPDU_SHORT, st, frame, sender, "ULPDU length " + f.ulpduLength
          + " < DDP header " + header);
      return;
    }
    long plen = f.ulpduLength - header;
    f.payloadLength = plen;
    int dv = num(d, "iwarp_ddp.dv");
    int rv = num(d, "iwarp_rdma.version");
    if (dv != 1) {
      add(Code.S_DDP_VERSION, st, frame, sender, "DV=" + dv);
    }
    if (rv != 1) {
      add(Code.S_RDMAP_VERSION, st, frame, sender, "RV=" + rv
          + (rv == 0 ? " (0 is the pre-IETF RDMAC version)" : ""));
    }
    if (num(d, "iwarp_ddp.rsvd") > 0) {
      add(Code.S_DDP_RSVD, st, frame, sender, "DDP Rsvd 0x" + Integer.toHexString(
          num(d, "iwarp_ddp.rsvd")));
    }
    if (num(d, "iwarp_rdma.rsv") > 0) {
      add(Code.S_RDMAP_RSV, st, frame, sender, "RDMAP Rsv 0x" + Integer.toHexString(
          num(d, "iwarp_rdma.rsv")));
    }
    int op = num(d, "iwarp_rdma.opcode");
    if (op < 0) {
      return;
    }
    segments.merge(op, 1, Integer::sum);
    if (last) {
      messages.merge(op, 1, Integer::sum);
    }
    String name = op < WireReport.OPCODE_NAMES.size() ? WireReport.OPCODE_NAMES.get(op)
        : "opcode " + op;
    if (op >= 12) {
      add(Code.S_OPCODE_RESERVED, st, frame, sender, "opcode " + op + " is reserved");
      return;
    }
    if (tagged != TAGGED.contains(op)) {
      add(Code.S_TAGGED_MISMATCH, st, frame, sender, name + " with T=" + (tagged ? 1 : 0));
      return;
    }
    Long qn = d.number("iwarp_ddp.qn");
    Long msn = d.number("iwarp_ddp.msn");
    Long mo = d.number("iwarp_ddp.mo");
    if (!tagged && !QUEUE.get(op).equals(qn == null ? null : qn.intValue())) {
      add(Code.S_QN_MISMATCH, st, frame, sender, name + " on QN " + qn + " (must be "
          + QUEUE.get(op) + ")");
    }
    if (SINGLE_SEGMENT.contains(op) && (!last || (mo != null && mo != 0))) {
      add(Code.S_LAST, st, frame, sender, name + " with L=" + (last ? 1 : 0) + " MO=" + mo);
    }
    if (FIXED_PAYLOAD.containsKey(op) && plen != FIXED_PAYLOAD.get(op)) {
      add(Code.S_LENGTH, st, frame, sender, name + " with " + plen + " octets of DDP payload"
          + " (must be " + FIXED_PAYLOAD.get(op) + ")");
    }
    if (op == 7) {
      terminateRules(st, sender, frame, d, plen);
    }
    if (!tagged && !INVALIDATE.contains(op)) {
      // RsvdULP: the RDMAP control octet, then the Invalidate STag field (zero here).
      byte[] ulp = d.octets("iwarp_ddp.rsvdulp");
      if (ulp != null && ulp.length == 5) {
        long inval = (ulp[1] & 0xffL) << 24 | (ulp[2] & 0xffL) << 16 | (ulp[3] & 0xffL) << 8
            | ulp[4] & 0xffL;
        if (inval != 0) {
          add(Code.S_INVAL_STAG, st, frame, sender, String.format(
              "%s carries Invalidate STag 0x%08x", name, inval));
        }
      }
    }

    Direction dir = st.dir(sender);
    if (!tagged) {
      long[] q = dir.queues.computeIfAbsent(qn, k -> new long[] {1, 0, 0, 0});
      long m = msn == null ? -1 : msn;
      long o = mo == null ? -1 : mo;
      if (q[1] == 1) {
        if (m != q[2]) {
          add(Code.S_MSN, st, frame, sender, "QN " + qn + ": MSN " + m + " while message MSN "
              + q[2] + " is unfinished");
        }
        if (o != q[3]) {
          add(Code.S_MO, st, frame, sender, "QN " + qn + " MSN " + m + ": MO " + o
              + ", expected " + q[3]);
        }
      } else {
        if (m != q[0]) {
          add(Code.S_MSN, st, frame, sender, "QN " + qn + ": MSN " + m + ", expected " + q[0]);
        }
        if (o != 0) {
          add(Code.S_MO, st, frame, sender, "QN " + qn + " MSN " + m + ": first segment MO "
              + o);
        }
      }
      q[3] = Math.max(o, 0) + plen;
      if (last) {
        q[1] = 0;
        q[0] = (m + 1) & 0xffffffffL;
      } else {
        q[1] = 1;
        q[2] = m;
      }
    } else {
      Long stag = d.number("iwarp_ddp.stag");
      Long to = d.number("iwarp_ddp.tagged_offset");
      Long expected = dir.openTagged.get(stag);
      if (expected != null && !expected.equals(to)) {
        add(Code.S_TO, st, frame, sender, String.format("STag 0x%x: TO 0x%x, expected 0x%x",
            stag, to, expected));
      }
      if (expected == null && !dir.openTagged.isEmpty() && op != 2) {
        add(Code.S_STAG, st, frame, sender, String.format(
            "STag 0x%x begins while STag 0x%x is unfinished", stag,
            dir.openTagged.keySet().iterator().next()));
      }
      if (last) {
        dir.openTagged.remove(stag);
      } else {
        dir.openTagged.put(stag, (to == null ? 0 : to) + plen);
      }
    }

    Direction peer = st.dir(sender.other());
    if (op == 1 && d.has("iwarp_rdma.rr")) {
      dir.reads.add(new long[] {nz(d.number("iwarp_rdma.sinkstag")),
          nz(d.number("iwarp_rdma.sinkto")), nz(d.number("iwarp_rdma.rdmardsz")), 0});
    } else if (op == 2) {
      long[] rd = peer.reads.peek();
      Long stag = d.number("iwarp_ddp.stag");
      Long to = d.number("iwarp_ddp.tagged_offset");
      if (rd == null) {
        add(Code.S_READ_RESP, st, frame, sender, "Read Response with no outstanding Read"
            + " Request");
      } else {
        if (nz(stag) != rd[0]) {
          add(Code.S_READ_RESP, st, frame, sender, String.format("Read Response STag 0x%x, the"
              + " Read Request's Data Sink STag 0x%x", stag, rd[0]));
        } else if (nz(to) != rd[1] + rd[3]) {
          add(Code.S_READ_RESP, st, frame, sender, String.format("Read Response TO 0x%x,"
              + " expected 0x%x", to, rd[1] + rd[3]));
        }
        rd[3] += plen;
        if (last) {
          if (rd[3] != rd[2]) {
            add(Code.S_READ_RESP, st, frame, sender, "Read Response of " + rd[3]
                + " octets, the Read Request asked for " + rd[2]);
          }
          peer.reads.poll();
        }
      }
    } else if (op == 10 && d.has("iwarp_rdma.atomic.request_identifier")) {
      dir.atomics.add(d.number("iwarp_rdma.atomic.request_identifier"));
    } else if (op == 11) {
      Long want = peer.atomics.poll();
      Long got = d.number("iwarp_rdma.atomic.original_request_identifier");
      if (want == null) {
        add(Code.S_ATOMIC_RESP, st, frame, sender, "Atomic Response with no outstanding Atomic"
            + " Request");
      } else if (!want.equals(got)) {
        add(Code.S_ATOMIC_RESP, st, frame, sender, "Atomic Response for request " + got
            + ", expected " + want);
      }
    }
  }

  /**
   * RFC 5040 §4.8: Layer 0 (RDMAP), 1 (DDP) or 2 (LLP); Reserved zero; the DDP Segment Length and
   * Terminated DDP Header present exactly when D is set (14 octets for a tagged header, 18 for an
   * untagged one), the 28-octet Terminated RDMA Header exactly when R is set.
   */
  private void terminateRules(Stream st, Sender sender, int frame, Node d, long plen) {
    if (plen < 4) {
      add(Code.S_TERMINATE, st, frame, sender, "Terminate with " + plen + " octets of payload");
      return;
    }
    int layer = num(d, "iwarp_rdma.term_layer");
    if (layer > 2 || layer < 0) {
      add(Code.S_TERMINATE, st, frame, sender, "Terminate Layer " + layer
          + " (0 RDMAP, 1 DDP, 2 LLP)");
    }
    int reserved = num(d, "iwarp_rdma.term_rsvd");
    if (reserved > 0) {
      add(Code.S_TERMINATE, st, frame, sender, "Terminate Reserved 0x"
          + Integer.toHexString(reserved));
    }
    boolean hasD = flag(d, "iwarp_rdma.hdrct_d");
    boolean hasR = flag(d, "iwarp_rdma.hdrct_r");
    long expected = 4;
    if (hasD) {
      byte[] ddpHeader = d.octets("iwarp_rdma.term_ddp_h");
      boolean taggedHeader = ddpHeader != null && ddpHeader.length > 0
          && (ddpHeader[0] & 0x80) != 0;
      expected += 2 + (taggedHeader ? 14 : 18);
    }
    if (hasR) {
      expected += 28;
    }
    if (plen != expected) {
      add(Code.S_TERMINATE, st, frame, sender, "Terminate with D=" + (hasD ? 1 : 0) + " R="
          + (hasR ? 1 : 0) + " has " + plen + " octets of payload, expected " + expected);
    }
  }

  private static long nz(Long v) {
    return v == null ? -1 : v;
  }

  // ------------------------------------------------------------------------------------------
  // Per connection, once every packet is read.

  private void judgeConnections() {
    for (Stream st : streams.values()) {
      if (st.request == null) {
        if (st.preMpaOctets > 0) {
          add(Code.T_NO_MPA, st, -1, null, st.preMpaOctets + " TCP payload octets and no MPA"
              + " Request");
        }
        continue;
      }
      mpaRules(st);
      if (st.reply == null) {
        add(Code.T_NO_REPLY, st, st.requestFrame, Sender.RESPONDER, "no MPA Reply seen");
        continue;
      }
      if (st.reply.r()) {
        add(options.allowReject() ? Code.I_MPA_REJECT_ALLOWED : Code.T_MPA_REJECT, st,
            st.replyFrame, Sender.RESPONDER, "the Responder rejected the connection");
      }
      boolean asymmetric = st.request.m() != st.reply.m();
      if (asymmetric) {
        add(Code.W_ASYM_MARKERS, st, st.replyFrame, null, "Request M=" + (st.request.m() ? 1
            : 0) + ", Reply M=" + (st.reply.m() ? 1 : 0) + ": tshark expects Markers both ways"
            + " and cannot decode the direction without them (the own framer checks it)");
      }
      if ((st.request.m() || st.reply.m()) && !st.misalignedFrames.isEmpty()) {
        add(Code.I_MARKER_SEGMENTATION, st, st.misalignedFrames.get(0), null, "frames "
            + st.misalignedFrames.subList(0, Math.min(5, st.misalignedFrames.size()))
            + " hold more or less than one FPDU; tshark's Marker arithmetic assumes one");
      }
      rtrRule(st);
      for (Sender s : Sender.values()) {
        coverage(st, s, asymmetric);
      }
      ownChecksWhereTsharkCouldNotFollow(st);
      for (Sender s : Sender.values()) {
        for (Map.Entry<Long, long[]> q : st.dir(s).queues.entrySet()) {
          if (q.getValue()[1] == 1) {
            add(Code.S_UNFINISHED, st, -1, s, "QN " + q.getKey() + ": message MSN "
                + q.getValue()[2] + " never got its L=1 segment");
          }
        }
      }
    }
    // Sequencing and matching rules cannot be trusted where tshark skipped FPDUs: in the
    // finding's own direction, or, for a response matched against requests, in the requests'
    // direction. The own framer's checks stand for them there (coverage and
    // ownChecksWhereTsharkCouldNotFollow); a direction tshark followed keeps its findings.
    for (int i = 0; i < findings.size(); i++) {
      Finding f = findings.get(i);
      Stream st = streams.get(f.stream());
      if (st == null || f.sender() == null || !SEQUENCING.contains(f.code())
          || f.level() == Level.NOTE) {
        continue;
      }
      boolean own = st.incomplete.contains(f.sender());
      boolean requests = (f.code() == Code.S_READ_RESP || f.code() == Code.S_ATOMIC_RESP)
          && st.incomplete.contains(f.sender().other());
      if (own || requests) {
        findings.set(i, f.withLevel(Level.NOTE, own
            ? "[unreliable: tshark skipped FPDUs of this direction] "
            : "[unreliable: tshark skipped FPDUs of the requests' direction] "));
      }
    }
  }

  /**
   * Where tshark could not follow a direction, the own framer checks what tshark's rules did
   * across directions: Read and Atomic Responses against the other direction's requests (both
   * ways, since a skipped request or response unsettles both), and the RFC 6581 RTR when the
   * Initiator's direction is the one tshark lost. Its per-direction header rules run in
   * coverage().
   */
  private void ownChecksWhereTsharkCouldNotFollow(Stream st) {
    if (st.incomplete.isEmpty()) {
      return;
    }
    for (Sender s : Sender.values()) {
      OwnFramer.Result requests = st.own[s.other().ordinal()];
      OwnFramer.Result responses = st.own[s.ordinal()];
      if (requests == null || responses == null) {
        continue;
      }
      for (OwnFramer.Problem p : OwnFramer.responseProblems(requests.fpdus(),
          responses.fpdus())) {
        add(p.code(), st, -1, s, "FPDU at octet " + p.offset() + " after the MPA frame: "
            + p.message());
      }
    }
    OwnFramer.Result init = st.own[Sender.INITIATOR.ordinal()];
    if (st.incomplete.contains(Sender.INITIATOR) && init != null && p2p(st)) {
      MpaFrame rep = st.reply;
      boolean sendOk = (rep.privateData()[0] & 0x40) != 0;
      boolean writeOk = (rep.privateData()[2] & 0x80) != 0;
      boolean readOk = (rep.privateData()[2] & 0x40) != 0;
      byte[] u = init.fpdus().isEmpty() ? new byte[0] : init.fpdus().get(0).ulpdu();
      int op = u.length > 1 ? u[1] & 0x0f : -1;
      boolean tagged = u.length > 0 && (u[0] & 0x80) != 0;
      boolean ok = op == 3 && !tagged && u.length == 18 && sendOk
          || op == 0 && tagged && u.length == 14 && writeOk
          || op == 1 && !tagged && u.length == 18 + 28 && readOk
          && (u[30] | u[31] | u[32] | u[33]) == 0;
      if (!ok) {
        add(Code.F_DDP, st, -1, Sender.INITIATOR, "own framer: the first Initiator FPDU is not"
            + " a zero-length RTR the Responder accepted (RFC 6581)");
      }
    }
  }

  private static boolean p2p(Stream st) {
    MpaFrame req = st.request;
    MpaFrame rep = st.reply;
    return req.enhanced() && rep.enhanced() && req.privateData().length >= 4
        && rep.privateData().length >= 4 && !rep.r() && (req.privateData()[0] & 0x80) != 0
        && (rep.privateData()[0] & 0x80) != 0;
  }

  private void mpaRules(Stream st) {
    MpaFrame req = st.request;
    if (req.rev() != 1) {
      if (req.rev() == 2) {
        add(Code.I_RFC6581_REV, st, st.requestFrame, Sender.INITIATOR, "tshark warns 'Rev field"
            + " is NOT set to one' on the RFC 6581 Rev 2");
      } else {
        add(Code.T_MPA_REV_NOT_1, st, st.requestFrame, Sender.INITIATOR, "Request Rev "
            + req.rev());
      }
    }
    if (req.res() != 0) {
      if (req.res() == 0x10 && req.rev() >= 2) {
        add(Code.I_RFC6581_S, st, st.requestFrame, Sender.INITIATOR, "tshark warns 'Res field"
            + " is NOT set to zero' on the RFC 6581 S bit");
      } else {
        add(Code.T_MPA_RES_NOT_0, st, st.requestFrame, Sender.INITIATOR, String.format(
            "Request Res 0x%02x", req.res()));
      }
    }
    for (Sender s : Sender.values()) {
      MpaFrame m = s == Sender.INITIATOR ? req : st.reply;
      int frame = s == Sender.INITIATOR ? st.requestFrame : st.replyFrame;
      if (m == null) {
        continue;
      }
      String what = s == Sender.INITIATOR ? "Request" : "Reply";
      if (m.rev() != 1 && m.rev() != 2) {
        add(Code.S_MPA_REV, st, frame, s, what + " Rev " + m.rev());
      }
      if ((m.res() & 0x0f) != 0) {
        add(Code.S_MPA_RES, st, frame, s, String.format("%s Res 0x%02x", what, m.res()));
      }
      if (m.enhanced() && m.rev() < 2) {
        add(Code.S_MPA_ENHANCED, st, frame, s, what + " with S and Rev " + m.rev());
      }
      if (m.enhanced() && m.privateData().length < 4) {
        add(Code.S_MPA_ENHANCED, st, frame, s, what + " with S and only "
            + m.privateData().length + " octets of private data");
      }
    }
    MpaFrame rep = st.reply;
    if (rep != null) {
      if (rep.rev() > req.rev()) {
        add(Code.S_MPA_REV, st, st.replyFrame, Sender.RESPONDER, "Reply Rev " + rep.rev()
            + " > Request Rev " + req.rev());
      }
      if (req.enhanced() != rep.enhanced() && !rep.r()) {
        add(Code.S_MPA_ENHANCED, st, st.replyFrame, Sender.RESPONDER, "Request S="
            + (req.enhanced() ? 1 : 0) + ", Reply S=" + (rep.enhanced() ? 1 : 0));
      }
    }
  }

  /** RFC 6581 §7.1: in peer-to-peer mode the Initiator's first FPDU is an accepted RTR. */
  private void rtrRule(Stream st) {
    MpaFrame req = st.request;
    MpaFrame rep = st.reply;
    if (!req.enhanced() || !rep.enhanced() || req.privateData().length < 4
        || rep.privateData().length < 4 || rep.r()) {
      return;
    }
    boolean p2pReq = (req.privateData()[0] & 0x80) != 0;
    boolean p2pRep = (rep.privateData()[0] & 0x80) != 0;
    if (!p2pReq || !p2pRep) {
      return;
    }
    boolean sendOk = (rep.privateData()[0] & 0x40) != 0; // B: zero-length Send
    boolean writeOk = (rep.privateData()[2] & 0x80) != 0; // C: zero-length Write
    boolean readOk = (rep.privateData()[2] & 0x40) != 0; // D: zero-length Read
    List<Fpdu> first = st.dir(Sender.INITIATOR).fpdus;
    Fpdu f = first.isEmpty() ? null : first.get(0);
    boolean ok = false;
    if (f != null && f.ddp != null) {
      int op = num(f.ddp, "iwarp_rdma.opcode");
      ok = op == 3 && f.payloadLength == 0 && sendOk
          || op == 0 && f.payloadLength == 0 && writeOk
          || op == 1 && f.ddp.number("iwarp_rdma.rdmardsz") != null
          && f.ddp.number("iwarp_rdma.rdmardsz") == 0 && readOk;
    }
    if (!ok) {
      add(Code.S_RTR, st, f != null ? f.frame : st.replyFrame, Sender.INITIATOR, "the first"
          + " Initiator FPDU is not a zero-length RTR the Responder accepted (B/C/D = "
          + (sendOk ? 1 : 0) + "/" + (writeOk ? 1 : 0) + "/" + (readOk ? 1 : 0) + ")");
    }
  }

  /**
   * Frames one direction's raw octets with the own framer and compares them with what tshark
   * decoded: octets tshark skipped are an error when the framer finds the stream broken too, and
   * a warning (tshark's limitation) when it does not.
   */
  private void coverage(Stream st, Sender s, boolean asymmetric) {
    if (st.reply.r()) {
      return;
    }
    int srcPort = s == Sender.INITIATOR ? st.initiatorPort : st.segmentsByPort.keySet().stream()
        .filter(p -> p != st.initiatorPort).findFirst().orElse(-1);
    Assembled raw = assemble(st.segmentsByPort.getOrDefault(srcPort, List.of()));
    if (raw.data.length < 20) {
      return;
    }
    int mpaLength = 20 + ((raw.data[18] & 0xff) << 8 | raw.data[19] & 0xff);
    if (mpaLength > raw.data.length) {
      return;
    }
    boolean markersHere = s == Sender.INITIATOR ? st.reply.m() : st.request.m();
    byte[] stream = java.util.Arrays.copyOfRange(raw.data, mpaLength, raw.data.length);
    OwnFramer.Result own = OwnFramer.frame(stream, st.crc(), markersHere);
    st.own[s.ordinal()] = own;
    st.ownFpdus[s.ordinal()] = own.fpdus().size();
    for (OwnFramer.Problem p : own.problems()) {
      add(p.code(), st, raw.frameAt(mpaLength + p.offset()), s, p.message());
    }
    for (OwnFramer.Terminate t : OwnFramer.terminates(own.fpdus())) {
      add(Code.I_TERMINATE, st, raw.frameAt(mpaLength + t.offset()), s, "Terminate " + t
          + " (Layer/Error Type/Error Code as RFC 5040 §4.8 lays them out)");
    }
    if (raw.gapAt >= 0) {
      // The own framer stops at the hole and tshark may lose the framing there: what this
      // direction sent after it is unchecked. Counted from the highest sequence number seen.
      st.holeHidden[s.ordinal()] = raw.sentEnd - raw.gapAt;
      add(Code.T_CAPTURE_HOLE, st, raw.frameAt(raw.gapAt), s, "a hole in the captured byte"
          + " stream at octet " + raw.gapAt + ": " + st.holeHidden[s.ordinal()] + " octets sent"
          + " after it are unchecked");
    }
    Direction d = st.dir(s);
    MpaFrame mpa = s == Sender.INITIATOR ? st.request : st.reply;
    long missing = d.payloadOctets - d.decodedOctets;
    if (!mpa.pdLengthShown()) {
      missing -= mpaLength - 20;
    }
    // PAD octets take no part in framing (RFC 5044 §4: the length field alone places the next
    // FPDU), so a direction whose only own-framer problem is a non-zero PAD (siw's stale octets)
    // is framed exactly: tshark's losing it is tshark's limit, and the own framer's header checks
    // below stand in for tshark's. The PAD findings stay reported against their sender.
    boolean broken = own.problems().stream().anyMatch(p -> p.code() != Code.F_PAD_NONZERO);
    int misdecoded = 0;
    if (asymmetric && !markersHere && !broken) {
      // tshark expects Markers in this Marker-less direction: what it decoded here is noise.
      int mpaFrame = s == Sender.INITIATOR ? st.requestFrame : st.replyFrame;
      for (int i = 0; i < findings.size(); i++) {
        Finding f = findings.get(i);
        if (f.stream() == st.id && f.level() != Level.NOTE && f.frame() >= 0
            && f.frame() != mpaFrame && st.frameSender.get(f.frame()) == s
            && !f.code().name().startsWith("F_") && !f.code().name().startsWith("W_")
            && f.code() != Code.T_CAPTURE) {
          findings.set(i, f.withLevel(Level.NOTE,
              "[unreliable: tshark expects Markers in this Marker-less direction] "));
          misdecoded++;
        }
      }
    }
    if (missing == 0 && misdecoded == 0) {
      return;
    }
    st.incomplete.add(s);
    List<String> hints = new ArrayList<>();
    if (asymmetric && !markersHere) {
      hints.add("Markers in one direction only (tshark expects them here)");
    }
    if (misdecoded > 0) {
      hints.add(misdecoded + " finding(s) from tshark's misdecode demoted to notes");
    }
    if (markersHere) {
      for (OwnFramer.Fpdu f : own.fpdus()) {
        if (f.end() % OwnFramer.MARKER_INTERVAL == 0 && f.markers() > 0
            && f.end() < stream.length) {
          hints.add("the FPDU at octet " + (mpaLength + f.start()) + " ends on a 512-octet"
              + " Marker boundary: tshark 4 counts one Marker too many and loses FPDU sync");
          break;
        }
      }
      if (!st.misalignedFrames.isEmpty()) {
        hints.add("Markers with FPDUs not aligned to TCP segments");
      }
    }
    if (raw.firstSegmentLength > mpaLength) {
      hints.add("FPDU octets in the TCP segment of the MPA "
          + (s == Sender.INITIATOR ? "Request" : "Reply") + ": tshark dissects FPDUs only in"
          + " later frames");
    }
    String msg = (d.payloadOctets - mpaLength) + " TCP payload octets after"
        + " MPA startup, tshark left " + missing + " undecoded; own framer: " + own.fpdus().size()
        + " FPDUs, " + own.problems().size() + " framing errors"
        + (!broken && !own.problems().isEmpty() ? " (non-zero PAD only)" : "")
        + (hints.isEmpty() ? "" : "; likely cause: " + String.join("; ", hints));
    if (broken) {
      add(Code.T_UNDECODED, st, -1, s, msg);
    } else {
      add(Code.W_TSHARK_LIMIT, st, -1, s, msg + " -> well-formed; the own framer checked the"
          + " DDP/RDMAP headers of this direction instead");
      for (OwnFramer.Problem p : OwnFramer.headerProblems(own.fpdus())) {
        add(p.code(), st, raw.frameAt(mpaLength + p.offset()), s, "FPDU at octet "
            + (mpaLength + p.offset()) + ": " + p.message());
      }
    }
  }


  /** One direction's TCP payload in sequence order, with the frame each octet came in. */
  private static final class Assembled {
    byte[] data = new byte[0];
    final List<int[]> index = new ArrayList<>(); // {offset, frame}
    int gapAt = -1;
    /** The stream offset just past the highest octet any segment carried. */
    long sentEnd;
    int firstSegmentLength;

    int frameAt(int offset) {
      int frame = -1;
      for (int[] e : index) {
        if (e[0] > offset) {
          break;
        }
        frame = e[1];
      }
      return frame;
    }
  }

  private static Assembled assemble(List<Segment> segs) {
    Assembled a = new Assembled();
    List<Segment> sorted = new ArrayList<>(segs);
    sorted.sort(Comparator.comparingLong(Segment::seq));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long next = -1;
    long first = sorted.isEmpty() ? 0 : sorted.get(0).seq();
    for (Segment s : sorted) {
      a.sentEnd = Math.max(a.sentEnd, s.seq() + s.payload().length - first);
    }
    for (Segment s : sorted) {
      if (next < 0) {
        next = s.seq();
        a.firstSegmentLength = s.payload().length;
      }
      if (s.seq() + s.payload().length <= next) {
        continue; // a retransmission of octets already here
      }
      if (s.seq() > next) {
        a.gapAt = out.size();
        break;
      }
      a.index.add(new int[] {out.size(), s.frame()});
      int skip = (int) (next - s.seq());
      out.write(s.payload(), skip, s.payload().length - skip);
      next = s.seq() + s.payload().length;
    }
    a.data = out.toByteArray();
    return a;
  }

  // ------------------------------------------------------------------------------------------
  // tshark's expert tap: items without a tree entry (Rev, Res, Reject) never reach the PDML.

  private static final Pattern TAP_SECTION =
      Pattern.compile("^(Errors|Warns|Notes|Chats|Comments) \\(\\d+\\)");
  private static final Pattern TAP_ROW =
      Pattern.compile("^\\s+(\\d+)\\s+(\\S+)\\s+(\\S+)\\s+(.*\\S)\\s*$");

  private void crossCheckExpertTap(String tap) {
    Set<Code> seen = EnumSet.noneOf(Code.class);
    findings.forEach(f -> seen.add(f.code()));
    Map<String, Set<Code>> reproduced = Map.of(
        "Rev field is NOT set to one as required by RFC 5044",
        EnumSet.of(Code.T_MPA_REV_NOT_1, Code.I_RFC6581_REV),
        "Res field is NOT set to zero as required by RFC 5044",
        EnumSet.of(Code.T_MPA_RES_NOT_0, Code.I_RFC6581_S),
        "Reject bit set by Responder", EnumSet.of(Code.T_MPA_REJECT, Code.I_MPA_REJECT_ALLOWED));
    String severity = null;
    for (String line : tap.split("\n")) {
      Matcher sec = TAP_SECTION.matcher(line);
      if (sec.find()) {
        severity = sec.group(1);
        continue;
      }
      Matcher row = TAP_ROW.matcher(line);
      if (severity == null || !row.matches()) {
        continue;
      }
      String group = row.group(2);
      String protocol = row.group(3);
      String summary = row.group(4);
      boolean serious = severity.equals("Errors") || severity.equals("Warns");
      if (protocol.toUpperCase().startsWith("IWARP") || protocol.equals("MPA")
          || protocol.equals("DDP/RDMA")) {
        Set<Code> known = reproduced.get(summary);
        boolean attributed = known != null ? known.stream().anyMatch(seen::contains)
            : summary.startsWith("[PD length") ? seen.contains(Code.T_MPA_PD_TOO_LONG)
            : !serious || seen.contains(Code.T_EXPERT) || seen.contains(Code.T_MALFORMED);
        if (!attributed) {
          findings.add(new Finding(Code.T_UNATTRIBUTED_EXPERT, Level.ERROR, -1, -1, null,
              severity + ": " + summary));
        }
      } else if (severity.equals("Errors") && group.equals("Malformed")
          && !seen.contains(Code.T_MALFORMED)) {
        findings.add(new Finding(Code.T_MALFORMED, Level.ERROR, -1, -1, null, protocol + ": "
            + summary));
      }
    }
  }

  // ------------------------------------------------------------------------------------------

  private void add(Code code, Stream st, int frame, Sender sender, String message) {
    findings.add(new Finding(code, code.level, st.id, frame, sender, message));
  }

  private WireReport report(Path pcap, String version) {
    for (Map.Entry<Integer, Integer> e : segments.entrySet()) {
      int op = e.getKey();
      if (op < 12 && !NAMED_BY_TSHARK.contains(op)) {
        findings.add(new Finding(Code.I_TSHARK_UNNAMED_OPCODE, Level.NOTE, -1, -1, null,
            "opcode " + op + " (" + WireReport.OPCODE_NAMES.get(op) + "): tshark shows 'Unknown "
            + op + "' and decodes only its DDP header; " + e.getValue() + " segment(s)"));
      }
    }
    List<Connection> conns = new ArrayList<>();
    for (Stream st : streams.values()) {
      conns.add(new Connection(st.id, Math.max(st.initiatorPort, 0), st.request, st.reply,
          new int[] {st.dirs[0].fpdus.size(), st.dirs[1].fpdus.size()}, st.ownFpdus.clone(),
          new long[] {st.dirs[0].payloadOctets, st.dirs[1].payloadOctets},
          Set.copyOf(st.resetBy), st.responderPort, Math.max(st.startEpoch, 0),
          st.holeHidden.clone()));
    }
    List<Finding> sorted = new ArrayList<>(findings);
    sorted.sort(Comparator.comparing(Finding::level));
    return new WireReport(pcap.toString(), port, version, List.copyOf(conns),
        new WireReport.Totals(fpdus, crcGood, crcBad, crcUnchecked, markers, malformed),
        Map.copyOf(segments), Map.copyOf(messages), List.copyOf(sorted),
        Set.copyOf(dissectorBugFrames));
  }
}
