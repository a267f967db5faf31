package io.iwarp4j.tools.perf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * perftest's control conversation in rdma_cm mode ({@code -R}), as linux-rdma/perftest 4.5-0.17
 * (Debian bookworm's {@code perftest 4.5+0.17-1}, internal version "6.06") speaks it in
 * {@code perftest_communication.c}. Every step is one {@code ctx_xchg_data} or
 * {@code ctx_hand_shake}: the client sends its message, then receives the server's; the server
 * receives first, then sends. Each message is a Send on the control queue pair
 * ({@code rdma_write_data}/{@code rdma_write_keys}) into the single receive the peer keeps
 * posted ({@code post_one_recv_wqe}: {@code sizeof(struct pingpong_dest)} = 56 octets, reposted
 * after every message).
 *
 * <p>Binary layouts (all integers big-endian, what perftest's {@code HAVE_ENDIAN} build sends):
 *
 * <pre>
 *  struct pingpong_dest (56 octets, x86-64 alignment)
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                              lid                              |  0
 *  |                           out_reads                           |  4
 *  |                              qpn                              |  8
 *  |                              psn                              | 12
 *  |                             rkey                              | 16
 *  |                    (padding, sent as zeros)                   | 20
 *  |                          vaddr (64)                           | 24
 *  |                                                               |
 *  |                          gid (16 octets)                      | 32
 *  |                              ...                              |
 *  |                             srqn                              | 48
 *  |                           gid_index                           | 52
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 *  version        16 octets: the NUL-padded version string ("6.06")
 *  cycle buffer    4 octets: int, big-endian (page size)
 *  cache line      4 octets: int, big-endian
 *  MTU             2 octets: sprintf("%d", enum ibv_mtu) ("3" + NUL = 1024 octets)
 *  BW report       five messages: size (u64), iters (u64, peers from 5.33 on),
 *                  bw_peak, bw_avg, msgRate_avg (IEEE-754 doubles, big-endian)
 * </pre>
 *
 * <p>The receiver of a {@code pingpong_dest} reads lid, out_reads, qpn, psn, rkey, vaddr and the
 * GID; srqn and gid_index travel but are ignored.
 */
public final class PerftestExchange {
  /** {@code sizeof(struct pingpong_dest)} on x86-64 Linux. */
  public static final int DEST_SIZE = 56;
  /** perftest's {@code MAX_VERSION}: the version string's field. */
  public static final int VERSION_SIZE = 16;
  /** The version this implementation speaks (perftest 4.5-0.17's configure.ac). */
  public static final String VERSION = "6.06";
  /** The oldest peer perftest 4.5-0.17 accepts ({@code check_version_compatibility}). */
  public static final double MIN_PEER_VERSION = 5.70;
  /** {@code IBV_MTU_1024}, what siw reports as its active MTU. */
  public static final int IBV_MTU_1024 = 3;
  /** The {@code wr_id} perftest gives every control message ({@code SYNC_SPEC_ID}). */
  public static final long SYNC_SPEC_ID = 5;

  private final MessageChannel channel;
  private final boolean client;
  private String peerVersion = VERSION;

  /**
   * Creates a conversation over a channel.
   *
   * @param channel the control queue pair
   * @param client true for the client (sends first in every exchange)
   */
  public PerftestExchange(MessageChannel channel, boolean client) {
    this.channel = channel;
    this.client = client;
  }

  /**
   * The peer's version string, after {@link #exchangeVersions()}.
   *
   * @return the version
   */
  public String peerVersion() {
    return peerVersion;
  }

  /** One {@code ctx_xchg_data}: client sends then receives, server the other way round. */
  byte[] exchange(byte[] mine) throws IOException {
    if (client) {
      channel.send(mine);
      return channel.receive();
    }
    byte[] theirs = channel.receive();
    channel.send(mine);
    return theirs;
  }

  /**
   * {@code exchange_versions}: the version strings.
   *
   * @return the peer's version
   * @throws IOException when the channel failed
   */
  public String exchangeVersions() throws IOException {
    peerVersion = decodeVersion(exchange(encodeVersion(VERSION)));
    return peerVersion;
  }

  /**
   * {@code check_version_compatibility}: perftest 4.5-0.17 refuses peers older than 5.70.
   *
   * @throws IOException naming the peer's version when it is older
   */
  public void checkPeerVersion() throws IOException {
    if (parseVersion(peerVersion) < MIN_PEER_VERSION) {
      throw new IOException("peer speaks perftest version \"" + peerVersion
          + "\"; this end needs 5.70 or newer");
    }
  }

  /**
   * {@code check_sys_data}: page size and cache line size; both ends use the larger of each.
   *
   * @param cycleBuffer this end's cycle buffer (page size)
   * @param cacheLine this end's cache line size
   * @return {max cycle buffer, max cache line}
   * @throws IOException when the channel failed
   */
  public int[] exchangeSysData(int cycleBuffer, int cacheLine) throws IOException {
    int peerCycle = decodeInt(exchange(encodeInt(cycleBuffer)));
    int peerLine = decodeInt(exchange(encodeInt(cacheLine)));
    return new int[] {Math.max(cycleBuffer, peerCycle), Math.max(cacheLine, peerLine)};
  }

  /**
   * {@code check_mtu}: the MTU enum as two octets of text.
   *
   * @param mtuEnum this end's {@code enum ibv_mtu}
   * @return the peer's value (0 when unparsable)
   * @throws IOException when the channel failed
   */
  public int exchangeMtu(int mtuEnum) throws IOException {
    return decodeMtu(exchange(encodeMtu(mtuEnum)));
  }

  /**
   * {@code ctx_hand_shake}: one {@code pingpong_dest} each way.
   *
   * @param mine this end's destination
   * @return the peer's
   * @throws IOException when the channel failed or the message is short
   */
  public PingPongDest handshake(PingPongDest mine) throws IOException {
    return decodeDest(exchange(encodeDest(mine)));
  }

  /**
   * {@code xchg_bw_reports}: five messages, size, iterations, peak, average, message rate.
   *
   * @param mine this end's report
   * @return the peer's
   * @throws IOException when the channel failed
   */
  public BwReport exchangeBwReports(BwReport mine) throws IOException {
    long size = decodeLong(exchange(encodeLong(mine.size())));
    boolean wideIters = parseVersion(peerVersion) >= 5.33;
    long iters = wideIters ? decodeLong(exchange(encodeLong(mine.iterations())))
        : decodeInt(exchange(encodeInt((int) mine.iterations())));
    double peak = decodeDouble(exchange(encodeDouble(mine.peak())));
    double avg = decodeDouble(exchange(encodeDouble(mine.average())));
    double rate = decodeDouble(exchange(encodeDouble(mine.msgRateMpps())));
    return new BwReport(size, iters, peak, avg, rate);
  }

  // ---- codecs ----

  /**
   * Encodes a {@code struct pingpong_dest}.
   *
   * @param d the destination
   * @return 56 octets
   */
  public static byte[] encodeDest(PingPongDest d) {
    ByteBuffer b = ByteBuffer.allocate(DEST_SIZE);
    b.putInt(d.lid()).putInt(d.outReads()).putInt(d.qpn()).putInt(d.psn()).putInt(d.rkey())
        .putInt(0).putLong(d.vaddr()).put(d.gid()).putInt(d.srqn()).putInt(d.gidIndex());
    return b.array();
  }

  /**
   * Decodes a {@code struct pingpong_dest}.
   *
   * @param m the message
   * @return the destination
   * @throws IOException when the message is shorter than 56 octets
   */
  public static PingPongDest decodeDest(byte[] m) throws IOException {
    need(m, DEST_SIZE, "pingpong_dest");
    ByteBuffer b = ByteBuffer.wrap(m);
    byte[] gid = Arrays.copyOfRange(m, 32, 48);
    return new PingPongDest(b.getInt(0), b.getInt(4), b.getInt(8), b.getInt(12), b.getInt(16),
        b.getLong(24), gid, b.getInt(48), b.getInt(52));
  }

  /**
   * Encodes a version string into perftest's 16-octet field.
   *
   * @param version the version
   * @return 16 octets, NUL padded
   */
  public static byte[] encodeVersion(String version) {
    byte[] text = version.getBytes(StandardCharsets.US_ASCII);
    if (text.length >= VERSION_SIZE) {
      throw new IllegalArgumentException("version longer than 15 characters: " + version);
    }
    return Arrays.copyOf(text, VERSION_SIZE);
  }

  /**
   * Decodes a version field: the text up to the first NUL.
   *
   * @param m the message
   * @return the version text
   */
  public static String decodeVersion(byte[] m) {
    int n = 0;
    while (n < Math.min(m.length, VERSION_SIZE) && m[n] != 0) {
      n++;
    }
    return new String(m, 0, n, StandardCharsets.US_ASCII);
  }

  /** {@code atof}: the leading number of a version string, 0 when there is none. */
  static double parseVersion(String v) {
    int end = 0;
    while (end < v.length() && (Character.isDigit(v.charAt(end)) || v.charAt(end) == '.')) {
      end++;
    }
    try {
      return end == 0 ? 0 : Double.parseDouble(v.substring(0, end));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * Encodes the MTU message: {@code sprintf("%d")} truncated to two octets.
   *
   * @param mtuEnum the {@code enum ibv_mtu} value (1..5)
   * @return two octets
   */
  public static byte[] encodeMtu(int mtuEnum) {
    if (mtuEnum < 1 || mtuEnum > 5) {
      throw new IllegalArgumentException("enum ibv_mtu is 1..5: " + mtuEnum);
    }
    return new byte[] {(byte) ('0' + mtuEnum), 0};
  }

  /**
   * Decodes the MTU message ({@code strtol}).
   *
   * @param m the message
   * @return the value, 0 when it does not start with a digit
   */
  public static int decodeMtu(byte[] m) {
    int v = 0;
    for (int i = 0; i < m.length && i < 2 && m[i] >= '0' && m[i] <= '9'; i++) {
      v = v * 10 + (m[i] - '0');
    }
    return v;
  }

  static byte[] encodeInt(int v) {
    return ByteBuffer.allocate(4).putInt(v).array();
  }

  static int decodeInt(byte[] m) throws IOException {
    need(m, 4, "int");
    return ByteBuffer.wrap(m).getInt(0);
  }

  static byte[] encodeLong(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static long decodeLong(byte[] m) throws IOException {
    need(m, 8, "64-bit integer");
    return ByteBuffer.wrap(m).getLong(0);
  }

  static byte[] encodeDouble(double v) {
    return ByteBuffer.allocate(8).putDouble(v).array();
  }

  static double decodeDouble(byte[] m) throws IOException {
    need(m, 8, "double");
    return ByteBuffer.wrap(m).getDouble(0);
  }

  private static void need(byte[] m, int n, String what) throws IOException {
    if (m.length < n) {
      throw new IOException("perftest peer sent " + m.length + " octets where a " + what
          + " needs " + n);
    }
  }
}
