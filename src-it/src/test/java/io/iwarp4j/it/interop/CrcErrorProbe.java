package io.iwarp4j.it.interop;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Looks for what octets a {@code siw: crc error. in: X, own Y} line can have been computed
 * over, when no FPDU we sent carries {@code own} (so it is not siw's split-trailer bug as
 * {@link SplitTrailerEvidence} evidences it): in each reassembled stream toward the guest, every
 * place whose four octets, read least significant first, equal {@code in} (where siw may have
 * read its trailer), and for each, every start up to 128 KiB before it over which CRC32c gives
 * {@code own} (the octets siw framed as one FPDU). Diagnostic only: it never attributes.
 *
 * <pre>
 * java -cp src-it/target/test-classes io.iwarp4j.it.interop.CrcErrorProbe GUEST-LINK.pcap PORT IN OWN
 * java -cp src-it/target/test-classes io.iwarp4j.it.interop.CrcErrorProbe --replay PCAP PORT IN OWN
 * </pre>
 *
 * <p>{@code --replay} reads another run's capture of the same row (perftest resends one buffer
 * and our headers carry no random field, so the streams are octet for octet the same): for every
 * FPDU and every way its trailer could be split in two, the {@code in} and {@code own} that
 * siw_get_trailer()'s split copy would log ({@link #splitModel}), and whether {@code own} is
 * CRC32c over the FPDU and the first part's trailer octets; it prints the FPDUs that give a
 * logged value.
 */
final class CrcErrorProbe {
  private static final int WINDOW = 128 * 1024;

  private CrcErrorProbe() {
  }

  /** One line per finding, and a last line saying what was searched. */
  static List<String> probe(List<SplitTrailerEvidence.Segment> segments, long in, long own) {
    Map<Integer, TreeMap<Long, byte[]>> streams = SplitTrailerEvidence.byStream(segments);
    List<String> out = new ArrayList<>();
    long octets = 0;
    for (Map.Entry<Integer, TreeMap<Long, byte[]>> e : streams.entrySet()) {
      List<Integer> starts = new ArrayList<>();
      byte[] d = SplitTrailerEvidence.reassemble(e.getValue(), starts);
      long end = e.getValue().firstKey() + d.length;
      if (e.getValue().higherKey(end) != null) {
        out.add("stream " + e.getKey() + ": a gap at relative seq " + end);
      }
      octets += d.length;
      for (int i = 0; i + 4 <= d.length; i++) {
        long v = le(d, i);
        if (v == own) {
          out.add("stream " + e.getKey() + ": own's octets are at offset " + i);
        }
        if (v != in) {
          continue;
        }
        out.add("stream " + e.getKey() + ": in's octets are at offset " + i + " (segment starts"
            + " around it: " + near(starts, i) + ")");
        CRC32C c = new CRC32C();
        for (int s = i - 1; s >= Math.max(0, i - WINDOW); s--) {
          // CRC32c over d[s..i): computed afresh for each start (hardware CRC, 128 KiB max).
          c.reset();
          c.update(d, s, i - s);
          if (c.getValue() == own) {
            out.add("stream " + e.getKey() + ": CRC32c over offsets " + s + ".." + i + " ("
                + (i - s) + " octets, MPA length field there " + (((d[s] & 0xff) << 8)
                | (d[s + 1] & 0xff)) + ") is own");
          }
        }
      }
    }
    out.add(String.format("searched %d streams, %d octets toward the guest, for in %08x and own"
        + " %08x", streams.size(), octets, in, own));
    return out;
  }

  /**
   * Every FPDU with CRC of each stream, and for each way k + (pad + 4 - k) its trailer can be
   * split, what siw_get_trailer() would log: each part is copied to the start of the trailer
   * buffer, the CRC is then updated over the buffer's pad octets and finished ({@code own}), and
   * {@code in} is the buffer's CRC field (octets no part reached keep the previous trailer's).
   * Lines for the FPDUs whose model gives the logged {@code in} or {@code own}.
   */
  static List<String> splitModel(List<SplitTrailerEvidence.Segment> segments, long in, long own) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<Integer, TreeMap<Long, byte[]>> e
        : SplitTrailerEvidence.byStream(segments).entrySet()) {
      byte[] d = SplitTrailerEvidence.reassemble(e.getValue(), null);
      if (d.length < 20 || (d[16] & 0xc0) != 0x40) {
        continue; // not an MPA Request/Reply with CRC and without markers
      }
      int pos = 20 + (((d[18] & 0xff) << 8) | (d[19] & 0xff));
      byte[] buf = new byte[7]; // siw's trailer buffer: 3 pad octets, then the CRC field
      for (int index = 0; pos + 2 <= d.length; index++) {
        int len = ((d[pos] & 0xff) << 8) | (d[pos + 1] & 0xff);
        int pad = (4 - (2 + len) % 4) % 4;
        int trailer = pos + 2 + len;
        int end = trailer + pad + 4;
        if (end > d.length) {
          break;
        }
        int base = 3 - pad;
        for (int k = 1; k < pad + 4; k++) {
          byte[] b = buf.clone();
          System.arraycopy(d, trailer, b, base, k);
          System.arraycopy(d, trailer + k, b, base, pad + 4 - k);
          CRC32C c = new CRC32C();
          c.update(d, pos, trailer - pos);
          c.update(b, base, pad);
          long mOwn = c.getValue();
          long mIn = le(b, 3);
          // The form seen once (docs/interop.md, send_bw 64 KiB): siw's CRC also ran over the
          // trailer octets of the first part.
          CRC32C w = new CRC32C();
          w.update(d, pos, trailer + k - pos);
          boolean withFirst = w.getValue() == own;
          if (mOwn == own || mIn == in || withFirst) {
            out.add(String.format("stream %d FPDU #%d (offset %d, ULPDU_Length %d, pad %d, CRC"
                + " %08x): a split %d+%d would log in %08x%s, own %08x%s%s", e.getKey(), index,
                pos, len, pad, le(d, end - 4), k, pad + 4 - k, mIn, mIn == in ? " (= in)" : "",
                mOwn, mOwn == own ? " (= own)" : "", withFirst ? "; own = CRC32c over the FPDU"
                + " and the first part's " + k + " trailer octets" : ""));
          }
        }
        System.arraycopy(d, trailer, buf, base, pad + 4);
        pos = end;
      }
    }
    return out;
  }

  private static String near(List<Integer> starts, int at) {
    StringBuilder b = new StringBuilder();
    for (int s : starts) {
      if (Math.abs(s - at) <= 8) {
        b.append(b.length() == 0 ? "" : ", ").append(s);
      }
    }
    return b.length() == 0 ? "none within 8 octets" : b.toString();
  }

  private static long le(byte[] d, int i) {
    return (d[i] & 0xffL) | (d[i + 1] & 0xffL) << 8 | (d[i + 2] & 0xffL) << 16
        | (d[i + 3] & 0xffL) << 24;
  }

  public static void main(String[] args) throws Exception {
    boolean replay = args[0].equals("--replay");
    int a = replay ? 1 : 0;
    List<SplitTrailerEvidence.Segment> segs = SplitTrailerEvidence.segments(Path.of(args[a]),
        Integer.parseInt(args[a + 1]));
    long in = Long.parseLong(args[a + 2], 16);
    long own = Long.parseLong(args[a + 3], 16);
    for (String l : replay ? splitModel(segs, in, own) : probe(segs, in, own)) {
      System.out.println(l);
    }
  }
}
