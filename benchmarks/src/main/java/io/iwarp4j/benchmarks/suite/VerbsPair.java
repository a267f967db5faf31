package io.iwarp4j.benchmarks.suite;

import io.iwarp4j.tools.perf.TlsMaterial;
import io.iwarp4j.verbs.CompletionListener;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.ListenParams;
import io.iwarp4j.verbs.MpaSettings;
import io.iwarp4j.verbs.PollMode;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.SharedReceiveQueue;
import io.iwarp4j.verbs.SharedReceiveQueueConfig;
import io.iwarp4j.verbs.TlsSettings;
import io.iwarp4j.verbs.WorkCompletion;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Two verbs devices in this JVM (one event-loop thread each, the transport the device picks:
 * epoll on Linux) with {@code n} queue pairs connected between them over 127.0.0.1, MPA
 * peer-to-peer so either side may send first. The client side posts, the server side is the
 * target. Every wait is bounded by {@link #WAIT_SECONDS}.
 */
final class VerbsPair implements AutoCloseable {
  /** Longest any benchmark waits for one event before it gives up with an exception. */
  static final long WAIT_SECONDS = 10;
  /** How many connections are set up at once (bounds the listen backlog in use). */
  private static final int CONNECT_BATCH = 64;

  final RdmaDevice serverDevice;
  final RdmaDevice clientDevice;
  final ProtectionDomain serverPd;
  final ProtectionDomain clientPd;
  final CompletionQueue clientCq;
  final CompletionQueue serverCq;
  final QueuePair[] clientQps;
  final QueuePair[] serverQps;
  /** The shared receive queue every server queue pair takes its receives from, or null. */
  final SharedReceiveQueue serverSrq;
  private final RdmaListener listener;

  /**
   * Opens both devices and connects {@code n} queue pairs.
   *
   * @param n queue pairs
   * @param crc whether MPA CRC32c is used (both sides ask, or neither does)
   * @param sendWr send queue depth of every queue pair
   * @param recvWr receive queue depth of every queue pair
   * @param readDepth IRD and ORD of every queue pair
   * @param serverListener listener of the server's completion queue, or null
   */
  VerbsPair(int n, boolean crc, int sendWr, int recvWr, int readDepth,
      CompletionListener serverListener) throws Exception {
    this(n, crc, sendWr, recvWr, readDepth, serverListener, 0);
  }

  /**
   * As above; with {@code srqDepth > 0} the server's queue pairs share one shared receive queue
   * of that depth ({@link #serverSrq}) instead of {@code recvWr} receives each.
   */
  VerbsPair(int n, boolean crc, int sendWr, int recvWr, int readDepth,
      CompletionListener serverListener, int srqDepth) throws Exception {
    this(n, crc, sendWr, recvWr, readDepth, serverListener, srqDepth, PollMode.PARKED);
  }

  /** As above, with both devices in {@code pollMode}. */
  VerbsPair(int n, boolean crc, int sendWr, int recvWr, int readDepth,
      CompletionListener serverListener, int srqDepth, PollMode pollMode) throws Exception {
    this(n, crc, sendWr, recvWr, readDepth, serverListener, srqDepth, pollMode, false);
  }

  /**
   * As above; with {@code tls} every connection runs over TLS 1.3, mutually authenticated with
   * key pairs generated for the pair (keytool, outside the measurement).
   */
  VerbsPair(int n, boolean crc, int sendWr, int recvWr, int readDepth,
      CompletionListener serverListener, int srqDepth, PollMode pollMode, boolean tls)
      throws Exception {
    this(n, crc, sendWr, recvWr, readDepth, serverListener, null, srqDepth, pollMode, tls);
  }

  /** As above, with {@code clientListener} (or null) on the client's completion queue. */
  VerbsPair(int n, boolean crc, int sendWr, int recvWr, int readDepth,
      CompletionListener serverListener, CompletionListener clientListener, int srqDepth,
      PollMode pollMode, boolean tls) throws Exception {
    TlsSettings serverTls = null;
    TlsSettings clientTls = null;
    if (tls) {
      TlsMaterial serverKeys = TlsMaterial.generate("verbs-pair-server");
      TlsMaterial clientKeys = TlsMaterial.generate("verbs-pair-client");
      serverTls = serverKeys.settingsTrusting(clientKeys).requireClientAuth(true).build();
      clientTls = clientKeys.settingsTrusting(serverKeys).build();
    }
    DeviceConfig config = DeviceConfig.builder().eventLoopThreads(1)
        .mpaSettings(MpaSettings.builder().crc(crc).build()).pollMode(pollMode)
        .maxQueuePairs(Math.max(1024, n)).maxSrqWr(Math.max(1 << 14, srqDepth)).build();
    serverDevice = RdmaDevice.open(config);
    clientDevice = RdmaDevice.open(config);
    boolean ok = false;
    try {
      serverPd = serverDevice.allocateProtectionDomain();
      clientPd = clientDevice.allocateProtectionDomain();
      int cqe = Math.max(1024, n * (sendWr + recvWr));
      clientCq = clientListener == null ? clientDevice.createCompletionQueue(cqe)
          : clientDevice.createCompletionQueue(cqe, clientListener);
      serverCq = serverListener == null ? serverDevice.createCompletionQueue(cqe)
          : serverDevice.createCompletionQueue(cqe, serverListener);
      serverSrq = srqDepth > 0 ? serverPd.createSharedReceiveQueue(
          SharedReceiveQueueConfig.builder().maxWr(srqDepth).maxSge(1).build()) : null;
      clientQps = new QueuePair[n];
      serverQps = new QueuePair[n];
      ConcurrentLinkedQueue<QueuePair> acceptWith = new ConcurrentLinkedQueue<>();
      for (int i = 0; i < n; i++) {
        clientQps[i] = clientDevice.createQueuePair(clientPd, qpConfig(clientCq, sendWr, recvWr,
            readDepth));
        serverQps[i] = serverDevice.createQueuePair(serverPd, serverSrq == null
            ? qpConfig(serverCq, sendWr, recvWr, readDepth)
            : QueuePairConfig.builder(serverCq, serverCq).maxSendWr(sendWr).maxSendSge(1)
                .ird(readDepth).ord(readDepth).sharedReceiveQueue(serverSrq).build());
        acceptWith.add(serverQps[i]);
      }
      listener = serverDevice.listen(new InetSocketAddress("127.0.0.1", 0),
          (ConnectRequest request) -> {
            QueuePair qp = acceptWith.poll();
            if (qp == null) {
              request.reject(new byte[0]);
            } else {
              request.accept(qp);
            }
          }, ListenParams.builder().tls(serverTls).build());
      ConnectParams params = ConnectParams.builder().peerToPeer(true).crc(crc).tls(clientTls)
          .ird(readDepth).ord(readDepth).build();
      for (int from = 0; from < n; from += CONNECT_BATCH) {
        List<CompletableFuture<RdmaConnection>> pending = new ArrayList<>();
        for (int i = from; i < Math.min(n, from + CONNECT_BATCH); i++) {
          pending.add(clientDevice.connect(clientQps[i], listener.localAddress(), params));
        }
        for (CompletableFuture<RdmaConnection> f : pending) {
          RdmaConnection c = f.get(WAIT_SECONDS, TimeUnit.SECONDS);
          if (c.mpaInfo().crc() != crc) {
            throw new IllegalStateException("asked for CRC " + crc + ", negotiated "
                + c.mpaInfo().crc());
          }
        }
      }
      waitUntilServerSideReady();
      ok = true;
    } finally {
      if (!ok) {
        close();
      }
    }
  }

  private static QueuePairConfig qpConfig(CompletionQueue cq, int sendWr, int recvWr,
      int readDepth) {
    return QueuePairConfig.builder(cq, cq).maxSendWr(sendWr).maxRecvWr(recvWr).maxSendSge(1)
        .maxRecvSge(1).ird(readDepth).ord(readDepth).build();
  }

  /** The accepting side reaches RTS a moment after the client's connect future completes. */
  private void waitUntilServerSideReady() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    for (QueuePair qp : serverQps) {
      while (qp.state() != io.iwarp4j.verbs.QpState.RTS) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("server queue pair not RTS within " + WAIT_SECONDS
              + " s: " + qp.state());
        }
        Thread.sleep(1);
      }
    }
  }

  /** Fails with the first unsuccessful completion among the first {@code n} of {@code wc}. */
  static void check(WorkCompletion[] wc, int n, String what) {
    for (int i = 0; i < n; i++) {
      if (!wc[i].isSuccess()) {
        throw new IllegalStateException(what + " failed: " + wc[i]);
      }
    }
  }

  /** Allocates completion holders. */
  static WorkCompletion[] completions(int n) {
    WorkCompletion[] wc = new WorkCompletion[n];
    for (int i = 0; i < n; i++) {
      wc[i] = new WorkCompletion();
    }
    return wc;
  }

  @Override
  public void close() {
    // Closing the devices disconnects, flushes and frees every QP, CQ, PD and region they own.
    if (clientDevice != null) {
      clientDevice.close();
    }
    if (serverDevice != null) {
      serverDevice.close();
    }
  }
}
