package io.iwarp4j.it.interop;

import java.io.ByteArrayOutputStream;
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
 * </pre>
 */
final class CrcErrorProbe {
  private static final int WINDOW = 128 * 1024;

  private CrcErrorProbe() {
  }

  /** One line per finding, and a last line saying what was searched. */
  static List<String> probe(List<SplitTrailerEvidence.Segment> segments, long in, long own) {
    Map<Integer, TreeMap<Long, byte[]>> streams = new TreeMap<>();
    for (SplitTrailerEvidence.Segment s : segments) {
      streams.computeIfAbsent(s.stream(), k -> new TreeMap<>()).putIfAbsent(s.seq(), s.payload());
    }
    List<String> out = new ArrayList<>();
    long octets = 0;
    for (Map.Entry<Integer, TreeMap<Long, byte[]>> e : streams.entrySet()) {
      ByteArrayOutputStream data = new ByteArrayOutputStream();
      List<Long> starts = new ArrayList<>();
      long next = e.getValue().firstKey();
      for (Map.Entry<Long, byte[]> seg : e.getValue().entrySet()) {
        long seq = seg.getKey();
        byte[] p = seg.getValue();
        if (seq + p.length <= next) {
          continue;
        }
        if (seq > next) {
          out.add("stream " + e.getKey() + ": a gap at relative seq " + next);
          break;
        }
        int skip = (int) (next - seq);
        starts.add((long) data.size());
        data.write(p, skip, p.length - skip);
        next = seq + p.length;
      }
      byte[] d = data.toByteArray();
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

  private static String near(List<Long> starts, int at) {
    StringBuilder b = new StringBuilder();
    for (long s : starts) {
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
    List<SplitTrailerEvidence.Segment> segs = SplitTrailerEvidence.segments(Path.of(args[0]),
        Integer.parseInt(args[1]));
    for (String l : probe(segs, Long.parseLong(args[2], 16), Long.parseLong(args[3], 16))) {
      System.out.println(l);
    }
  }
}
