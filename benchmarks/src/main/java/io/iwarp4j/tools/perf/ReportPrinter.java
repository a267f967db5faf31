package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.MpaConnectionInfo;
import io.iwarp4j.verbs.RdmaConnection;
import java.io.PrintStream;
import java.util.Locale;

/** perftest's text output: the header block, address lines, result columns. */
final class ReportPrinter {
  static final String RESULT_LINE =
      "---------------------------------------------------------------------------------------";
  static final String BW_COLUMNS_MB =
      " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
  static final String BW_COLUMNS_GB =
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
  static final String LAT_COLUMNS = " #bytes #iterations    t_min[usec]    t_max[usec]"
      + "  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]"
      + "   99.9% percentile[usec] ";

  private ReportPrinter() {
  }

  /** {@code ctx_print_test_info}, with the iWARP facts that apply here. */
  static void header(PrintStream out, PerfSession s) {
    PerfOptions o = s.opts;
    out.println(RESULT_LINE);
    out.println("                    " + o.mode().title());
    out.println(" Dual-port       : OFF\t\tDevice         : iwarp4j ("
        + s.device.transport() + ")");
    out.println(" Number of qps   : " + o.qps() + "\t\tTransport type : IW");
    out.println(" Connection type : RC\t\tUsing SRQ      : " + (s.srq != null ? "ON" : "OFF"));
    if (o.isClient() || o.mode().isLatency()) {
      out.println(" TX depth        : " + o.txDepth());
    }
    if (o.mode() == PerfMode.SEND_BW || o.mode() == PerfMode.SEND_LAT) {
      out.println(" RX depth        : " + o.rxDepth());
    }
    if (!o.mode().isLatency()) {
      out.println(" CQ Moderation   : " + o.cqMod());
    }
    out.println(" Mtu             : 1024[B]");
    out.println(" Link type       : Ethernet");
    if (o.mode().usesReads()) {
      out.println(" Outstand reads  : " + o.outReads());
    }
    RdmaConnection c = s.connection(0);
    if (c != null) {
      MpaConnectionInfo m = c.mpaInfo();
      out.println(" MPA             : rev " + m.revision() + ", CRC " + (m.crc() ? "on" : "off")
          + ", markers " + (m.markersIn() || m.markersOut() ? "on" : "off") + ", MULPDU "
          + m.maxUlpduLength());
    }
    out.println(" rdma_cm QPs\t : ON");
    out.println(" Data ex. method : rdma_cm");
    out.println(RESULT_LINE);
  }

  /** {@code BASIC_ADDR_FMT} + {@code RDMA_FMT}. */
  static String address(PingPongDest d) {
    return String.format(Locale.ROOT, "LID %#06x QPN %#06x PSN %#06x RKey %#08x VAddr %#016x",
        d.lid(), d.qpn(), d.psn(), d.rkey(), d.vaddr());
  }

  static void bwColumns(PrintStream out, boolean gbits) {
    out.println(RESULT_LINE);
    out.println(gbits ? BW_COLUMNS_GB : BW_COLUMNS_MB);
  }

  /** {@code REPORT_FMT}. */
  static String bwLine(BwReport r) {
    return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f",
        r.size(), r.iterations(), r.peak(), r.average(), r.msgRateMpps());
  }

  static void latColumns(PrintStream out) {
    out.println(RESULT_LINE);
    out.println(LAT_COLUMNS);
  }

  /** {@code REPORT_FMT_LAT}. */
  static String latLine(long size, long iters, LatStats l) {
    return String.format(Locale.ROOT, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  "
            + "\t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f",
        size, iters, l.min(), l.max(), l.typical(), l.avg(), l.stdev(), l.p99(), l.p999());
  }
}
