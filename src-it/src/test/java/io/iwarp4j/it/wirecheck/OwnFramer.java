package io.iwarp4j.it.wirecheck;

import io.iwarp4j.testing.Hex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The checker's own FPDU framer (RFC 5044 §4): walks one direction's raw TCP byte stream, starting
 * right after the MPA Request or Reply, and checks every FPDU's CRC32c, PAD and Markers without
 * tshark. It tells a stream that is broken (tshark's loss of sync is then a symptom) from one that
 * tshark 4 cannot follow (Markers in one direction only, an FPDU ending on a Marker boundary, an
 * FPDU in the same segment as the Reply).
 *
 * <pre>
 *  +-------------------------------+
 *  |         ULPDU_LENGTH (16)     |  ULPDU (ULPDU_LENGTH octets)  PAD (0..3, zero)  CRC (32)
 *  +-------------------------------+
 * </pre>
 *
 * With Markers, a 4-octet Marker (Reserved 16 = 0, FPDUPTR 16) sits at every multiple of 512
 * octets of the stream, the first at octet 0; it is covered by the CRC of the FPDU it sits in. A
 * Marker just before an FPDU belongs to that FPDU and has FPDUPTR 0; any other Marker points back
 * to its FPDU's ULPDU_LENGTH. The CRC is sent least significant octet first, as iSCSI and Linux
 * siw do.
 */
final class OwnFramer {
  static final int MARKER_INTERVAL = 512;

  /** One framed FPDU: where it starts and ends in the stream, and how many Markers it held. */
  record Fpdu(int start, int end, int ulpduLength, int markers, byte[] ulpdu) {
  }

  /** A framing error at a stream offset. */
  record Problem(Code code, int offset, String message) {
  }

  /** Every FPDU framed, and every framing error. */
  record Result(List<Fpdu> fpdus, List<Problem> problems) {
    boolean broken() {
      return !problems.isEmpty();
    }
  }

  private final byte[] data;
  private final boolean crc;
  private final boolean markers;
  private int pos;
  private int fpduStart;
  private int lengthField;
  private final List<int[]> seenMarkers = new ArrayList<>(); // {offset, reserved, ptr, expected}

  private OwnFramer(byte[] data, boolean crc, boolean markers) {
    this.data = data;
    this.crc = crc;
    this.markers = markers;
  }

  /** Frames {@code stream} (the octets after the MPA Request or Reply). */
  static Result frame(byte[] stream, boolean crcOn, boolean markersOn) {
    return new OwnFramer(stream, crcOn, markersOn).run();
  }

  private Result run() {
    List<Fpdu> fpdus = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    while (pos < data.length) {
      fpduStart = pos;
      lengthField = -1;
      seenMarkers.clear();
      byte[] ulpdu;
      byte[] pad;
      int covered;
      byte[] wireCrc;
      try {
        byte[] len = take(2);
        int ulen = (len[0] & 0xff) << 8 | len[1] & 0xff;
        ulpdu = take(ulen);
        pad = take((4 - (ulen + 2) % 4) % 4);
        if (markers && pos % MARKER_INTERVAL == 0 && pos + 4 <= data.length) {
          marker(); // a Marker between PAD and CRC belongs to this FPDU
        }
        covered = pos;
        wireCrc = raw(4);
      } catch (IndexOutOfBoundsException end) {
        problems.add(new Problem(Code.F_TRUNCATED, fpduStart, "the stream ends inside an FPDU ("
            + (data.length - fpduStart) + " octets left)"));
        break;
      }
      if (crc) {
        CRC32C c = new CRC32C();
        c.update(data, fpduStart, covered - fpduStart);
        long v = c.getValue();
        long got = (wireCrc[0] & 0xffL) | (wireCrc[1] & 0xffL) << 8 | (wireCrc[2] & 0xffL) << 16
            | (wireCrc[3] & 0xffL) << 24;
        if (v != got) {
          problems.add(new Problem(Code.F_CRC_BAD, fpduStart, String.format(
              "CRC32c 0x%08x on the wire, 0x%08x computed (ULPDU length %d)", got, v,
              ulpdu.length)));
        }
      }
      for (byte b : pad) {
        if (b != 0) {
          problems.add(new Problem(Code.F_PAD_NONZERO, fpduStart, "PAD " + Hex.of(pad)));
          break;
        }
      }
      for (int[] m : seenMarkers) {
        if (m[1] != 0) {
          problems.add(new Problem(Code.F_MARKER_RES, m[0],
              String.format("marker Reserved 0x%04x", m[1])));
        }
        if (m[2] != m[3]) {
          problems.add(new Problem(Code.F_MARKER_PTR, m[0],
              "FPDUPTR " + m[2] + ", expected " + m[3]));
        }
      }
      fpdus.add(new Fpdu(fpduStart, pos, ulpdu.length, seenMarkers.size(), ulpdu));
    }
    return new Result(fpdus, problems);
  }

  /**
   * The DDP and RDMAP header rules on ULPDUs framed here, for a direction tshark could not
   * follow (RFC 5041 §4, RFC 5040 §4, RFC 7306): versions, reserved bits, opcode against T and
   * QN, MSN and MO per queue, TO per tagged message, single-segment and fixed-length messages, the
   * Invalidate STag field. The whole direction is read, so the sequencing here is complete.
   */
  static List<Problem> headerProblems(List<Fpdu> fpdus) {
    List<Problem> problems = new ArrayList<>();
    Map<Long, long[]> queues = new HashMap<>(); // qn -> {expected msn, in msg, msn, mo}
    Map<Long, Long> openTagged = new HashMap<>();
    for (Fpdu f : fpdus) {
      byte[] u = f.ulpdu();
      boolean tagged = u.length > 0 && (u[0] & 0x80) != 0;
      int header = tagged ? 14 : 18;
      if (u.length < header) {
        problems.add(new Problem(Code.F_DDP, f.start(), "ULPDU length " + u.length
            + " < DDP header " + header));
        continue;
      }
      boolean last = (u[0] & 0x40) != 0;
      int op = u[1] & 0x0f;
      long plen = u.length - header;
      List<String> broken = new ArrayList<>();
      if ((u[0] & 0x03) != 1) {
        broken.add("DV=" + (u[0] & 0x03));
      }
      if ((u[1] >> 6 & 0x03) != 1) {
        broken.add("RV=" + (u[1] >> 6 & 0x03));
      }
      if ((u[0] >> 2 & 0x0f) != 0 || (u[1] >> 4 & 0x03) != 0) {
        broken.add("reserved bits set");
      }
      String name = op < WireReport.OPCODE_NAMES.size() ? WireReport.OPCODE_NAMES.get(op)
          : "opcode " + op;
      if (op >= 12) {
        broken.add("reserved opcode " + op);
      } else if (tagged != WireChecker.TAGGED.contains(op)) {
        broken.add(name + " with T=" + (tagged ? 1 : 0));
      } else if (!tagged) {
        long qn = u32(u, 6);
        long msn = u32(u, 10);
        long mo = u32(u, 14);
        if (WireChecker.QUEUE.get(op) != qn) {
          broken.add(name + " on QN " + qn);
        }
        if (!WireChecker.INVALIDATE.contains(op) && u32(u, 2) != 0) {
          broken.add(name + " with Invalidate STag 0x" + Long.toHexString(u32(u, 2)));
        }
        long[] q = queues.computeIfAbsent(qn, k -> new long[] {1, 0, 0, 0});
        long wantMsn = q[1] == 1 ? q[2] : q[0];
        long wantMo = q[1] == 1 ? q[3] : 0;
        if (msn != wantMsn || mo != wantMo) {
          broken.add("QN " + qn + ": MSN " + msn + " MO " + mo + ", expected MSN " + wantMsn
              + " MO " + wantMo);
        }
        q[3] = mo + plen;
        if (last) {
          q[1] = 0;
          q[0] = (msn + 1) & 0xffffffffL;
        } else {
          q[1] = 1;
          q[2] = msn;
        }
      } else {
        long stag = u32(u, 2);
        long to = u32(u, 6) << 32 | u32(u, 10);
        Long want = openTagged.get(stag);
        if (want != null && want != to) {
          broken.add(String.format("STag 0x%x: TO 0x%x, expected 0x%x", stag, to, want));
        }
        if (last) {
          openTagged.remove(stag);
        } else {
          openTagged.put(stag, to + plen);
        }
      }
      if (op < 12 && WireChecker.SINGLE_SEGMENT.contains(op) && (!last || !tagged && u32(u, 14) != 0)) {
        broken.add(name + " not a single segment");
      }
      if (WireChecker.FIXED_PAYLOAD.containsKey(op) && plen != WireChecker.FIXED_PAYLOAD.get(op)) {
        broken.add(name + " with " + plen + " octets of DDP payload");
      }
      for (String b : broken) {
        problems.add(new Problem(Code.F_DDP, f.start(), b));
      }
    }
    return problems;
  }


  /** A Terminate framed here (RFC 5040 §4.8): its Layer, Error Type and Error Code. */
  record Terminate(int offset, int layer, int type, int code) {
    @Override
    public String toString() {
      return layer + "/" + type + "/0x" + Integer.toHexString(code);
    }
  }

  /** Every Terminate (untagged, opcode 7, at least its 4 control octets) among {@code fpdus}. */
  static List<Terminate> terminates(List<Fpdu> fpdus) {
    List<Terminate> out = new ArrayList<>();
    for (Fpdu f : fpdus) {
      byte[] u = f.ulpdu();
      if (u.length >= 18 + 2 && (u[0] & 0x80) == 0 && (u[1] & 0x0f) == 7) {
        out.add(new Terminate(f.start(), (u[18] & 0xf0) >> 4, u[18] & 0x0f, u[19] & 0xff));
      }
    }
    return out;
  }

  /**
   * The responses of one direction against the requests of the other (RFC 5040 §4.4 and §5.3,
   * RFC 7306 §5), for connections tshark could not follow: every RDMA Read Response answers the
   * oldest unanswered Read Request (its Data Sink STag, the Data Sink TO plus the octets already
   * returned, in all the RDMA Read Message Size), every Atomic Response echoes the oldest
   * unanswered Atomic Request's Request Identifier. In order, without timing: a response framed
   * before its request is not told apart.
   */
  static List<Problem> responseProblems(List<Fpdu> requests, List<Fpdu> responses) {
    java.util.ArrayDeque<long[]> reads = new java.util.ArrayDeque<>(); // stag, to, size, got
    java.util.ArrayDeque<Long> atomics = new java.util.ArrayDeque<>();
    for (Fpdu f : requests) {
      byte[] u = f.ulpdu();
      if (u.length < 18 || (u[0] & 0x80) != 0) {
        continue;
      }
      int op = u[1] & 0x0f;
      if (op == 1 && u.length >= 18 + 16) {
        reads.add(new long[] {u32(u, 18), u32(u, 22) << 32 | u32(u, 26), u32(u, 30), 0});
      } else if (op == 10 && u.length >= 18 + 8) {
        atomics.add(u32(u, 22));
      }
    }
    List<Problem> problems = new ArrayList<>();
    for (Fpdu f : responses) {
      byte[] u = f.ulpdu();
      if (u.length < 14) {
        continue;
      }
      boolean tagged = (u[0] & 0x80) != 0;
      boolean last = (u[0] & 0x40) != 0;
      int op = u[1] & 0x0f;
      if (tagged && op == 2) {
        long stag = u32(u, 2);
        long to = u32(u, 6) << 32 | u32(u, 10);
        long[] rd = reads.peek();
        if (rd == null) {
          problems.add(new Problem(Code.F_DDP, f.start(), "Read Response with no outstanding"
              + " Read Request"));
          continue;
        }
        if (stag != rd[0]) {
          problems.add(new Problem(Code.F_DDP, f.start(), String.format("Read Response STag"
              + " 0x%x, the Read Request's Data Sink STag 0x%x", stag, rd[0])));
        } else if (to != rd[1] + rd[3]) {
          problems.add(new Problem(Code.F_DDP, f.start(), String.format("Read Response TO 0x%x,"
              + " expected 0x%x", to, rd[1] + rd[3])));
        }
        rd[3] += u.length - 14;
        if (last) {
          if (rd[3] != rd[2]) {
            problems.add(new Problem(Code.F_DDP, f.start(), "Read Response of " + rd[3]
                + " octets, the Read Request asked for " + rd[2]));
          }
          reads.poll();
        }
      } else if (!tagged && op == 11 && u.length >= 18 + 4) {
        Long want = atomics.poll();
        long got = u32(u, 18);
        if (want == null || want != got) {
          problems.add(new Problem(Code.F_DDP, f.start(), "Atomic Response for request " + got
              + (want == null ? " with no outstanding Atomic Request" : ", expected " + want)));
        }
      }
    }
    return problems;
  }

  private static long u32(byte[] b, int at) {
    return (b[at] & 0xffL) << 24 | (b[at + 1] & 0xffL) << 16 | (b[at + 2] & 0xffL) << 8
        | b[at + 3] & 0xffL;
  }

  /** n octets of the FPDU's content, stepping over the Markers among them. */
  private byte[] take(int n) {
    byte[] out = new byte[n];
    int got = 0;
    while (got < n || (n == 0 && lengthField < 0)) {
      if (markers && pos % MARKER_INTERVAL == 0) {
        marker();
        continue;
      }
      if (n == 0) {
        break;
      }
      if (lengthField < 0) {
        lengthField = pos;
      }
      int step = n - got;
      if (markers) {
        step = Math.min(step, MARKER_INTERVAL - pos % MARKER_INTERVAL);
      }
      if (pos + step > data.length) {
        throw new IndexOutOfBoundsException();
      }
      System.arraycopy(data, pos, out, got, step);
      got += step;
      pos += step;
    }
    return out;
  }

  private void marker() {
    byte[] m = raw(4);
    int reserved = (m[0] & 0xff) << 8 | m[1] & 0xff;
    int ptr = (m[2] & 0xff) << 8 | m[3] & 0xff;
    int offset = pos - 4;
    // Before the FPDU's first octet: FPDUPTR 0; inside it: back to the ULPDU_LENGTH field.
    seenMarkers.add(new int[] {offset, reserved, ptr, lengthField < 0 ? 0 : offset - lengthField});
  }

  private byte[] raw(int n) {
    if (pos + n > data.length) {
      throw new IndexOutOfBoundsException();
    }
    byte[] out = new byte[n];
    System.arraycopy(data, pos, out, 0, n);
    pos += n;
    return out;
  }
}
