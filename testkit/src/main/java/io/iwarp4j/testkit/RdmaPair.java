package io.iwarp4j.testkit;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.WorkCompletion;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Two devices over TCP on 127.0.0.1, each with a queue pair connected to the other's and a
 * registered region whose {@link io.iwarp4j.verbs.RemoteBuffer} the other end received in the
 * connection private data. The {@link RdmaExtension} injects one, configured by {@link
 * RdmaTest}, and closes it after the test, failing the test if a work request was left
 * uncompleted or a completion unpolled.
 */
public final class RdmaPair implements AutoCloseable {
  private final PairSettings settings;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private Endpoint client;
  private Endpoint server;
  private FaultProxy proxy;

  private RdmaPair(PairSettings settings) {
    this.settings = settings;
  }

  /** Opens and connects a pair; on failure closes what it opened. */
  static RdmaPair open(PairSettings settings) throws Exception {
    RdmaPair pair = new RdmaPair(settings);
    try {
      pair.connect();
      return pair;
    } catch (Exception | Error e) {
      pair.close();
      throw e;
    }
  }

  private void connect() throws Exception {
    server = endpoint("server");
    client = endpoint("client");
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    long waitMillis = settings.timeout().toMillis();
    try (RdmaListener listener = server.device().listen(
        new InetSocketAddress("127.0.0.1", 0), requests::add)) {
      InetSocketAddress target = listener.localAddress();
      if (settings.viaProxy()) {
        proxy = FaultProxy.to(target);
        resources.add(0, proxy);
        target = proxy.address();
      }
      CompletableFuture<RdmaConnection> connecting = client.device().connect(client.qp(), target,
          ConnectParams.builder().privateData(client.region().remote().toBytes())
              .crc(settings.crc()).markers(settings.markers())
              .ird(settings.ird()).ord(settings.ord())
              // Peer-to-peer mode (RFC 6581 RTR): both ends are ready to send when connected.
              .peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
      ConnectRequest request = requests.poll(waitMillis, TimeUnit.MILLISECONDS);
      if (request == null) {
        throw new AssertionError("the server heard no connect request within " + waitMillis
            + " ms");
      }
      CompletableFuture<RdmaConnection> accepting = request.accept(server.qp(),
          AcceptParams.builder().privateData(server.region().remote().toBytes())
              .ird(settings.ird()).ord(settings.ord()).build());
      client.connected(connecting.get(waitMillis, TimeUnit.MILLISECONDS));
      server.connected(accepting.get(waitMillis, TimeUnit.MILLISECONDS));
    }
  }

  private Endpoint endpoint(String name) {
    RdmaDevice device = RdmaDevice.open(settings.deviceConfig());
    // Closing the device closes everything it made; the client is closed first (see close).
    resources.add(name.equals("client") ? 0 : resources.size(), device);
    ProtectionDomain pd = device.allocateProtectionDomain();
    CompletionQueue cq = device.createCompletionQueue(settings.cqCapacity());
    QueuePair qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(settings.sendQueueDepth()).maxRecvWr(settings.recvQueueDepth())
        .maxSendSge(settings.maxSge()).maxRecvSge(settings.maxSge())
        .ird(settings.ird()).ord(settings.ord()).build());
    MemoryRegion region = pd.allocate(settings.regionSize(),
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
    return new Endpoint(name, device, pd, cq, qp, region,
        Completions.of(cq, settings.timeout()));
  }

  /**
   * The end that connected (the MPA Initiator).
   *
   * @return the client end
   */
  public Endpoint client() {
    return client;
  }

  /**
   * The end that accepted (the MPA Responder).
   *
   * @return the server end
   */
  public Endpoint server() {
    return server;
  }

  /**
   * The proxy the connection runs through, with {@link RdmaTest#viaProxy()}.
   *
   * @return the proxy
   * @throws IllegalStateException if the pair was connected directly
   */
  public FaultProxy proxy() {
    if (proxy == null) {
      throw new IllegalStateException("this pair is connected directly; use @RdmaTest(viaProxy"
          + " = true) for a FaultProxy");
    }
    return proxy;
  }

  /**
   * What is wrong with the pair at the end of a test: work requests posted and not completed
   * (waiting up to the timeout for those still in flight), and completions nobody polled.
   *
   * @return the problems, empty if none
   */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    for (Endpoint e : new Endpoint[] {client, server}) {
      if (e == null) {
        continue;
      }
      QueuePair qp = e.qp();
      while ((qp.outstandingSends() != 0 || qp.outstandingReceives() != 0)
          && System.nanoTime() < deadline) {
        pause();
      }
      if (qp.outstandingSends() != 0 || qp.outstandingReceives() != 0) {
        problems.add(e.name() + ": " + qp.outstandingSends() + " send and "
            + qp.outstandingReceives() + " receive work request(s) posted and never completed");
      }
      List<WorkCompletion> left = e.completions().drain();
      if (!left.isEmpty()) {
        problems.add(e.name() + ": " + left.size() + " completion(s) nobody polled: " + left);
      }
    }
    return problems;
  }

  private static void pause() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Closes the proxy, then the client's device, then the server's. */
  @Override
  public void close() {
    RuntimeException first = null;
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("closing " + r + " failed", e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    resources.clear();
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return "RdmaPair{" + client + " <-> " + server + (proxy != null ? " via " + proxy : "") + '}';
  }
}
