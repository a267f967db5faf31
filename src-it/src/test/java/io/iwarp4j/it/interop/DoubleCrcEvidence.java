package io.iwarp4j.it.interop;

import io.iwarp4j.it.interop.SplitTrailerEvidence.Segment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * Decides, on evidence only, whether a failed CRC-on perftest row is siw's transmit of an FPDU
 * whose CRC ran over its payload twice (docs/interop.md, "Bug 3 for the Linux RDMA
 * maintainers"): siw sent an FPDU whose octets are right but whose CRC is CRC32c over those
 * octets <em>continued over the FPDU's payload (and pad) once more</em>, which happens when
 * {@code siw_tx_hdt()} runs twice on one FPDU with {@code c_tx->do_crc} still set (the second
 * run updates the already finalised CRC state with the payload again). Our side then terminates
 * as RFC 5044 wants, and the row fails without any {@code siw: crc error} line.
 *
 * <p>Attributed only when every FPDU the guest sent on the row's port with a wrong CRC is of
 * exactly that form (32 bits of agreement each, one candidate per FPDU: the whole payload and
 * pad, nothing shorter), there is at least one, the guest logged no {@code crc error} line (that
 * is bug 1's rule) and no kernel warning but the benign eth0 speed line and siw's report of our
 * CRC-error Terminate ({@code siw: got TERMINATE. layer 0, type 2, code 2}: siw prints the
 * Layer and Error Type nibbles swapped). Anything else is not attributed; what a wrong CRC is
 * not is printed too (a shorter tail of the payload, another FPDU's CRC).
 */
final class DoubleCrcEvidence {
  private static final Pattern WARN_OR_WORSE =
      Pattern.compile("^[a-z]+ *:(emerg|alert|crit|err|warn) *:");
  private static final Pattern BENIGN =
      Pattern.compile("\\] (eth0 speed is unknown, defaulting to 1000"
          + "|siw: got TERMINATE\\. layer 0, type 2, code 2)$");
  private static final byte[] REQ_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] REP_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
  private static final int CASTAGNOLI_REFLECTED = 0x82F63B78;
  private static final int[] TABLE = table();
  /** The quadratic search for shorter tails stops here (siw's FPDUs fill one MSS). */
  private static final int TAIL_SEARCH_LIMIT = 16384;

  /**
   * The verdict, its evidence one line per finding, and each attributed FPDU's CRC on the wire
   * and CRC32c over its octets (for the wire check's F_CRC_BAD lines).
   */
  record Verdict(boolean attributed, List<String> evidence, List<long[]> crcs) {
    String text() {
      return (attributed ? "ATTRIBUTED to siw's double CRC over a payload" : "NOT attributed")
          + ": " + String.join("; ", evidence);
    }
  }

  private DoubleCrcEvidence() {
  }

  /**
   * Judges one failed CRC-on row.
   *
   * @param dmesg the guest's kernel log lines of the row ({@code dmesg -x})
   * @param fromGuest the TCP segments the guest sent on the row's port
   * @return the verdict with its evidence
   */
  static Verdict judge(List<String> dmesg, List<Segment> fromGuest) {
    List<String> evidence = new ArrayList<>();
    boolean clean = true;
    for (String line : dmesg) {
      if (line.contains("siw: crc error")) {
        evidence.add("siw logged a CRC error (bug 1's rule judges that): " + line.strip());
        clean = false;
      } else if (WARN_OR_WORSE.matcher(line).find() && !BENIGN.matcher(line.strip()).find()) {
        evidence.add("another kernel warning: " + line.strip());
        clean = false;
      }
    }
    List<long[]> crcs = new ArrayList<>();
    int fpdus = 0;
    int wrong = 0;
    boolean allExplained = true;
    for (Map.Entry<Integer, TreeMap<Long, byte[]>> e
        : SplitTrailerEvidence.byStream(fromGuest).entrySet()) {
      byte[] d = SplitTrailerEvidence.reassemble(e.getValue(), null);
      int pos = firstFpdu(d);
      int index = 0;
      while (pos >= 0 && pos + 2 <= d.length) {
        int len = ((d[pos] & 0xff) << 8) | (d[pos + 1] & 0xff);
        int pad = (4 - (2 + len) % 4) % 4;
        int crcAt = pos + 2 + len + pad;
        if (crcAt + 4 > d.length) {
          break;
        }
        fpdus++;
        long wire = le(d, crcAt);
        CRC32C c = new CRC32C();
        c.update(d, pos, crcAt - pos);
        long right = c.getValue();
        if (wire != right) {
          wrong++;
          String what = describe(e.getKey(), index, pos, len, pad, d) + String.format(": CRC"
              + " on the wire %08x, CRC32c over its octets %08x", wire, right);
          int payload = pos + 2 + headerLength(d[pos + 2]);
          if (payload > crcAt) {
            evidence.add(what + "; NOT explained (shorter than its DDP/RDMAP header)");
            allExplained = false;
          } else if (continued(right, d, payload, crcAt) == wire) {
            evidence.add(what + "; the wire's CRC is exactly CRC32c over the FPDU continued"
                + " over its " + (crcAt - payload) + " payload and pad octets once more (siw's"
                + " CRC state took the payload twice: two siw_tx_hdt() runs on one FPDU)");
            crcs.add(new long[] {wire, right});
          } else {
            evidence.add(what + "; NOT explained: " + notWhat(wire, right, d, payload, crcAt));
            allExplained = false;
          }
        }
        index++;
        pos = crcAt + 4;
      }
    }
    if (wrong == 0) {
      evidence.add(0, "no FPDU from the guest with a wrong CRC (" + fpdus + " FPDUs with CRC"
          + " on, every CRC right)");
    } else {
      evidence.add(0, wrong + " of " + fpdus + " FPDUs from the guest with a wrong CRC");
    }
    return new Verdict(clean && wrong > 0 && allExplained, evidence, crcs);
  }

  /** Where the first FPDU after the MPA Request or Reply starts, or -1 (markers, no CRC). */
  private static int firstFpdu(byte[] d) {
    if (d.length < 20 || !(startsWith(d, REQ_KEY) || startsWith(d, REP_KEY))) {
      return -1;
    }
    int flags = d[16] & 0xff;
    if ((flags & 0x80) != 0 || (flags & 0x40) == 0) {
      return -1;
    }
    return 20 + (((d[18] & 0xff) << 8) | (d[19] & 0xff));
  }

  /**
   * The DDP and RDMAP header after the MPA length (RFC 5041 §4.2-4.3, RFC 5040 §4.4): tagged
   * 14 octets (control, STag, TO), untagged 18 (control, reserved or Invalidate STag, QN, MSN,
   * MO).
   */
  static int headerLength(byte ddpControl) {
    return (ddpControl & 0x80) != 0 ? 14 : 18;
  }

  /** CRC32c continued from a finished CRC32c {@code crc} over {@code d[from, to)}. */
  static long continued(long crc, byte[] d, int from, int to) {
    int raw = ~(int) crc;
    for (int i = from; i < to; i++) {
      raw = TABLE[(raw ^ d[i]) & 0xff] ^ (raw >>> 8);
    }
    return ~raw & 0xffffffffL;
  }

  /** What else the wrong CRC was compared with: a shorter tail of the payload, nothing else. */
  private static String notWhat(long wire, long right, byte[] d, int payload, int crcAt) {
    if (crcAt - payload > TAIL_SEARCH_LIMIT) {
      return "not CRC32c over the FPDU continued over its whole payload (shorter tails not"
          + " searched above " + TAIL_SEARCH_LIMIT + " octets)";
    }
    for (int from = payload + 1; from < crcAt; from++) {
      if (continued(right, d, from, crcAt) == wire) {
        return "CRC32c over the FPDU continued over its last " + (crcAt - from) + " payload"
            + " and pad octets (a shorter tail than the whole payload, not attributed)";
      }
    }
    return "not CRC32c over the FPDU continued over any tail of its payload";
  }

  private static String describe(int stream, int index, int pos, int len, int pad, byte[] d) {
    boolean tagged = (d[pos + 2] & 0x80) != 0;
    String op = switch (d[pos + 3] & 0x0f) {
      case 0 -> "RDMA Write";
      case 2 -> "RDMA Read Response";
      case 3, 4, 5, 6 -> "Send";
      default -> "opcode " + (d[pos + 3] & 0x0f);
    };
    return String.format("FPDU #%d of TCP stream %d from the guest (stream offset %d, %s, %s,"
        + " ULPDU_Length %d, pad %d)", index, stream, pos, op,
        tagged && pos + 16 <= d.length ? String.format("STag %08x TO %016x", be32(d, pos + 4),
            be64(d, pos + 8)) : "untagged", len, pad);
  }

  private static long le(byte[] d, int i) {
    return (d[i] & 0xffL) | (d[i + 1] & 0xffL) << 8 | (d[i + 2] & 0xffL) << 16
        | (d[i + 3] & 0xffL) << 24;
  }

  private static long be32(byte[] d, int i) {
    return (d[i] & 0xffL) << 24 | (d[i + 1] & 0xffL) << 16 | (d[i + 2] & 0xffL) << 8
        | (d[i + 3] & 0xffL);
  }

  private static long be64(byte[] d, int i) {
    return be32(d, i) << 32 | be32(d, i + 4);
  }

  private static boolean startsWith(byte[] d, byte[] key) {
    for (int i = 0; i < key.length; i++) {
      if (d[i] != key[i]) {
        return false;
      }
    }
    return true;
  }

  private static int[] table() {
    int[] t = new int[256];
    for (int i = 0; i < 256; i++) {
      int c = i;
      for (int k = 0; k < 8; k++) {
        c = (c & 1) != 0 ? (c >>> 1) ^ CASTAGNOLI_REFLECTED : c >>> 1;
      }
      t[i] = c;
    }
    return t;
  }
}
