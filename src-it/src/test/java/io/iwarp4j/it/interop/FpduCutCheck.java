package io.iwarp4j.it.interop;

import io.iwarp4j.it.interop.SplitTrailerEvidence.Segment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The verdict of the siw lab's FPDU-cut rows (host/matrix.sh, scenario {@code headercut}): our
 * {@code iwarp-ping} client sent its first FPDU, a Send of rping's 16-octet buffer advertisement
 * (ULPDU_Length 34: 36 octets, pad 0, CRC 4), through {@link FpduCutProxy}, which cut it once,
 * where the row's {@link Cut} says: {@code header:N} after octet N of its 20-octet header (MPA
 * length and DDP/RDMAP header), {@code trailer:N} after octet N of its trailer (pad and CRC).
 *
 * <p>A header cut after octet 17-19 (bug 4): Linux 6.1 siw's {@code siw_get_hdr()} copies the
 * untagged header's octets after the first 16 as {@code min(hdr_len - 16, skb_new)} at a time
 * whatever it already holds, so it takes {@code k = N - 16} payload octets as header:
 *
 * <ul>
 *   <li>CRC on: it frames a payload of {@code P - k} octets, so its pad is
 *       {@code (-(P - k)) & 3}; its CRC ({@code own}) runs over the FPDU's header and payload
 *       (no pad) and the first {@code pad} octets of the wire's trailer; the CRC it reads
 *       ({@code in}) is the trailer's octets from {@code pad} on, copied to the start of its
 *       trailer buffer minus {@code pad} (the rest of the CRC field left as it was: zero for the
 *       first FPDU). It logs {@code siw: crc error. in: IN, own OWN} and terminates; the suite's
 *       {@link SplitTrailerEvidence} must attribute it to {@link SplitTrailerEvidence#BUG4}.</li>
 *   <li>CRC off: it places the payload's octets from {@code k} on at the start of the receive
 *       buffer, and the buffer's last {@code k} octets are never written; the receive completes
 *       with {@code 16 - k} octets. rdma-core 44's {@code rping -s} (the lab's) checks that length
 *       first and prints {@code Received bogus data, size 14}; an rping without that check
 *       prints, with {@code -d}, the advertisement shifted by {@code k}
 *       ({@code Received rkey ... addr ... len ... from peer}). Either exact line passes.</li>
 * </ul>
 *
 * <p>A trailer cut (bug 1): siw's {@code siw_get_trailer()} copies each part of the trailer to
 * the start of its trailer buffer, so with CRC on the parts overlap: for a 3+1 cut of our CRC
 * octets w0..w3 it reads w3 w1 w2 and the previous FPDU's last CRC octet (zero for the first),
 * logs {@code in} as those four octets read little-endian, {@code own} = the right CRC, and
 * terminates; {@link SplitTrailerEvidence} must attribute it to
 * {@link SplitTrailerEvidence#BUG1}. With CRC off siw never reads the trailer's value: the Send
 * arrives intact and {@code rping -s -d} prints our advertisement as sent (the row's script
 * also requires the whole rping exchange, as the h2g-nocrc row does).
 *
 * <pre>
 * java -cp ... io.iwarp4j.it.interop.FpduCutCheck crc|nocrc LO.pcap GUEST-LINK.pcap SINCE \
 *     header:N|trailer:N ROW-dmesg.txt RPING-S.log
 * </pre>
 *
 * LO.pcap: the row's capture of the host's loopback (the proxy to qemu's hostfwd on 7174, one
 * connection); GUEST-LINK.pcap: the guest's link (qemu's filter-dump); SINCE: the row's start
 * (seconds since the epoch), to find its stream there. A bare N is {@code header:N}. Prints the
 * evidence, one line each, and a last line {@code PASS: ...} or {@code FAIL: ...}; exit 0 PASS,
 * 1 FAIL, 2 usage or a capture tshark cannot read. The cut must be the only segment boundary in
 * our first FPDU on the loopback and must reach the guest's link.
 *
 * <p>The closed-form prediction here and {@link SplitTrailerEvidence}'s replay of siw's receive
 * steps are two derivations of the same bugs, kept apart on purpose: a row passes only when
 * both agree with what siw logged, so an error in either one fails the row.
 */
final class FpduCutCheck {
  static final int PORT = 7174;
  /** A Send's header: MPA length (2) and the untagged DDP/RDMAP header (18). */
  static final int SEND_HDR = 20;
  /** siw's first header step: a tagged header's 16 octets (MIN_DDP_HDR). */
  static final int MIN_DDP_HDR = 16;
  private static final Pattern RKEY_LINE =
      Pattern.compile("Received rkey ([0-9a-f]+) addr ([0-9a-f]+) len (-?[0-9]+) from peer");
  /** rdma-core 44's rping -s checks the length of what it received before it prints it. */
  private static final Pattern BOGUS_LINE = Pattern.compile("Received bogus data, size (-?[0-9]+)");

  /** Our first FPDU as one direction's reassembled stream shows it. */
  record FirstFpdu(int requestLength, int start, byte[] fpdu, List<Integer> cuts, boolean crc) {
    int ulpduLength() {
      return ((fpdu[0] & 0xff) << 8) | (fpdu[1] & 0xff);
    }

    int payloadLength() {
      return ulpduLength() - (SEND_HDR - 2);
    }

    int pad() {
      return (-payloadLength()) & 3;
    }

    byte[] payload() {
      return Arrays.copyOfRange(fpdu, SEND_HDR, SEND_HDR + payloadLength());
    }

    byte[] trailer() {
      return Arrays.copyOfRange(fpdu, SEND_HDR + payloadLength(), fpdu.length);
    }

    /** The RDMAP opcode (RFC 5040: the low nibble of the RDMAP control octet). */
    int opcode() {
      return fpdu[3] & 0x0f;
    }

    boolean tagged() {
      return (fpdu[2] & 0x80) != 0;
    }
  }

  /** Where the proxy cut our first FPDU: after octet {@code octet} of its header or trailer. */
  record Cut(Kind kind, int octet) {
    enum Kind {
      /** The 20 octets of MPA length and DDP/RDMAP header (siw bug 4 after octets 17-19). */
      HEADER,
      /** Pad and CRC, from octet 2 + ULPDU_Length on (siw bug 1 inside it). */
      TRAILER
    }

    Cut {
      int max = kind == Kind.HEADER ? SEND_HDR : 4; // the advertisement's pad is 0
      if (octet < 1 || octet >= max) {
        throw new IllegalArgumentException("a " + kind.name().toLowerCase(java.util.Locale.ROOT)
            + " cut after octet " + octet + " is not inside it (1.." + (max - 1) + ")");
      }
    }

    /** {@code header:N} or {@code trailer:N}; a bare N is a header cut (the old argument). */
    static Cut parse(String s) {
      int colon = s.indexOf(':');
      String kind = colon < 0 ? "header" : s.substring(0, colon);
      int octet = Integer.parseInt(s.substring(colon + 1));
      return switch (kind) {
        case "header" -> new Cut(Kind.HEADER, octet);
        case "trailer" -> new Cut(Kind.TRAILER, octet);
        default -> throw new IllegalArgumentException("not a cut: " + s
            + " (header:N or trailer:N)");
      };
    }

    /** The cut's offset in the FPDU (its MPA length field's first octet is 0). */
    int offsetIn(FirstFpdu f) {
      return kind == Kind.HEADER ? octet : 2 + f.ulpduLength() + octet;
    }

    boolean header() {
      return kind == Kind.HEADER;
    }

    @Override
    public String toString() {
      return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + octet;
    }
  }

  /** What siw logs for the cut FPDU with CRC on: {in, own}, 32 bits each. */
  record Predicted(long in, long own, int siwPad) {
  }

  private FpduCutCheck() {
  }

  /**
   * The first FPDU after the MPA Request in a stream toward the Responder, with the offsets in
   * it where a segment began ({@code cuts}), or null when the stream does not start with a
   * Request followed by one whole FPDU.
   */
  static FirstFpdu firstFpdu(byte[] d, List<Integer> segmentStarts) {
    if (d.length < 20 || !Arrays.equals(Arrays.copyOf(d, 16), SplitTrailerEvidence.REQ_KEY)) {
      return null;
    }
    boolean crc = (d[16] & 0x40) != 0;
    int req = 20 + (((d[18] & 0xff) << 8) | (d[19] & 0xff));
    if (req + 2 > d.length) {
      return null;
    }
    int len = ((d[req] & 0xff) << 8) | (d[req + 1] & 0xff);
    int end = req + 2 + len + ((-(2 + len)) & 3) + 4;
    if (end > d.length || len < SEND_HDR - 2) {
      return null;
    }
    List<Integer> cuts = new ArrayList<>();
    for (int s : segmentStarts) {
      if (s > req && s < end) {
        cuts.add(s - req);
      }
    }
    return new FirstFpdu(req, req, Arrays.copyOfRange(d, req, end), cuts, crc);
  }

  /**
   * siw's logged pair for a Send FPDU whose header it received cut after octet {@code cut}
   * (17-19) with the trailer in one piece, and the CRC field as the previous FPDU left it
   * ({@code previousCrc}, wire order; zero for the first).
   */
  static Predicted predictCrc(FirstFpdu f, int cut, byte[] previousCrc) {
    int k = cut - MIN_DDP_HDR;
    int p = f.payloadLength();
    int siwPad = (-(p - k)) & 3;
    byte[] trailer = f.trailer();
    // siw's trailer buffer: siwPad octets before its CRC field, the CRC field, room after it.
    byte[] tbuf = new byte[3 + 4 + 8];
    System.arraycopy(previousCrc, 0, tbuf, 3, 4);
    int tb = 3 - siwPad;
    System.arraycopy(trailer, 0, tbuf, tb, trailer.length);
    CRC32C own = new CRC32C();
    own.update(f.fpdu(), 0, SEND_HDR + p);
    own.update(tbuf, tb, siwPad);
    return new Predicted(SplitTrailerEvidence.le(tbuf, 3), own.getValue(), siwPad);
  }

  /**
   * siw's logged pair for a Send FPDU whose header arrived whole and whose trailer (pad and
   * CRC) it received cut after trailer octet {@code cut} (bug 1): siw_get_trailer() copies each
   * part to the start of its trailer buffer ({@code pad} octets before its CRC field), so the
   * second part lands on the first, and CRC octets no part reaches keep the previous FPDU's
   * ({@code previousCrc}, wire order; zero for the first). {@code own} is the right CRC.
   */
  static Predicted predictTrailerCut(FirstFpdu f, int cut, byte[] previousCrc) {
    int pad = f.pad();
    byte[] trailer = f.trailer();
    byte[] tbuf = new byte[3 + 4];
    System.arraycopy(previousCrc, 0, tbuf, 3, 4);
    int tb = 3 - pad;
    System.arraycopy(trailer, 0, tbuf, tb, cut);
    System.arraycopy(trailer, cut, tbuf, tb, trailer.length - cut);
    CRC32C own = new CRC32C();
    own.update(f.fpdu(), 0, SEND_HDR + f.payloadLength());
    own.update(trailer, 0, pad);
    return new Predicted(SplitTrailerEvidence.le(tbuf, 3), own.getValue(), pad);
  }

  /** rping's receive buffer after siw placed the advertisement {@code k} octets early. */
  static byte[] shiftedAdvertisement(byte[] advertisement, int k) {
    byte[] recv = new byte[advertisement.length]; // rping's buffer: zero before the first Send
    System.arraycopy(advertisement, k, recv, 0, advertisement.length - k);
    return recv;
  }

  /** rping's debug line for an advertisement as rping reads it (rdma-core's rping.c). */
  static String rpingLine(byte[] a) {
    long addr = be(a, 0, 8);
    long rkey = be(a, 8, 4);
    int len = (int) be(a, 12, 4);
    return String.format("Received rkey %x addr %x len %d from peer", rkey, addr, len);
  }

  private static long be(byte[] b, int at, int n) {
    long v = 0;
    for (int i = 0; i < n; i++) {
      v = v << 8 | (b[at + i] & 0xff);
    }
    return v;
  }

  /**
   * The verdict's evidence lines; the last starts with PASS or FAIL.
   *
   * @param crc whether the row ran with CRC
   * @param lo the row's loopback segments toward port 7174 (one stream)
   * @param guest the guest link's segments toward the guest on port 7174 since the row began
   * @param where where the proxy cut the first FPDU
   * @param dmesg the guest's kernel log lines of the row
   * @param rping rping -s's output
   */
  static List<String> judge(boolean crc, List<Segment> lo, List<Segment> guest, Cut where,
      List<String> dmesg, List<String> rping) {
    int cut = where.octet();
    List<String> ev = new ArrayList<>();
    List<String> fails = new ArrayList<>();
    FirstFpdu ours = null;
    for (Map.Entry<Integer, TreeMap<Long, byte[]>> e
        : SplitTrailerEvidence.byStream(lo).entrySet()) {
      List<Integer> starts = new ArrayList<>();
      FirstFpdu f = firstFpdu(SplitTrailerEvidence.reassemble(e.getValue(), starts), starts);
      if (f != null) {
        ours = f; // the last one: the row's capture holds one connection
      }
    }
    if (ours == null) {
      return fail(ev, "the row's loopback capture holds no MPA Request followed by an FPDU on"
          + " port " + PORT);
    }
    ev.add("our first FPDU (loopback, proxy -> hostfwd): stream offset " + ours.start()
        + " (MPA Request of " + ours.requestLength() + " octets: 20 + "
        + (ours.requestLength() - 20) + " of private data), ULPDU_Length " + ours.ulpduLength()
        + ", opcode " + ours.opcode() + (ours.tagged() ? " (tagged)" : " (untagged)")
        + ", payload " + hex(ours.payload()) + ", trailer " + hex(ours.trailer())
        + ", segment boundaries in it at " + ours.cuts());
    if (ours.tagged() || ours.opcode() != 0x3 || ours.payloadLength() != 16) {
      fails.add("the first FPDU is not an untagged Send of 16 octets");
    }
    if (ours.crc() != crc) {
      fails.add("the Request asks for CRC " + (ours.crc() ? "on" : "off"));
    }
    int at = where.offsetIn(ours);
    String what = (where.header() ? "header" : "trailer") + " cut after octet " + cut;
    if (!ours.cuts().equals(List.of(at))) {
      fails.add("the proxy's cut is not exactly one boundary at FPDU offset " + at + " (its "
          + what + ") on the loopback");
    }
    // The same octets on the guest's link, from the row's start on.
    FirstFpdu seen = null;
    int seenStream = -1;
    for (Map.Entry<Integer, TreeMap<Long, byte[]>> e
        : SplitTrailerEvidence.byStream(guest).entrySet()) {
      List<Integer> starts = new ArrayList<>();
      FirstFpdu f = firstFpdu(SplitTrailerEvidence.reassemble(e.getValue(), starts), starts);
      if (f != null && f.requestLength() == ours.requestLength()
          && Arrays.equals(f.fpdu(), ours.fpdu())) {
        seen = f;
        seenStream = e.getKey();
      }
    }
    if (seen == null) {
      return fail(ev, "no stream toward the guest on port " + PORT + " since the row began"
          + " carries our Request and first FPDU ("
          + SplitTrailerEvidence.byStream(guest).size() + " streams)");
    }
    boolean cutSeen = seen.cuts().contains(at);
    ev.add("the guest's link, TCP stream " + seenStream + ": the same octets, segment boundaries"
        + " in the first FPDU at " + seen.cuts() + (cutSeen ? ": its " + what + " (FPDU offset "
        + at + ") reached the guest" : ": the " + what + " (FPDU offset " + at + ") did NOT"
        + " reach the guest as a segment boundary (slirp coalesced)"));
    if (!cutSeen) {
      fails.add("the guest did not get the " + what);
    }
    int k = cut - MIN_DDP_HDR;
    List<long[]> crcLines = new ArrayList<>();
    for (String l : dmesg) {
      Matcher m = SplitTrailerEvidence.CRC_LINE.matcher(l);
      if (m.find()) {
        crcLines.add(new long[] {Long.parseLong(m.group(1), 16), Long.parseLong(m.group(2), 16)});
        ev.add("guest kernel: " + l.strip());
      }
    }
    byte[] ad = ours.payload();
    if (crc) {
      Predicted p;
      String form;
      if (where.header()) {
        p = predictCrc(ours, cut, new byte[4]);
        form = SplitTrailerEvidence.BUG4;
        ev.add(String.format("predicted for a header cut after octet %d (siw takes %d payload"
            + " octets as header, frames %d of payload, pad %d): siw: crc error. in: %08x, own"
            + " %08x", cut, k, ours.payloadLength() - k, p.siwPad(), p.in(), p.own()));
      } else {
        p = predictTrailerCut(ours, cut, new byte[4]);
        form = SplitTrailerEvidence.BUG1;
        ev.add(String.format("predicted for a trailer cut %d+%d (siw copies each part to the"
            + " start of its trailer buffer, the CRC field zero before our first FPDU): siw: crc"
            + " error. in: %08x, own %08x (own = the CRC on the wire, %s)", cut,
            ours.trailer().length - cut, p.in(), p.own(), hex(ours.trailer())));
      }
      if (crcLines.size() != 1) {
        fails.add(crcLines.size() + " 'siw: crc error' lines, not exactly one");
      } else if (crcLines.get(0)[0] != p.in() || crcLines.get(0)[1] != p.own()) {
        fails.add(String.format("logged in %08x, own %08x, not the predicted values",
            crcLines.get(0)[0], crcLines.get(0)[1]));
      } else {
        ev.add("logged exactly as predicted");
      }
      // The suite's judge, on the same evidence, must name this form of the bug.
      List<Segment> mine = new ArrayList<>();
      for (Segment x : guest) {
        if (x.stream() == seenStream) {
          mine.add(x);
        }
      }
      SplitTrailerEvidence.Verdict v = SplitTrailerEvidence.judge(dmesg, mine);
      ev.add("SplitTrailerEvidence: " + v.text());
      if (!v.attributed() || !v.forms().contains(form)) {
        fails.add("SplitTrailerEvidence did not attribute it to " + form);
      }
    } else {
      String sent = rpingLine(ad);
      ev.add("our advertisement (rping's format): " + sent);
      String printed = null;
      for (String l : rping) {
        Matcher m = RKEY_LINE.matcher(l);
        Matcher b = BOGUS_LINE.matcher(l);
        if (m.find()) {
          printed = m.group();
          break;
        } else if (b.find()) {
          printed = b.group();
          break;
        }
      }
      if (!crcLines.isEmpty()) {
        fails.add("a 'siw: crc error' line with CRC off");
      }
      if (where.header()) {
        String expected = rpingLine(shiftedAdvertisement(ad, k));
        ev.add("predicted, shifted by " + k + " octets: " + expected);
        String bogus = "Received bogus data, size " + (ad.length - k);
        ev.add("predicted receive length: " + (ad.length - k) + " octets (" + bogus + ")");
        ev.add("rping -s -d printed: " + (printed == null ? "neither line" : printed));
        if (printed == null || !(printed.equals(expected) || printed.equals(bogus))) {
          fails.add("rping printed neither the advertisement shifted by " + k + " nor the"
              + " receive length " + (ad.length - k));
        } else if (printed.equals(expected)) {
          ev.add("rping printed exactly the shifted advertisement");
        } else {
          ev.add("siw completed our " + ad.length + "-octet Send as " + (ad.length - k)
              + " octets, exactly as predicted (this rping checks the length before it prints"
              + " the advertisement)");
        }
      } else {
        // Without CRC siw reads the trailer's octets and ignores them: bug 1 is harmless.
        ev.add("predicted: the advertisement as sent (siw ignores the trailer without CRC)");
        ev.add("rping -s -d printed: " + (printed == null ? "neither line" : printed));
        if (!sent.equals(printed)) {
          fails.add("rping did not print our advertisement as sent");
        } else {
          ev.add("rping printed exactly our advertisement");
        }
      }
    }
    if (!fails.isEmpty()) {
      return fail(ev, String.join("; ", fails));
    }
    if (where.header()) {
      ev.add("PASS: siw took " + k + " payload octets as header after a header cut after octet "
          + cut + (crc ? " and logged the predicted CRC error" : " and placed the Send "
          + k + " octets early, silently short"));
    } else {
      ev.add("PASS: after a trailer cut " + cut + "+" + (ours.trailer().length - cut) + " siw "
          + (crc ? "logged the predicted CRC error of bug 1 for a right CRC"
          : "received the Send intact (without CRC the split trailer is harmless)"));
    }
    return ev;
  }

  private static List<String> fail(List<String> ev, String why) {
    ev.add("FAIL: " + why);
    return ev;
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  /** The segments toward port {@code PORT} in a capture, optionally only to {@code dst}. */
  static List<Segment> segments(Path pcap, String dst, double since)
      throws IOException, InterruptedException {
    List<Segment> segs = new ArrayList<>();
    for (SplitTrailerEvidence.TcpPayload t : SplitTrailerEvidence.tcpPayloads(pcap,
        "tcp.dstport == " + PORT + " && tcp.len > 0"
        + (dst != null ? " && ip.dst == " + dst : "")
        + (since > 0 ? " && frame.time_epoch >= " + String.format("%.6f", since) : ""))) {
      segs.add(t.segment());
    }
    return segs;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 7 || !(args[0].equals("crc") || args[0].equals("nocrc"))) {
      System.err.println("usage: FpduCutCheck crc|nocrc LO.pcap GUEST-LINK.pcap SINCE"
          + " header:N|trailer:N"
          + " ROW-dmesg.txt RPING-S.log");
      System.exit(2);
    }
    List<String> ev;
    try {
      List<Segment> lo = segments(Path.of(args[1]), null, 0);
      // qemu's filter-dump stamps frames with its virtual clock from a whole start second:
      // up to a second or more before the host's clock. The content match picks the stream.
      List<Segment> guest = segments(Path.of(args[2]), SplitTrailerEvidence.GUEST,
          Double.parseDouble(args[3]) - 10);
      ev = judge(args[0].equals("crc"), lo, guest, Cut.parse(args[4]),
          readLines(Path.of(args[5])), readLines(Path.of(args[6])));
    } catch (IOException e) {
      System.out.println("FAIL: " + e.getMessage());
      System.exit(2);
      return;
    }
    ev.forEach(System.out::println);
    System.exit(ev.get(ev.size() - 1).startsWith("PASS") ? 0 : 1);
  }

  private static List<String> readLines(Path p) throws IOException {
    return Files.exists(p) ? Files.readAllLines(p, StandardCharsets.ISO_8859_1) : List.of();
  }
}
