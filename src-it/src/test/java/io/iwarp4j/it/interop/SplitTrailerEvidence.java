package io.iwarp4j.it.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * Decides, on evidence only, whether a failed CRC-on perftest row against Linux siw is siw's
 * split-trailer bug (docs/interop.md, "Bug 1 for the Linux RDMA maintainers"): every
 * {@code siw: crc error. in: X, own Y} line the guest's kernel logged during the row must name,
 * as {@code own}, the CRC of an FPDU we sent on that row's port, as the capture of the guest's
 * link shows it; that CRC must be right (CRC32c over the FPDU); and that FPDU's trailer (pad and
 * CRC) must be split across two TCP segments as the guest received them. Anything else (no such
 * line, a CRC not on the wire, a wrong CRC, an unsplit trailer, any other kernel warning) is not
 * attributed and the row stays failed. One more form is attributed on the same exactness: 'own'
 * on no FPDU, but 'in' exactly the split copy of one of our trailers and 'own' exactly CRC32c
 * over that FPDU and the trailer octets of the split's first part, with the FPDU's CRC right
 * (bug 1's 2+2 form, seen once).
 *
 * <p>And the split-header form of the same Linux change (754209850df8, "RDMA/siw: Always
 * consume all skbuf data in sk_data_ready() upcall"; docs/interop.md, bug 4): for an opcode whose
 * siw header is longer than MIN_DDP_HDR (16 octets; the Sends 20, Read Request 48, Terminate
 * 24), siw_get_hdr() copies up to {@code hdr_len - 16} octets per skb however many of them it
 * already holds, so an untagged header whose tail after octet 16 arrives in more than one
 * segment makes siw take R &gt; hdr_len octets as the header. siw then frames the rest right
 * (data length 2 + ULPDU_Length - R) and runs its CRC over exactly the FPDU, but takes
 * {@code srx->pad} from that data length: its trailer copy starts {@code srx->pad} octets before
 * its CRC field. So {@code own} is CRC32c over the FPDU's 2 + ULPDU_Length octets and the first
 * {@code srx->pad} trailer octets, and {@code in} the trailer octets from {@code srx->pad} on,
 * with the previous trailer's where they do not reach. Attributed when 'own' is on no FPDU and
 * exactly one FPDU whose header siw over-read, its CRC right, predicts both values. With CRC off
 * the same path goes unnoticed and places the payload R - hdr_len octets early, its first
 * R - hdr_len octets lost: a silent data corruption.
 *
 * <p>siw prints {@code own} with {@code %08x} from the octets it computed in wire order read as
 * a little-endian u32 (Linux 6.1, x86), so the wire's four CRC octets read little-endian equal
 * {@code own}; RFC 5044's CRC field is the CRC32c least significant octet first.
 */
final class SplitTrailerEvidence {
  /** The guest's address on the lab's link: segments toward it are what siw received. */
  static final String GUEST = "10.0.2.15";
  static final Pattern CRC_LINE =
      Pattern.compile("siw: crc error\\. in: ([0-9a-f]{8}), own ([0-9a-f]{8})");
  private static final Pattern WARN_OR_WORSE =
      Pattern.compile("^[a-z]+ *:(emerg|alert|crit|err|warn) *:");
  /**
   * ib_core's ib_get_eth_speed() logs this at warn whenever rdma_cm queries siw0's port: the
   * lab's virtio-net reports no speed. Benign, and the only warn line not counted against a row.
   */
  private static final Pattern BENIGN = Pattern.compile("\\] eth0 speed is unknown, defaulting to 1000$");
  static final byte[] REQ_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] REP_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
  /** siw's MIN_DDP_HDR: sizeof(struct iwarp_ctrl_tagged), MPA's length field included. */
  private static final int MIN_DDP_HDR = 16;
  /**
   * siw's iwarp_pktinfo[opcode].hdr_len (iwarp.h's structs, MPA's length field included):
   * Write 16, Read Request 48, Read Response 16, the four Sends 20, Terminate 24.
   */
  private static final int[] SIW_HDR_LEN = {16, 48, 16, 20, 20, 20, 20, 24};
  private static final String[] OPCODE = {"RDMA Write", "RDMA Read Request",
      "RDMA Read Response", "Send", "Send with Invalidate", "Send with Solicited Event",
      "Send with Solicited Event and Invalidate", "Terminate"};
  /** struct mpa_trailer's last 3 pad octets ({@code srx->pad} is at most 3), then its CRC. */
  private static final int PAD_OCTETS = 3;
  private static final int TRAILER_BUF = PAD_OCTETS + 4;
  static final String BUG1 = "siw's split-trailer bug (bug 1)";
  static final String BUG1_2PLUS2 = "siw's split-trailer bug (bug 1, its 2+2 form)";
  static final String BUG4 = "siw's split-header form of the same change (bug 4)";

  /** One TCP segment toward the guest: tshark's stream index, relative sequence number, octets. */
  record Segment(int stream, long seq, byte[] payload) {
  }

  /**
   * The verdict, the forms of siw's bug that attributed it ({@link #BUG1}, {@link #BUG1_2PLUS2},
   * {@link #BUG4}) and every piece of evidence behind it, one line per finding.
   */
  record Verdict(boolean attributed, List<String> forms, List<String> evidence) {
    Verdict(boolean attributed, List<String> evidence) {
      this(attributed, List.of(), evidence);
    }

    String text() {
      return (attributed ? "ATTRIBUTED to " + (forms.isEmpty() ? "siw's split-trailer bug"
          : String.join(" and ", forms)) : "NOT attributed") + ": " + String.join("; ", evidence);
    }
  }

  /** An FPDU found in a reassembled stream; {@code cut} when siw over-read its header. */
  private record Fpdu(int stream, int index, int start, int ulpduLength, int pad, long wireCrc,
      long computedCrc, String trailerSplit, String trailerHex, long predictedIn,
      long crcWithFirstPart, HeaderCut cut) {
  }

  /**
   * An untagged header whose tail after octet 16 reached siw in more than one segment, so that
   * siw_get_hdr() took {@code taken} (R) &gt; {@code hdrLen} octets as the header.
   *
   * @param pieces the header's octets per segment, e.g. "18+2"
   * @param swallowed the R - hdr_len octets after the header siw took as header (hex)
   * @param siwPad {@code srx->pad}, from the data length 2 + ULPDU_Length - R
   * @param predicts whether R is within the FPDU's 2 + ULPDU_Length octets (else siw's data
   *     length is negative and another error than a CRC one follows: not predicted)
   * @param predictedOwn siw's {@code own} for this FPDU
   * @param overrun octets of the trailer copy past siw's CRC field (clipped in the model)
   */
  private record HeaderCut(int opcode, long msn, long mo, String pieces, int hdrLen, int taken,
      String swallowed, int siwPad, int realPad, boolean predicts, long predictedOwn,
      int overrun) {
    HeaderCut withPrediction(long own, int over) {
      return new HeaderCut(opcode, msn, mo, pieces, hdrLen, taken, swallowed, siwPad, realPad,
          predicts, own, over);
    }
  }

  private SplitTrailerEvidence() {
  }

  /**
   * Judges one failed CRC-on row.
   *
   * @param dmesg the guest's kernel log lines of the row ({@code dmesg -x})
   * @param segments the TCP segments toward the guest on the row's port
   * @return the verdict with its evidence
   */
  static Verdict judge(List<String> dmesg, List<Segment> segments) {
    List<String> evidence = new ArrayList<>();
    List<long[]> crcLines = new ArrayList<>();
    for (String line : dmesg) {
      Matcher m = CRC_LINE.matcher(line);
      if (m.find()) {
        crcLines.add(new long[] {Long.parseLong(m.group(1), 16), Long.parseLong(m.group(2), 16)});
      } else if (WARN_OR_WORSE.matcher(line).find() && !BENIGN.matcher(line.strip()).find()) {
        evidence.add("another kernel warning: " + line.strip());
      }
    }
    if (crcLines.isEmpty()) {
      evidence.add(0, "no 'siw: crc error' line in the guest's kernel log of the row");
      return new Verdict(false, evidence);
    }
    List<Fpdu> fpdus = fpdus(segments);
    boolean all = evidence.isEmpty();
    Set<String> forms = new LinkedHashSet<>();
    for (long[] line : crcLines) {
      String logged = String.format("siw: crc error. in: %08x, own %08x", line[0], line[1]);
      List<Fpdu> hits = fpdus.stream().filter(f -> f.wireCrc() == line[1]).toList();
      if (hits.isEmpty()) {
        evidence.add("'" + logged + "': no FPDU toward siw in the capture (" + fpdus.size()
            + " FPDUs with CRC on) carries own as its CRC");
        // Bug 1's 2+2 form (docs/interop.md, perf-h2g-send_bw-65536 of 2026-11-26 21:26): 'in'
        // is exactly the split copy of one of our trailers and 'own' exactly CRC32c over that
        // FPDU followed by the trailer octets of the split's first part, the FPDU's own CRC
        // being right: 64 bits of agreement with our octets, attributed. Anything less is not.
        boolean twoPlusTwo = false;
        for (Fpdu f : fpdus) {
          if (f.trailerSplit() != null && f.predictedIn() == line[0]) {
            boolean form = f.crcWithFirstPart() == line[1] && f.computedCrc() == f.wireCrc();
            twoPlusTwo |= form;
            evidence.add(String.format("'in' is exactly the split copy of the trailer of FPDU"
                + " #%d of TCP stream %d (ULPDU_Length %d, pad %d, trailer %s split %s, its CRC"
                + " %08x%s), but 'own' is not that CRC%s", f.index(), f.stream(), f.ulpduLength(),
                f.pad(), f.trailerHex(), f.trailerSplit(), f.wireCrc(),
                f.computedCrc() == f.wireCrc() ? ", right" : ", WRONG",
                f.crcWithFirstPart() == line[1] ? ": 'own' is CRC32c over that FPDU followed by"
                    + " the trailer octets of the split's first part" + (form
                    ? " (bug 1's 2+2 form: attributed)" : " (not attributed: the FPDU's own CRC"
                    + " is wrong)") : ""));
          }
        }
        boolean splitHeader = splitHeader(line, fpdus, evidence);
        if (twoPlusTwo) {
          forms.add(BUG1_2PLUS2);
        }
        if (splitHeader) {
          forms.add(BUG4);
        }
        if (twoPlusTwo || splitHeader) {
          continue;
        }
        for (String p : CrcErrorProbe.probe(segments, line[0], line[1])) {
          evidence.add("probe: " + p);
        }
        all = false;
        continue;
      }
      // Identical FPDUs (perftest resends one buffer) share a CRC: prefer the one whose split
      // trailer, copied the way siw_get_trailer() copies it, gives exactly the logged 'in'.
      List<Fpdu> split = hits.stream().filter(h -> h.trailerSplit() != null).toList();
      Fpdu f = split.stream().filter(h -> h.predictedIn() == line[0]).findFirst()
          .orElse(split.isEmpty() ? hits.get(0) : split.get(0));
      boolean crcRight = f.computedCrc() == f.wireCrc();
      boolean isSplit = f.trailerSplit() != null;
      evidence.add("'" + logged + "': own = the CRC on the wire of FPDU #" + f.index()
          + " of TCP stream " + f.stream() + " (stream offset " + f.start() + ", ULPDU_Length "
          + f.ulpduLength() + ", pad " + f.pad() + ", trailer octets " + f.trailerHex() + ")"
          + (crcRight ? ", CRC32c over the FPDU matches it"
              : String.format(", but CRC32c over the FPDU is %08x", f.computedCrc()))
          + (isSplit ? ", trailer split across " + segmentCount(f.trailerSplit())
              + " TCP segments " + f.trailerSplit()
              + (f.predictedIn() == line[0] ? ", and each partial copy landing at the start of"
                  + " siw's trailer buffer gives exactly the logged 'in'"
                  : String.format(" (a copy of each part to the start of siw's trailer buffer"
                      + " would give in %08x)", f.predictedIn()))
              : ", trailer NOT split (in one TCP segment)")
          + " [" + hits.size() + " FPDU(s) toward siw carry that CRC, " + split.size()
          + " of them with a split trailer]");
      all &= crcRight && isSplit;
      if (crcRight && isSplit) {
        forms.add(BUG1);
      }
    }
    return new Verdict(all, all ? List.copyOf(forms) : List.of(), evidence);
  }

  /**
   * Bug 4 (docs/interop.md): whether exactly one FPDU whose header siw over-read predicts the
   * logged pair, {@code in} and {@code own} both, and carries a right CRC on the wire. Adds
   * the evidence either way.
   */
  private static boolean splitHeader(long[] line, List<Fpdu> fpdus, List<String> evidence) {
    List<Fpdu> cut = fpdus.stream().filter(f -> f.cut() != null).toList();
    List<Fpdu> exact = cut.stream().filter(f -> f.cut().predicts()
        && f.predictedIn() == line[0] && f.cut().predictedOwn() == line[1]).toList();
    if (exact.size() == 1) {
      Fpdu f = exact.get(0);
      boolean crcRight = f.computedCrc() == f.wireCrc();
      evidence.add(describe(f) + ", and both 'in' and 'own' are predicted exactly"
          + (crcRight ? String.format(": %s (its CRC on the wire, %08x, is right)", BUG4,
              f.wireCrc()) : String.format(", but its CRC on the wire %08x is WRONG (CRC32c"
              + " over it is %08x): not attributed", f.wireCrc(), f.computedCrc())));
      return crcRight;
    }
    if (exact.size() > 1) {
      evidence.add(exact.size() + " FPDUs whose header siw over-read predict exactly the logged"
          + " pair (" + String.join(", ", exact.stream().map(f -> "#" + f.index() + " of TCP"
          + " stream " + f.stream()).toList()) + "): not attributed to one");
      return false;
    }
    StringBuilder sb = new StringBuilder(cut.size() + " FPDU(s) toward siw had an untagged"
        + " header whose tail after octet 16 arrived in more than one TCP segment (bug 4's"
        + " path), none predicting the logged pair");
    for (Fpdu f : cut.subList(0, Math.min(cut.size(), 5))) {
      sb.append(": ").append(describe(f)).append(f.cut().predicts() ? String.format(
          ", predicting in %08x, own %08x", f.predictedIn(), f.cut().predictedOwn()) : "");
    }
    evidence.add(sb.toString());
    return false;
  }

  /** "two" for a split "3+1 octets", the number of parts otherwise. */
  private static String segmentCount(String split) {
    int parts = split.split("\\+").length;
    return parts == 2 ? "two" : String.valueOf(parts);
  }

  /** What siw's header over-read did with one FPDU, for the evidence. */
  private static String describe(Fpdu f) {
    HeaderCut h = f.cut();
    String what = "FPDU #" + f.index() + " of TCP stream " + f.stream() + " (stream offset "
        + f.start() + ", opcode " + h.opcode() + " " + OPCODE[h.opcode()]
        + (h.msn() >= 0 ? ", MSN " + h.msn() + ", MO " + h.mo() : "") + ", ULPDU_Length "
        + f.ulpduLength() + ", trailer " + f.trailerHex()
        + (f.trailerSplit() != null ? " split " + f.trailerSplit() : "") + "): header cut "
        + h.pieces() + " on the guest's link, so siw_get_hdr() took R = " + h.taken()
        + " octets as its " + h.hdrLen() + "-octet header, swallowing " + (h.taken()
        - h.hdrLen()) + " payload octet(s) (" + h.swallowed() + ")";
    if (!h.predicts()) {
      return what + "; R exceeds the FPDU's " + (2 + f.ulpduLength()) + " octets before its"
          + " trailer, so siw's data length is negative and no CRC error is predicted"
          + (h.opcode() == 1 ? " (siw_proc_rreq() warns 'rreq with mpa len' and drops the"
          + " connection)" : "");
    }
    return what + ", so srx->pad is " + h.siwPad() + " where the real pad is " + h.realPad()
        + (h.overrun() > 0 ? " (its trailer copy runs " + h.overrun() + " octet(s) past siw's"
        + " CRC field, into srx->state: clipped)" : "");
  }

  /** Every FPDU with CRC in the streams of {@code segments} (MPA without markers). */
  private static List<Fpdu> fpdus(List<Segment> segments) {
    List<Fpdu> out = new ArrayList<>();
    for (Map.Entry<Integer, TreeMap<Long, byte[]>> e : byStream(segments).entrySet()) {
      List<Integer> starts = new ArrayList<>();
      walk(e.getKey(), reassemble(e.getValue(), starts), starts, out);
    }
    return out;
  }

  /** Each stream's segments by sequence number, the first copy of a retransmitted one kept. */
  static Map<Integer, TreeMap<Long, byte[]>> byStream(List<Segment> segments) {
    Map<Integer, TreeMap<Long, byte[]>> streams = new TreeMap<>();
    for (Segment s : segments) {
      streams.computeIfAbsent(s.stream(), k -> new TreeMap<>()).putIfAbsent(s.seq(), s.payload());
    }
    return streams;
  }

  /**
   * One direction's octets from its first segment on, overlaps cut; a gap ends it (the guest's
   * link loses nothing, so a gap means the capture began late). {@code starts}, when not null,
   * gets the offset in the result where each segment's new octets begin.
   */
  static byte[] reassemble(TreeMap<Long, byte[]> segments, List<Integer> starts) {
    java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
    long next = segments.firstKey();
    for (Map.Entry<Long, byte[]> seg : segments.entrySet()) {
      long seq = seg.getKey();
      byte[] p = seg.getValue();
      if (seq + p.length <= next) {
        continue;
      }
      if (seq > next) {
        break;
      }
      int skip = (int) (next - seq);
      if (starts != null) {
        starts.add(data.size());
      }
      data.write(p, skip, p.length - skip);
      next = seq + p.length;
    }
    return data.toByteArray();
  }

  private static void walk(int stream, byte[] d, List<Integer> starts, List<Fpdu> out) {
    if (d.length < 20 || !(startsWith(d, REQ_KEY) || startsWith(d, REP_KEY))) {
      return;
    }
    int flags = d[16] & 0xff;
    if ((flags & 0x80) != 0 || (flags & 0x40) == 0) {
      return; // markers (not walked) or no CRC
    }
    int pos = 20 + (((d[18] & 0xff) << 8) | (d[19] & 0xff));
    int index = 0;
    byte[] buf = new byte[TRAILER_BUF]; // siw's trailer buffer as the FPDUs so far left it
    while (pos + 2 <= d.length) {
      int len = ((d[pos] & 0xff) << 8) | (d[pos + 1] & 0xff);
      int pad = (4 - (2 + len) % 4) % 4;
      int trailer = pos + 2 + len;
      int crcAt = trailer + pad;
      int end = crcAt + 4;
      if (end > d.length) {
        break;
      }
      long wire = le(d, crcAt);
      CRC32C c = new CRC32C();
      c.update(d, pos, crcAt - pos);
      HeaderCut cut = headerCut(d, pos, len, pad, starts);
      // The pad siw uses: the real one, or the one a header over-read left (bug 4).
      int siwPad = cut != null && cut.predicts() ? cut.siwPad() : pad;
      List<Integer> parts = new ArrayList<>();
      for (int s = nextStart(starts, trailer); s < end; s = nextStart(starts, s)) {
        parts.add(s);
      }
      parts.add(end);
      int first = parts.size() > 1 ? parts.get(0) - trailer : 0;
      String split = null;
      if (parts.size() > 1) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0, from = trailer; i < parts.size(); from = parts.get(i++)) {
          sb.append(i == 0 ? "" : "+").append(parts.get(i) - from);
        }
        split = sb.append(" octets").toString();
      }
      byte[] t = new byte[end - trailer];
      System.arraycopy(d, trailer, t, 0, t.length);
      // siw_get_trailer() since "Always consume all skbuf data": every partial copy goes to
      // tbuf = &trailer.crc - srx->pad, the start of the trailer, so octets a later part does
      // not reach keep an earlier part's or the previous trailer's. buf: siw's last 3 pad
      // octets, then the CRC field; a copy running past the CRC field is clipped (in siw it
      // overwrites the rx stream's next member, srx->state).
      int base = PAD_OCTETS - siwPad;
      int overrun = 0;
      for (int i = 0, from = trailer; i < parts.size(); from = parts.get(i++)) {
        int n = parts.get(i) - from;
        int kept = Math.min(n, TRAILER_BUF - base);
        System.arraycopy(d, from, buf, base, kept);
        overrun = Math.max(overrun, n - kept);
      }
      long predicted = le(buf, PAD_OCTETS);
      if (cut != null && cut.predicts()) {
        // siw's own: CRC32c over c_hdr's R octets and the data after them (together the
        // FPDU's first 2 + ULPDU_Length octets), then over tbuf's srx->pad octets.
        CRC32C own = new CRC32C();
        own.update(d, pos, trailer - pos);
        own.update(buf, base, siwPad);
        cut = cut.withPrediction(own.getValue(), overrun);
      }
      // CRC32c over the FPDU and the trailer octets of the first part of a split (seen once
      // as siw's 'own', 2+2, docs/interop.md): diagnostic only.
      long withFirst = -1;
      if (first > 0) {
        CRC32C w = new CRC32C();
        w.update(d, pos, trailer + first - pos);
        withFirst = w.getValue();
      }
      out.add(new Fpdu(stream, index++, pos, len, pad, wire, c.getValue(), split,
          HexFormat.ofDelimiter(" ").formatHex(t), predicted, withFirst, cut));
      pos = end;
    }
  }

  /**
   * siw_get_hdr() since "Always consume all skbuf data" over the FPDU at {@code pos}, one call
   * per skb (segment): the first step copies up to MIN_DDP_HDR (16) octets; the second, for an
   * opcode whose header is longer, copies {@code min(hdr_len - 16, skb_new)} octets to
   * {@code c_hdr + fpdu_part_rcvd} however many it already holds, and returns -EAGAIN while
   * {@code fpdu_part_rcvd < hdr_len}. A segment boundary after octet 16 + k (0 &lt; k &lt;
   * hdr_len - 16) thus makes siw take R &gt; hdr_len octets as the header. Null unless it does.
   */
  private static HeaderCut headerCut(byte[] d, int pos, int len, int pad, List<Integer> starts) {
    int opcode = d[pos + 3] & 0x0f;
    int hdrLen = opcode < SIW_HDR_LEN.length ? SIW_HDR_LEN[opcode] : 0;
    if (hdrLen <= MIN_DDP_HDR) {
      return null; // tagged (16 octets: no second step) or an opcode siw refuses
    }
    int rcvd = 0;
    int at = pos;
    List<Integer> cuts = new ArrayList<>();
    while (true) {
      int skbEnd = Math.min(nextStart(starts, at), d.length);
      int avail = skbEnd - at;
      if (rcvd < MIN_DDP_HDR) {
        int b = Math.min(avail, MIN_DDP_HDR - rcvd);
        rcvd += b;
        at += b;
        avail -= b;
      }
      if (rcvd >= MIN_DDP_HDR) {
        int b = Math.min(hdrLen - MIN_DDP_HDR, avail);
        rcvd += b;
        at += b;
        if (rcvd >= hdrLen) {
          break;
        }
      }
      if (skbEnd >= d.length) {
        return null; // the capture ends inside the header
      }
      cuts.add(skbEnd - pos);
    }
    if (rcvd <= hdrLen) {
      return null;
    }
    StringBuilder pieces = new StringBuilder();
    int from = 0;
    for (int k : cuts) {
      pieces.append(from == 0 ? "" : "+").append(k - from);
      from = k;
    }
    pieces.append('+').append(hdrLen - from);
    boolean untagged = (d[pos + 2] & 0x80) == 0;
    long msn = untagged ? be32(d, pos + 12) : -1;
    long mo = untagged ? be32(d, pos + 16) : -1;
    String swallowed = HexFormat.ofDelimiter(" ").formatHex(d, pos + hdrLen, pos + rcvd);
    // srx->fpdu_part_rem = 2 + ULPDU_Length - R: negative when R runs past the FPDU's
    // data (a Read Request carries none), which ends in another error than a CRC one.
    boolean predicts = rcvd <= 2 + len;
    int siwPad = predicts ? -(2 + len - rcvd) & 3 : -1;
    return new HeaderCut(opcode, msn, mo, pieces.toString(), hdrLen, rcvd, swallowed, siwPad,
        pad, predicts, -1, 0);
  }

  /** The first segment start after {@code offset}, or {@link Integer#MAX_VALUE}. */
  private static int nextStart(List<Integer> starts, int offset) {
    int i = Collections.binarySearch(starts, offset + 1);
    i = i >= 0 ? i : -i - 1;
    return i < starts.size() ? starts.get(i) : Integer.MAX_VALUE;
  }

  /** Four octets from {@code at} read least significant first (siw's printing of a CRC). */
  static long le(byte[] d, int at) {
    return (d[at] & 0xffL) | (d[at + 1] & 0xffL) << 8 | (d[at + 2] & 0xffL) << 16
        | (d[at + 3] & 0xffL) << 24;
  }

  private static long be32(byte[] d, int at) {
    return (d[at] & 0xffL) << 24 | (d[at + 1] & 0xffL) << 16 | (d[at + 2] & 0xffL) << 8
        | (d[at + 3] & 0xffL);
  }

  private static boolean startsWith(byte[] d, byte[] key) {
    for (int i = 0; i < key.length; i++) {
      if (d[i] != key[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Judges one row again from its files: {@code GUEST-LINK.pcap PORT ROW-dmesg.txt}.
   *
   * @param args the capture of the guest's link, the row's port, the row's kernel log lines
   */
  public static void main(String[] args) throws Exception {
    Verdict v = judge(Files.readAllLines(Path.of(args[2]), StandardCharsets.ISO_8859_1),
        segments(Path.of(args[0]), Integer.parseInt(args[1])));
    System.out.println(v.text());
    System.exit(v.attributed() ? 0 : 1);
  }

  /**
   * The TCP segments toward the guest on {@code port} in the capture of the guest's link, read
   * with tshark (the iWARP dissectors off, so every payload is raw).
   */
  static List<Segment> segments(Path pcap, int port) throws IOException, InterruptedException {
    return segments(pcap, List.of(port)).getOrDefault(port, List.of());
  }

  /**
   * The TCP segments toward the guest on each of {@code ports}, by the guest's port, in one
   * tshark pass over the capture (a pass per failed row re-read the whole capture each time).
   */
  static Map<Integer, List<Segment>> segments(Path pcap, List<Integer> ports)
      throws IOException, InterruptedException {
    return segments(pcap, ports, true);
  }

  /**
   * The TCP segments on each of {@code ports}, by the guest's port, toward the guest (what siw
   * received) or from it (what siw sent, {@link DoubleCrcEvidence}), in one tshark pass.
   */
  static Map<Integer, List<Segment>> segments(Path pcap, List<Integer> ports, boolean towardGuest)
      throws IOException, InterruptedException {
    StringBuilder set = new StringBuilder();
    for (int port : new java.util.TreeSet<>(ports)) {
      set.append(set.length() == 0 ? "" : ",").append(port); // tshark 4.0: a comma list
    }
    Map<Integer, List<Segment>> segs = new TreeMap<>();
    for (TcpPayload t : tcpPayloads(pcap, "tcp.port in {" + set + "} && tcp.len > 0 && ip."
        + (towardGuest ? "dst" : "src") + " == " + GUEST)) {
      // The row's port: the guest's own (h2g, it listens) or the host's (g2h, 7202).
      int port = ports.contains(t.srcPort()) ? t.srcPort() : t.dstPort();
      segs.computeIfAbsent(port, k -> new ArrayList<>()).add(t.segment());
    }
    return segs;
  }

  /** One TCP segment with payload as tshark read it, with its two ports. */
  record TcpPayload(int srcPort, int dstPort, Segment segment) {
  }

  /**
   * The TCP segments with payload that match tshark's display {@code filter} in a capture, read
   * with the iWARP dissectors off (so every payload is raw), in capture order.
   *
   * @throws IOException when tshark fails or takes more than 10 minutes: never an empty list
   *     by mistake (a judge would then say "no FPDU carries own")
   */
  static List<TcpPayload> tcpPayloads(Path pcap, String filter)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("tcp-payloads-", ".txt");
    try {
      Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-n",
          "--disable-protocol", "iwarp_mpa", "--disable-protocol", "iwarp_ddp_rdmap",
          "-Y", filter,
          "-T", "fields", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "tcp.stream",
          "-e", "tcp.seq", "-e", "tcp.payload")
          .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException("tshark did not finish reading " + pcap + " within 10 minutes");
      }
      if (p.exitValue() != 0) {
        throw new IOException("tshark failed (" + p.exitValue() + ") reading " + pcap
            + " with the filter " + filter);
      }
      List<TcpPayload> rows = new ArrayList<>();
      for (String line : Files.readAllLines(out, StandardCharsets.US_ASCII)) {
        String[] f = line.split("\t", -1);
        if (f.length < 5 || f[4].isEmpty()) {
          continue;
        }
        rows.add(new TcpPayload(Integer.parseInt(f[0]), Integer.parseInt(f[1]),
            new Segment(Integer.parseInt(f[2]), Long.parseLong(f[3]),
                HexFormat.of().parseHex(f[4].replace(":", "")))));
      }
      return rows;
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
