package io.iwarp4j.tools.perf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The parsed command line of iwarp-perf, with perftest's option names and defaults where they
 * apply. {@link #parse} never exits; bad input is a {@link UsageException}.
 */
public final class PerfOptions {
  /** perftest's default port ({@code DEF_PORT}). */
  public static final int DEFAULT_PORT = 18515;
  /** Largest message of a {@code -a} sweep: 2^23, as perftest. */
  public static final int MAX_SWEEP_SIZE = 1 << 23;
  /** Largest message size accepted with {@code -s} (memory is preallocated). */
  public static final long MAX_SIZE = 1L << 28;
  /**
   * Most timestamps kept per run ({@code -n} times {@code -q}): two longs each, preallocated,
   * so a run needs at most 320 MB for them.
   */
  public static final long MAX_TIMESTAMPS = 20_000_000L;
  /**
   * Default {@code --warmup} of the one-sided bandwidth tests' client, in seconds: long enough
   * for the JIT to compile both ends' data paths on a busy 2-core machine.
   */
  public static final int DEFAULT_WARMUP_SECONDS = 5;

  PerfMode mode;
  String server;
  boolean loopback;
  int port = DEFAULT_PORT;
  long size = -1;
  boolean sweep;
  long iterations = -1;
  int durationSeconds;
  int txDepth = -1;
  int rxDepth = 512;
  int qps = 1;
  int cqMod = 100;
  int outReads = 16;
  boolean crc = true;
  boolean markers;
  boolean responderSendsFirst;
  boolean useSrq;
  Path json;
  boolean reportGbits;
  boolean progress = true;
  boolean debug;
  int timeoutSeconds = 10;
  /** {@code --warmup}, or -1 when not given (then {@link #warmupSeconds()} decides). */
  int warmupSeconds = -1;
  /** {@code --busy-poll}: the device's loops and the data completion waits spin. */
  boolean busyPoll;
  /** {@code -e}: data completions are waited for through a completion channel. */
  boolean events;
  /**
   * {@code --run-to-completion}: send_lat's ping-pong is played by both ends' receive
   * completion listeners on the event loops ({@link LoopPingPong}).
   */
  boolean runToCompletion;
  /** {@code --tls}: every connection runs over TLS 1.3 (an iwarp4j extension). */
  boolean tls;
  /** {@code --tls-keystore}: this end's key and certificate, or null (loopback generates). */
  Path tlsKeystore;
  /** {@code --tls-password}. */
  String tlsPassword = "changeit";
  /** {@code --tls-truststore}: the peer certificates to trust, or null for the key store's. */
  Path tlsTruststore;
  /** Loopback with --tls and no key store: the material generated for both roles. */
  TlsMaterial generatedTls;

  private PerfOptions() {
  }

  /**
   * Parses a command line: a mode, options, and for the client the server's address.
   *
   * @param args the arguments after {@code iwarp-perf}
   * @return the options
   * @throws UsageException naming the first problem
   */
  public static PerfOptions parse(String[] args) throws UsageException {
    PerfOptions o = new PerfOptions();
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String inline = null;
      if (a.startsWith("--") && a.contains("=")) {
        inline = a.substring(a.indexOf('=') + 1);
        a = a.substring(0, a.indexOf('='));
      }
      switch (a) {
        case "-s", "--size" -> o.size = longArg(a, value(args, ++i, a, inline), 1, MAX_SIZE);
        case "-a", "--all" -> o.sweep = true;
        case "-n", "--iters" -> o.iterations = longArg(a, value(args, ++i, a, inline), 5,
            MAX_TIMESTAMPS);
        case "-D", "--duration" -> o.durationSeconds = (int) longArg(a,
            value(args, ++i, a, inline), 1, 86_400);
        case "-t", "--tx-depth" -> o.txDepth = (int) longArg(a, value(args, ++i, a, inline), 1,
            8192);
        case "-r", "--rx-depth" -> o.rxDepth = (int) longArg(a, value(args, ++i, a, inline), 1,
            8192);
        case "-q", "--qp" -> o.qps = (int) longArg(a, value(args, ++i, a, inline), 1, 64);
        case "-Q", "--cq-mod" -> o.cqMod = (int) longArg(a, value(args, ++i, a, inline), 1, 1024);
        case "-o", "--outs" -> o.outReads = (int) longArg(a, value(args, ++i, a, inline), 1, 128);
        case "-p", "--port" -> o.port = (int) longArg(a, value(args, ++i, a, inline), 0, 65535);
        case "--timeout" -> o.timeoutSeconds = (int) longArg(a, value(args, ++i, a, inline), 1,
            3600);
        case "--warmup" -> o.warmupSeconds = (int) longArg(a, value(args, ++i, a, inline), 0,
            600);
        // perftest's flag for a warm-up before measuring.
        case "--perform_warm_up" -> o.warmupSeconds = DEFAULT_WARMUP_SECONDS;
        case "--json", "--out_json_file" -> o.json = Path.of(value(args, ++i, a, inline));
        case "--crc" -> o.crc = true;
        case "--no-crc" -> o.crc = false;
        case "--markers" -> o.markers = true;
        case "--responder-sends-first" -> o.responderSendsFirst = true;
        case "--use_srq", "--use-srq" -> o.useSrq = true;
        case "--report_gbits", "--report-gbits" -> o.reportGbits = true;
        case "--no-progress" -> o.progress = false;
        case "-v", "--debug" -> o.debug = true;
        case "--loopback" -> o.loopback = true;
        case "--tls" -> o.tls = true;
        case "--tls-keystore" -> o.tlsKeystore = Path.of(value(args, ++i, a, inline));
        case "--tls-password" -> o.tlsPassword = value(args, ++i, a, inline);
        case "--tls-truststore" -> o.tlsTruststore = Path.of(value(args, ++i, a, inline));
        case "--busy-poll", "--busy_poll" -> o.busyPoll = true;
        case "-e", "--events" -> o.events = true;
        case "--run-to-completion", "--rtc" -> o.runToCompletion = true;
        // perftest options that need no action here: rdma_cm is our only connection method,
        // there is no CPU frequency to check, no device to pick, one port.
        case "-R", "--rdma_cm", "-F", "--CPU-freq", "-z", "--comm_rdma_cm" -> {
        }
        case "-d", "--ib-dev", "-i", "--ib-port", "-x", "--gid-index" -> value(args, ++i, a,
            inline);
        default -> {
          if (a.startsWith("-") && a.length() > 1) {
            throw new UsageException("unknown option " + a);
          }
          positional.add(a);
        }
      }
    }
    if (positional.isEmpty()) {
      throw new UsageException("no test given (one of write_bw, read_bw, send_bw, write_lat,"
          + " send_lat, atomic_bw)");
    }
    if ("loopback".equals(positional.get(0))) {
      o.loopback = true;
      positional.remove(0);
      if (positional.isEmpty()) {
        throw new UsageException("loopback needs a test, e.g. loopback write_bw");
      }
    }
    o.mode = PerfMode.fromCli(positional.get(0));
    if (o.mode == null) {
      throw new UsageException("unknown test " + positional.get(0) + " (one of write_bw,"
          + " read_bw, send_bw, write_lat, send_lat, atomic_bw)");
    }
    if (positional.size() > 2) {
      throw new UsageException("unexpected argument " + positional.get(2));
    }
    if (positional.size() == 2) {
      if (o.loopback) {
        throw new UsageException("--loopback takes no server address");
      }
      o.server = positional.get(1);
    }
    o.applyDefaults();
    return o;
  }

  private void applyDefaults() throws UsageException {
    if (!tls && (tlsKeystore != null || tlsTruststore != null)) {
      throw new UsageException("--tls-keystore and --tls-truststore need --tls");
    }
    if (tls && !loopback && tlsKeystore == null) {
      throw new UsageException("--tls needs --tls-keystore FILE on the server and the client"
          + " (a PKCS12 key store; both ends may use the same one; loopback generates one)");
    }
    if (busyPoll && events) {
      throw new UsageException("--busy-poll and -e exclude each other: spin on the completion"
          + " queue or sleep until its channel has an event");
    }
    if (runToCompletion && mode != PerfMode.SEND_LAT) {
      throw new UsageException("--run-to-completion applies to send_lat (its ping-pong runs"
          + " from the receive completions; write_lat has none)");
    }
    if (runToCompletion && events) {
      throw new UsageException("--run-to-completion and -e exclude each other: completions are"
          + " handled by a listener on the event loop, not taken from a channel");
    }
    boolean lat = mode.isLatency();
    if (mode == PerfMode.ATOMIC_BW) {
      if (size > 0 && size != 8) {
        throw new UsageException("atomic_bw moves 8 octets per operation; -s must be 8");
      }
      if (sweep) {
        throw new UsageException("-a does not apply to atomic_bw (always 8 octets)");
      }
      size = 8;
    }
    if (size < 0) {
      size = lat ? 2 : 65536;
    }
    if (sweep && size > 0 && mode != PerfMode.ATOMIC_BW) {
      size = MAX_SWEEP_SIZE;
    }
    if (iterations < 0) {
      iterations = lat ? 1000 : 5000;
    }
    if (txDepth < 0) {
      txDepth = lat ? 1 : 128;
    }
    if (iterations * qps > MAX_TIMESTAMPS) {
      throw new UsageException("-n " + iterations + " with -q " + qps + " keeps more than "
          + MAX_TIMESTAMPS + " timestamps; use fewer iterations or -D");
    }
    if (lat && qps != 1) {
      throw new UsageException("latency tests use one queue pair (-q 1)");
    }
    if (lat && durationSeconds > 0) {
      throw new UsageException("-D is for bandwidth tests; latency tests take -n");
    }
    if (mode == PerfMode.SEND_BW && durationSeconds > 0) {
      throw new UsageException("-D is not offered for send_bw (its receiver counts -n messages)");
    }
    if (cqMod > txDepth) {
      cqMod = txDepth; // perftest does the same: a CQE at least once per TX depth
    }
    if (useSrq && mode != PerfMode.SEND_BW) {
      throw new UsageException("--use_srq applies to send_bw (its server's receives come from"
          + " a shared receive queue)");
    }
    if (mode == PerfMode.SEND_BW && rxDepth < 3) {
      throw new UsageException("send_bw needs -r 3 or more (credits every rx_depth/3)");
    }
  }

  private static String value(String[] args, int i, String option, String inline)
      throws UsageException {
    if (inline != null) {
      return inline;
    }
    if (i >= args.length) {
      throw new UsageException("option " + option + " needs a value");
    }
    return args[i];
  }

  private static long longArg(String option, String v, long min, long max)
      throws UsageException {
    long n;
    try {
      n = Long.decode(v);
    } catch (NumberFormatException e) {
      throw new UsageException("option " + option + " needs a number, not \"" + v + "\"");
    }
    if (n < min || n > max) {
      throw new UsageException("option " + option + " must be in " + min + ".." + max + ", not "
          + n);
    }
    return n;
  }

  /**
   * The sizes to run: one, or 2..2^23 for {@code -a}.
   *
   * @return message sizes in order
   */
  public long[] sizes() {
    if (!sweep) {
      return new long[] {size};
    }
    long[] s = new long[23];
    for (int i = 1; i <= 23; i++) {
      s[i - 1] = 1L << i;
    }
    return s;
  }

  /**
   * The test.
   *
   * @return the mode
   */
  public PerfMode mode() {
    return mode;
  }

  /**
   * The server's address; null for the server.
   *
   * @return the address or null
   */
  public String server() {
    return server;
  }

  /**
   * True for the client role.
   *
   * @return whether a server address was given
   */
  public boolean isClient() {
    return server != null;
  }

  /**
   * Whether the server and the client run in this process over 127.0.0.1.
   *
   * @return true for loopback mode
   */
  public boolean loopback() {
    return loopback;
  }

  /**
   * The TCP port.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * The message size ({@code -s}), or the largest size of a sweep.
   *
   * @return octets
   */
  public long size() {
    return size;
  }

  /**
   * Whether {@code -a} was given.
   *
   * @return true for a size sweep
   */
  public boolean sweep() {
    return sweep;
  }

  /**
   * Iterations per size ({@code -n}).
   *
   * @return the count
   */
  public long iterations() {
    return iterations;
  }

  /**
   * Duration in seconds ({@code -D}), 0 for an iteration count.
   *
   * @return seconds
   */
  public int durationSeconds() {
    return durationSeconds;
  }

  /**
   * TX depth ({@code -t}).
   *
   * @return outstanding work requests per queue pair
   */
  public int txDepth() {
    return txDepth;
  }

  /**
   * RX depth ({@code -r}), the receives send_bw keeps posted.
   *
   * @return receives per queue pair
   */
  public int rxDepth() {
    return rxDepth;
  }

  /**
   * Number of data queue pairs ({@code -q}).
   *
   * @return the count
   */
  public int qps() {
    return qps;
  }

  /**
   * CQ moderation ({@code -Q}): one signaled work request per this many.
   *
   * @return the moderation
   */
  public int cqMod() {
    return cqMod;
  }

  /**
   * Outstanding Reads/Atomics ({@code -o}), IRD and ORD of read_bw and atomic_bw.
   *
   * @return the count
   */
  public int outReads() {
    return outReads;
  }

  /**
   * {@code --tls}: TLS 1.3 on every connection.
   *
   * @return true with --tls
   */
  public boolean tls() {
    return tls;
  }

  /**
   * The TLS settings of this role: this end's key from {@code --tls-keystore} (or the one
   * generated for loopback), trusting {@code --tls-truststore}'s certificates or else the key
   * store's own; a server requires client certificates (mutual authentication), a client
   * does not check host names (trust is pinned to those certificates).
   *
   * @param server whether for the listening role
   * @return the settings, or null without --tls
   * @throws java.io.IOException when a store cannot be read
   * @throws java.security.GeneralSecurityException when it cannot be used
   */
  io.iwarp4j.verbs.TlsSettings tlsSettings(boolean server)
      throws java.io.IOException, java.security.GeneralSecurityException {
    if (!tls) {
      return null;
    }
    char[] password = tlsPassword.toCharArray();
    TlsMaterial keys = generatedTls != null ? generatedTls : TlsMaterial.load(tlsKeystore,
        password);
    TlsMaterial trusted = tlsTruststore != null ? TlsMaterial.load(tlsTruststore, password)
        : keys;
    return keys.settingsTrusting(trusted).requireClientAuth(server).verifyHostname(false)
        .build();
  }

  /**
   * MPA CRC ({@code --crc}, default; {@code --no-crc}).
   *
   * @return true to ask for CRC
   */
  public boolean crc() {
    return crc;
  }

  /**
   * {@code --responder-sends-first}: on a server, accept the data connections with
   * {@code AcceptParams.responderSendsFirst(true)}, which deliberately departs from RFC 5044
   * §7.1.2 rule 4 so that write_lat's server can write first toward a client that never asks
   * for peer-to-peer mode (Linux siw's {@code ib_write_lat}); on a client, open write_lat's data
   * connection in the client-server model as perftest does, relying on such a server.
   *
   * @return true when the option was given
   */
  public boolean responderSendsFirst() {
    return responderSendsFirst;
  }

  /**
   * {@code --use_srq}, as perftest's: send_bw's server takes its receives from one shared
   * receive queue that every data queue pair is attached to. A client accepts the option and
   * does not change (perftest's bandwidth client creates no SRQ either).
   *
   * @return true when the option was given
   */
  public boolean useSrq() {
    return useSrq;
  }

  /**
   * MPA Markers ({@code --markers}).
   *
   * @return true to ask for Markers
   */
  public boolean markers() {
    return markers;
  }

  /**
   * The JSON output file ({@code --json}), or null.
   *
   * @return the path
   */
  public Path json() {
    return json;
  }

  /**
   * Gb/s instead of MB/s ({@code --report_gbits}).
   *
   * @return true for Gb/s
   */
  public boolean reportGbits() {
    return reportGbits;
  }

  /**
   * Whether a progress line goes to stderr every second.
   *
   * @return false with {@code --no-progress}
   */
  public boolean progress() {
    return progress;
  }

  /**
   * Stack traces on errors ({@code -v}/{@code --debug}).
   *
   * @return true for debug output
   */
  public boolean debug() {
    return debug;
  }

  /**
   * Connect timeout in seconds ({@code --timeout}).
   *
   * @return seconds
   */
  public int timeoutSeconds() {
    return timeoutSeconds;
  }

  /**
   * Warm-up before measuring ({@code --warmup}), in seconds: the client of write_bw, read_bw
   * and atomic_bw runs every size of the test for its share of it first, and each size for
   * {@link TestDriver#MARGIN_NANOS} right before it is measured; 0 turns both off. The other
   * tests' peers count every message, so they do not warm up. Without {@code --warmup}, a sweep
   * ({@code -a}) or a timed run ({@code -D}) warms up for {@link #DEFAULT_WARMUP_SECONDS}, and a
   * run of {@code -n} iterations does not: as perftest's, it sends exactly that many messages.
   *
   * @return seconds
   */
  public int warmupSeconds() {
    if (mode.isLatency() || mode == PerfMode.SEND_BW) {
      return 0;
    }
    if (warmupSeconds >= 0) {
      return warmupSeconds;
    }
    return sweep || durationSeconds > 0 ? DEFAULT_WARMUP_SECONDS : 0;
  }

  /**
   * How the data completions are waited for: {@code --busy-poll} (the device busy-polls too,
   * {@code PollMode.BUSY_POLL}), {@code -e} (a completion channel) or parked.
   *
   * @return the kind of wait
   */
  CompletionWaiter.Kind waitKind() {
    return busyPoll ? CompletionWaiter.Kind.BUSY_POLL
        : events ? CompletionWaiter.Kind.EVENTS : CompletionWaiter.Kind.PARKED;
  }

  /**
   * {@code --run-to-completion}: send_lat's ping-pong runs on the event loops.
   *
   * @return true with --run-to-completion
   */
  boolean runToCompletion() {
    return runToCompletion;
  }

  /**
   * Whether the test runs for a duration instead of an iteration count.
   *
   * @return true with {@code -D}
   */
  public boolean byDuration() {
    return durationSeconds > 0;
  }

  /**
   * A copy for the in-process server of loopback mode: no address, port 0, quiet.
   *
   * @return the server's options
   */
  PerfOptions loopbackServer() {
    PerfOptions s = copy();
    s.server = null;
    s.port = 0;
    s.json = null;
    s.progress = false;
    return s;
  }

  /**
   * A copy for the client of loopback mode.
   *
   * @param port the server's port
   * @return the client's options
   */
  PerfOptions loopbackClient(int port) {
    PerfOptions c = copy();
    c.server = "127.0.0.1";
    c.port = port;
    return c;
  }

  private PerfOptions copy() {
    PerfOptions c = new PerfOptions();
    c.mode = mode;
    c.server = server;
    c.loopback = loopback;
    c.port = port;
    c.size = size;
    c.sweep = sweep;
    c.iterations = iterations;
    c.durationSeconds = durationSeconds;
    c.txDepth = txDepth;
    c.rxDepth = rxDepth;
    c.qps = qps;
    c.cqMod = cqMod;
    c.outReads = outReads;
    c.crc = crc;
    c.markers = markers;
    c.responderSendsFirst = responderSendsFirst;
    c.useSrq = useSrq;
    c.json = json;
    c.reportGbits = reportGbits;
    c.progress = progress;
    c.debug = debug;
    c.timeoutSeconds = timeoutSeconds;
    c.warmupSeconds = warmupSeconds;
    c.busyPoll = busyPoll;
    c.events = events;
    c.runToCompletion = runToCompletion;
    c.tls = tls;
    c.tlsKeystore = tlsKeystore;
    c.tlsPassword = tlsPassword;
    c.tlsTruststore = tlsTruststore;
    c.generatedTls = generatedTls;
    return c;
  }

  /** The usage text printed with {@code --help}. */
  static final String USAGE = String.join("\n",
      "usage: iwarp-perf <test> [options] [server-address]     (no address: run the server)",
      "       iwarp-perf loopback <test> [options]            (server and client in this JVM)",
      "tests: write_bw read_bw send_bw write_lat send_lat atomic_bw (ib_ prefix accepted)",
      "  -s, --size N        message size (default 65536 bw, 2 lat, 8 atomic)",
      "  -a, --all           sweep sizes 2..2^23",
      "  -n, --iters N       iterations per size (default 5000 bw, 1000 lat)",
      "  -D, --duration S    run for S seconds instead of -n (with -a: each size)",
      "  -t, --tx-depth N    outstanding sends per QP (default 128 bw, 1 lat; bw: at most",
      "                      64 MiB of them)",
      "  -r, --rx-depth N    receives posted per QP by send_bw (default 512)",
      "  -q, --qp N          data queue pairs (default 1)",
      "  -Q, --cq-mod N      signal one send per N (default 100)",
      "  -o, --outs N        outstanding Reads/Atomics, IRD/ORD (default 16)",
      "  --use_srq           send_bw server: receives from one shared receive queue",
      "                      (rx_depth per QP; a client accepts and ignores it, as perftest)",
      "  -p, --port N        TCP port (default 18515)",
      "  --crc / --no-crc    ask for MPA CRC (default on)   --markers  ask for MPA Markers",
      "  --responder-sends-first  server: send on the data connections right after the MPA",
      "                      Reply (NOT RFC 5044 §7.1.2 rule 4 conformant; for siw's ib_write_lat",
      "                      client, which never asks for peer-to-peer mode; safe only toward",
      "                      Initiators that take FPDUs right after the Reply, like Linux siw);",
      "                      client: open write_lat's data connection without peer-to-peer mode",
      "  --json FILE         write the results as JSON     --report_gbits  Gb/s instead of MB/s",
      "  --no-progress       no progress lines on stderr   -v, --debug  stack traces on errors",
      "  --warmup S          write/read/atomic_bw client: run the test's sizes for S seconds,",
      "                      and each size 50 ms more, before measuring (default 5 with",
      "                      -a or -D, none with -n alone; 0: off)",
      "  --busy-poll         low-latency mode: the device's event loops busy-poll and the",
      "                      tool spins on its completion queues (a core per spinning thread)",
      "  -e, --events        wait for completions through a completion channel (arm, poll,",
      "                      sleep until the event) instead of polling",
      "  --run-to-completion send_lat: each end answers from its receive completion listener",
      "                      on the event loop (repost, post the next Send, unsignaled); the",
      "                      application thread only waits for the end. No thread hand-off per",
      "                      message; with --busy-poll the event loops are the only spinners",
      "                      (one per end, as a C library polling its own socket)",
      "  --tls               TLS 1.3 on every connection, both roles (an iwarp4j extension,",
      "                      not interoperable with siw/RNICs); mutual authentication",
      "  --tls-keystore F    this end's PKCS12 key store (loopback: one is generated)",
      "  --tls-truststore F  certificates to trust (default: the key store's own)",
      "  --tls-password P    the stores' password (default changeit)",
      "  --timeout S         connect timeout (default 10)  -R -F -z -d -i -x: accepted, ignored",
      "");
}
