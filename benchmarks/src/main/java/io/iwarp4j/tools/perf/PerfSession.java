package io.iwarp4j.tools.perf;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionChannel;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEventListener;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.MpaSettings;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnectException;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.PollMode;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RtrType;
import io.iwarp4j.verbs.SharedReceiveQueue;
import io.iwarp4j.verbs.SharedReceiveQueueConfig;
import io.iwarp4j.verbs.TerminateInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;

/**
 * One end of a perftest run in rdma_cm mode: the control connection and its conversation
 * ({@link PerftestExchange}), then the data connections, in the order perftest 4.5-0.17 uses
 * (see docs/interop.md):
 *
 * <ol>
 *   <li>control connection (a queue pair of its own, one receive posted before connecting);
 *   <li>versions, cycle buffer and cache line, MTU;
 *   <li>a sync handshake, the data connections on the same port, another sync handshake;
 *   <li>[latency tests: one more handshake] one handshake per data QP with its rkey and vaddr,
 *       one more per data QP, and a final one;
 *   <li>the test; then for bandwidth tests a handshake, the client's report, and a closing
 *       handshake.
 * </ol>
 */
final class PerfSession implements AutoCloseable {
  static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
  private static final int PAGE_SIZE = 4096;
  private static final int CACHE_LINE = 64;
  /** write_lat client: quiet period before the RTR, as iwarp-ping's default against siw. */
  static final long WRITE_LAT_RTR_DELAY_MS = 50;
  /**
   * Client: quiet period between the control connection's MPA Reply and its first FPDU (the
   * version message, sent at once), as iwarp-ping's default: siw's accept race otherwise leaves
   * that Send unread (a 60 s stall seen against ib_write_bw -R under load; docs/interop.md).
   */
  static final long CONTROL_FIRST_FPDU_DELAY_MS = 50;
  /** Client: how long it waits for the server to close the control connection first. */
  static final long LINGER_MILLIS = 3000;

  final PerfOptions opts;
  final PrintStream out;
  /** Where retries of a data connect are logged. */
  private final PrintStream err;
  final boolean client;
  final RdmaDevice device;
  final ProtectionDomain pd;
  final CompletionQueue sendCq;
  final CompletionQueue recvCq;
  /**
   * send_bw server with {@code --use_srq}: the shared receive queue every data queue pair takes
   * its receives from (null otherwise). Its depth is {@code rx_depth} per queue pair, so each
   * client's credit window (rx_depth, {@link SendCredits}) has its receives.
   */
  final SharedReceiveQueue srq;
  /** How the runners wait for data completions ({@code --busy-poll}, {@code -e}, parked). */
  final CompletionWaiter waiter;
  /** send_lat with {@code --run-to-completion}: the receive queue's listener; null otherwise. */
  final LoopPingPong loopPingPong;
  final QueuePair[] qps;
  final MemoryRegion[] local;
  final MemoryRegion[] target;
  /** send_bw: the credit word this end advertises (the peer writes into it). */
  final MemoryRegion[] credit;
  /** send_bw: the ring of credit words this end writes from. */
  final MemoryRegion[] creditSource;
  final PingPongDest[] mine;
  final PingPongDest[] remote;
  final CompletableFuture<?>[] established;
  private final QpMessageChannel control;
  /** The first Terminate a peer sent on any of the connections, or null (any thread). */
  private volatile TerminateInfo peerTerminate;
  /** Records it: a failure message then names why the peer ended (issue 22). */
  private final ConnectionEventListener terminates = e -> {
    if (e.terminate() != null && e.terminate().receivedFromPeer() && peerTerminate == null) {
      peerTerminate = e.terminate();
    }
  };
  private final PerftestExchange exchange;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  /** Data connects: a fresh queue pair per retry (a failed connect leaves its QP in ERROR). */
  private final DataConnectRetry<QueuePair> dataConnects = new DataConnectRetry<>(
      new DataConnectRetry.Resources<>() {
        @Override
        public QueuePair fresh() {
          return device.createQueuePair(pd, dataQueuePairConfig());
        }

        @Override
        public void release(QueuePair failed) {
          failed.close();
        }

        @Override
        public void pause(long millis) throws InterruptedException {
          Thread.sleep(millis);
        }

        @Override
        public void retrying(int failed, RdmaConnectException e) {
          err.println("iwarp-perf: data connect attempt " + failed + " of "
              + DataConnectRetry.ATTEMPTS + " to " + opts.server() + ":" + opts.port()
              + " failed (" + e.getMessage() + "); retrying on a fresh queue pair");
        }
      }, DataConnectRetry.ATTEMPTS);
  int cycleBuffer = PAGE_SIZE;
  int bufferSize;

  PerfSession(PerfOptions opts, PrintStream out, PrintStream err) {
    this.opts = opts;
    this.out = out;
    this.err = err;
    this.client = opts.isClient();
    MpaSettings mpa = MpaSettings.defaults().toBuilder().crc(opts.crc()).markers(opts.markers())
        .build();
    int q = opts.qps();
    boolean useSrq = !client && opts.useSrq() && opts.mode() == PerfMode.SEND_BW;
    int srqDepth = q * opts.rxDepth();
    CompletionWaiter.Kind waitKind = opts.waitKind();
    DeviceConfig.Builder dc = DeviceConfig.builder().eventLoopThreads(1).mpaSettings(mpa)
        .maxCqe(1 << 22).pollMode(waitKind == CompletionWaiter.Kind.BUSY_POLL ? PollMode.BUSY_POLL
            : PollMode.PARKED);
    if (useSrq) {
      dc.maxSrqWr(Math.max(srqDepth, DeviceConfig.defaults().maxSrqWr()));
    }
    device = RdmaDevice.open(dc.build());
    pd = device.allocateProtectionDomain();
    srq = useSrq ? pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder()
        .maxWr(srqDepth).maxSge(1).build()) : null;
    int sendDepth = opts.txDepth() + DataQueues.CREDIT_WRS;
    CompletionChannel channel = waitKind == CompletionWaiter.Kind.EVENTS
        ? device.createCompletionChannel() : null;
    waiter = new CompletionWaiter(waitKind, channel);
    int sendCqe = Math.max(64, 2 * q * sendDepth);
    int recvCqe = Math.max(64, 2 * q * opts.rxDepth());
    sendCq = channel != null ? device.createCompletionQueue(sendCqe, channel)
        : device.createCompletionQueue(sendCqe);
    loopPingPong = opts.runToCompletion() ? new LoopPingPong() : null;
    recvCq = channel != null ? device.createCompletionQueue(recvCqe, channel)
        : loopPingPong != null ? device.createCompletionQueue(recvCqe, loopPingPong)
        : device.createCompletionQueue(recvCqe);
    qps = new QueuePair[q];
    local = new MemoryRegion[q];
    target = new MemoryRegion[q];
    credit = new MemoryRegion[q];
    creditSource = new MemoryRegion[q];
    mine = new PingPongDest[q];
    remote = new PingPongDest[q];
    established = new CompletableFuture<?>[q];
    long wait = client ? opts.durationSeconds() * (long) opts.sizes().length
        + opts.warmupSeconds() + 60L : 86_400L;
    control = new QpMessageChannel(device, pd, wait);
    exchange = new PerftestExchange(control, client);
  }

  /**
   * The first Terminate a peer sent on any connection of this session.
   *
   * @return the Terminate, or null
   */
  TerminateInfo peerTerminate() {
    return peerTerminate;
  }

  /**
   * Runs everything up to the test: connections, the conversation, the headers.
   *
   * @param portListener told the listening port (server only)
   */
  void setUp(IntConsumer portListener) throws IOException, InterruptedException {
    io.iwarp4j.verbs.TlsSettings tls;
    try {
      tls = opts.tlsSettings(!client);
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("--tls: " + e.getMessage(), e);
    }
    if (client) {
      connect(control.queuePair(), ConnectParams.builder().crc(opts.crc()).tls(tls)
          .markers(opts.markers()).eventListener(terminates).connectTimeout(java.time.Duration.ofSeconds(
              opts.timeoutSeconds()))
          .firstFpduDelay(Duration.ofMillis(CONTROL_FIRST_FPDU_DELAY_MS)).build(), "control");
    } else {
      listener = device.listen(new InetSocketAddress(opts.port()), requests::add,
          io.iwarp4j.verbs.ListenParams.builder().tls(tls).build());
      portListener.accept(listener.localAddress().getPort());
      out.println();
      out.println("************************************");
      out.println("* Waiting for client to connect... *");
      out.println("************************************");
      accept(control.queuePair(), AcceptParams.builder().eventListener(terminates).build());
    }
    exchange.exchangeVersions();
    exchange.checkPeerVersion();
    int[] sys = exchange.exchangeSysData(PAGE_SIZE, CACHE_LINE);
    cycleBuffer = sys[0];
    exchange.exchangeMtu(PerftestExchange.IBV_MTU_1024);

    // Data resources, sized like perftest's buffers: BUFF_SIZE = max(size, cycle buffer),
    // doubled because perftest's address cycling may run up to half a buffer past it.
    bufferSize = (int) Math.min(Integer.MAX_VALUE - 8, 2 * Math.max(opts.size(), cycleBuffer));
    for (int i = 0; i < qps.length; i++) {
      qps[i] = device.createQueuePair(pd, dataQueuePairConfig());
      local[i] = pd.allocate(bufferSize, ACCESS);
      target[i] = pd.allocate(bufferSize, ACCESS);
      if (opts.mode() == PerfMode.SEND_BW) {
        credit[i] = pd.allocate(64, ACCESS);
        creditSource[i] = pd.allocate(4 * DataQueues.CREDIT_WRS, ACCESS);
      }
    }

    exchange.handshake(PingPongDest.ZERO); // create_rdma_cm_connection: before connecting
    for (int i = 0; i < qps.length; i++) {
      if (client) {
        ConnectParams.Builder p = ConnectParams.builder().crc(opts.crc()).markers(opts.markers())
            .tls(tls)
            .eventListener(terminates).connectTimeout(java.time.Duration.ofSeconds(opts.timeoutSeconds()))
            .replyTimeout(Duration.ofMillis(DataConnectRetry.REPLY_TIMEOUT_MILLIS));
        if (opts.mode().usesReads()) {
          p.ird(opts.outReads()).ord(opts.outReads());
        }
        if (opts.mode() == PerfMode.WRITE_LAT && !opts.responderSendsFirst()) {
          // perftest's write_lat server writes first; an MPA Responder may send only after the
          // Initiator's first FPDU (RFC 5044 §7.1.2 rule 4), so the client opens the data
          // connection in peer-to-peer mode: its Write RTR lets the server go. The quiet period
          // keeps the RTR clear of siw's accept race (docs/interop.md).
          p.peerToPeer(true).rtrTypes(EnumSet.of(RtrType.WRITE))
              .firstFpduDelay(Duration.ofMillis(WRITE_LAT_RTR_DELAY_MS));
        }
        ConnectParams params = p.build();
        try {
          qps[i] = dataConnects.connect(qps[i], qp -> connectOnce(qp, params));
        } catch (RdmaConnectException r) {
          throw new IOException("cannot connect data QP " + i + " to " + opts.server() + ":"
              + opts.port() + ": " + r.getMessage(), r);
        }
        established[i] = CompletableFuture.completedFuture(qps[i].connection());
      } else {
        AcceptParams.Builder p = AcceptParams.builder().eventListener(terminates);
        if (opts.mode().usesReads()) {
          p.ird(opts.outReads()).ord(opts.outReads());
        }
        if (opts.responderSendsFirst()) {
          // Not RFC 5044 §7.1.2 rule 4 conformant, on request only: lets write_lat's server
          // write first toward an Initiator that never asks for peer-to-peer mode (siw's).
          p.responderSendsFirst(true);
        }
        established[i] = accept(qps[i], p.build());
      }
    }
    if (listener != null) {
      listener.close();
    }
    exchange.handshake(PingPongDest.ZERO); // create_rdma_cm_connection: after connecting

    for (int i = 0; i < qps.length; i++) {
      MemoryRegion advertised = DataQueues.advertised(this, i);
      mine[i] = new PingPongDest(0, opts.outReads(), qps[i].number(),
          ThreadLocalRandom.current().nextInt(1 << 24), advertised.stag(),
          advertised.address(), new byte[16], 0, 0);
    }
    ReportPrinter.header(out, this);
    // The handshakes each perftest binary makes before its test (same messages, different
    // counts): write_lat 1+Q+Q+1, write/read/atomic_bw Q+Q+1, send_bw/send_lat Q+1+Q.
    boolean send = opts.mode() == PerfMode.SEND_BW || opts.mode() == PerfMode.SEND_LAT;
    if (opts.mode() == PerfMode.WRITE_LAT) {
      exchange.handshake(mine[0]);
    }
    for (int i = 0; i < qps.length; i++) {
      remote[i] = exchange.handshake(mine[i]);
    }
    if (send) {
      exchange.handshake(mine[0]);
    }
    for (int i = 0; i < qps.length; i++) {
      out.println(" local address: " + ReportPrinter.address(mine[i]));
    }
    for (int i = 0; i < qps.length; i++) {
      remote[i] = exchange.handshake(mine[i]);
      out.println(" remote address: " + ReportPrinter.address(remote[i]));
    }
    if (!send) {
      exchange.handshake(mine[0]); // "an additional handshake is required after moving to RTR"
    }
  }

  /** A sync handshake between test phases ({@code ctx_hand_shake} with the first dest). */
  void sync() throws IOException {
    exchange.handshake(mine[0]);
  }

  /**
   * The end of a bandwidth test: sync, the reports, the closing handshake.
   *
   * @param mineReport this end's report (the client's; the server sends zeros)
   * @return the peer's report
   */
  BwReport finishBandwidth(BwReport mineReport) throws IOException {
    exchange.handshake(mine[0]);
    BwReport theirs = exchange.exchangeBwReports(mineReport);
    exchange.handshake(mine[0]); // ctx_close_connection
    return theirs;
  }

  /**
   * The client, after its last message, lets the server close first (bounded by
   * {@link #LINGER_MILLIS}). The server's last Send reached us, but the server may not have
   * completed it yet: Linux siw completes an SQE only after its transmit loop returns, and a
   * FIN arriving in between flushes the in-progress SQE with {@code IBV_WC_LOC_QP_OP_ERR}, so
   * an immediate close made perftest's {@code ib_read_bw -R} server fail with "Bad wc status
   * 2" in its closing handshake (docs/interop.md). perftest's own client also closes only
   * after its rdma_cm teardown, much later. The server ends at once.
   */
  void lingerForPeerClose() {
    if (client) {
      control.awaitPeerClose(LINGER_MILLIS);
    }
  }

  /** The peer's perftest version. */
  String peerVersion() {
    return exchange.peerVersion();
  }

  RdmaConnection connection(int i) {
    return qps[i].connection();
  }

  private QueuePairConfig dataQueuePairConfig() {
    QueuePairConfig.Builder b = QueuePairConfig.builder(sendCq, recvCq)
        .maxSendWr(opts.txDepth() + DataQueues.CREDIT_WRS)
        .maxRecvWr(opts.rxDepth()).maxSendSge(1).maxRecvSge(1);
    if (srq != null) {
      b.sharedReceiveQueue(srq);
    }
    if (opts.mode().usesReads()) {
      b.ird(opts.outReads()).ord(opts.outReads());
    }
    return b.build();
  }

  private void connect(QueuePair qp, ConnectParams p, String what)
      throws IOException, InterruptedException {
    try {
      connectOnce(qp, p);
    } catch (RdmaConnectException r) {
      throw new IOException("cannot connect " + what + " to " + opts.server() + ":"
          + opts.port() + ": " + r.getMessage(), r);
    }
  }

  /** One connect attempt; a failure of the connection itself is thrown as it is. */
  private void connectOnce(QueuePair qp, ConnectParams p)
      throws IOException, InterruptedException {
    InetSocketAddress addr = new InetSocketAddress(opts.server(), opts.port());
    if (addr.isUnresolved()) {
      throw new IOException("unknown host " + opts.server());
    }
    try {
      device.connect(qp, addr, p).get(opts.timeoutSeconds() + 5L, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RdmaConnectException r) {
        throw r;
      }
      throw new IOException("cannot connect to " + opts.server() + ":" + opts.port() + ": " + c,
          c);
    } catch (TimeoutException e) {
      throw new IOException("cannot connect to " + opts.server() + ":" + opts.port()
          + ": no answer within " + opts.timeoutSeconds() + " s", e);
    }
  }

  private CompletableFuture<RdmaConnection> accept(QueuePair qp, AcceptParams p)
      throws InterruptedException, IOException {
    // The server waits for as long as it takes a client to come.
    ConnectRequest r = requests.take();
    // Client-server MPA: the future completes when the client's first message arrived.
    return r.accept(qp, p);
  }

  @Override
  public void close() {
    device.close();
  }
}
