package io.iwarp4j.it.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.tools.perf.TlsMaterial;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.ListenParams;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.MpaSettings;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnectException;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TlsCounters;
import io.iwarp4j.verbs.TlsSettings;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TLS 1.3 under MPA between two devices on 127.0.0.1 (ListenParams.tls, ConnectParams.tls), with
 * certificates generated for the run by the JDK's keytool: a mutually authenticated Write, Read
 * and Send carry their data; a client without TLS, a client whose certificate the listener does
 * not trust, and a TLS client of a listener without TLS all fail within the MPA startup timeout
 * with a message naming TLS, and the TLS listener counts what it refused.
 */
@Timeout(120)
class TlsIT {
  private static final long T = 20;
  /** The MPA request and reply timeouts of both devices: every failure comes well before. */
  private static final Duration MPA_TIMEOUT = Duration.ofSeconds(4);

  private static TlsMaterial serverKeys;
  private static TlsMaterial clientKeys;
  private static TlsMaterial strangerKeys;

  private RdmaDevice server;
  private RdmaDevice client;

  @BeforeAll
  static void generateCertificates() throws Exception {
    serverKeys = TlsMaterial.generate("iwarp4j-server");
    clientKeys = TlsMaterial.generate("iwarp4j-client");
    strangerKeys = TlsMaterial.generate("iwarp4j-stranger");
  }

  @BeforeEach
  void open() {
    DeviceConfig config = DeviceConfig.builder().eventLoopThreads(1)
        .mpaSettings(MpaSettings.builder().requestTimeout(MPA_TIMEOUT).replyTimeout(MPA_TIMEOUT)
            .build())
        .build();
    server = RdmaDevice.open(config);
    client = RdmaDevice.open(config);
  }

  @AfterEach
  void close() {
    client.close();
    server.close();
  }

  private static TlsSettings mutualServer() throws Exception {
    return serverKeys.settingsTrusting(clientKeys).requireClientAuth(true).build();
  }

  @Test
  void mutuallyAuthenticatedWriteReadAndSendCarryTheirData() throws Exception {
    ProtectionDomain spd = server.allocateProtectionDomain();
    CompletionQueue scq = server.createCompletionQueue(16);
    QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
    MemoryRegion exposed = spd.allocate(1 << 20,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
    MemoryRegion inbox = spd.allocate(4096, AccessFlags.LOCAL_WRITE);
    sqp.postRecv(new RecvWorkRequest(1).wrId(7).addSge(inbox, 0, 4096));
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
        request -> request.accept(sqp,
            AcceptParams.builder().privateData(exposed.remote().toBytes()).build()),
        ListenParams.builder().tls(mutualServer()).build());

    ProtectionDomain cpd = client.allocateProtectionDomain();
    CompletionQueue ccq = client.createCompletionQueue(16);
    QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
    MemoryRegion local = cpd.allocate(1 << 20, AccessFlags.LOCAL_WRITE);
    TlsSettings clientTls = clientKeys.settingsTrusting(serverKeys).build();
    RdmaConnection connection = client.connect(cqp, listener.localAddress(),
        ConnectParams.builder().tls(clientTls).build()).get(T, TimeUnit.SECONDS);
    RemoteBuffer remote = RemoteBuffer.fromBytes(connection.peerPrivateData(), 0);

    // A Write of 256 KiB (several TLS records), then a Read of it back elsewhere.
    int n = 256 * 1024;
    byte[] data = new byte[n];
    ThreadLocalRandom.current().nextBytes(data);
    local.buffer().setBytes(0, data);
    cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address()).addSge(local, 0, n));
    assertCompletion(ccq, 1);
    cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address())
        .addSge(local, n, n));
    assertCompletion(ccq, 2);
    byte[] written = new byte[n];
    exposed.buffer().getBytes(0, written);
    assertArrayEquals(data, written, "the server's memory after the Write");
    byte[] read = new byte[n];
    local.buffer().getBytes(n, read);
    assertArrayEquals(data, read, "the Read back");

    // A Send into the server's posted receive.
    byte[] message = "hello over TLS 1.3".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    local.buffer().setBytes(2 * n, message);
    cqp.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(local, 2 * n, message.length));
    assertCompletion(ccq, 3);
    WorkCompletion received = assertCompletion(scq, 7);
    assertEquals(message.length, received.byteLen());
    byte[] got = new byte[message.length];
    inbox.buffer().getBytes(0, got);
    assertArrayEquals(message, got, "the Send's payload");
    assertEquals(new TlsCounters(0, 0), server.tlsCounters());
  }

  @Test
  void serverAuthenticationOnlyServesAClientWithoutACertificate() throws Exception {
    ProtectionDomain spd = server.allocateProtectionDomain();
    CompletionQueue scq = server.createCompletionQueue(16);
    QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
    MemoryRegion inbox = spd.allocate(4096, AccessFlags.LOCAL_WRITE);
    sqp.postRecv(new RecvWorkRequest(1).wrId(9).addSge(inbox, 0, 4096));
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
        request -> request.accept(sqp),
        ListenParams.builder().tls(serverKeys.settingsTrusting().build()).build());
    QueuePair cqp = qp(client);
    MemoryRegion local = cqp.pd().allocate(4096, AccessFlags.LOCAL_WRITE);
    TlsSettings anonymous = TlsSettings.builder(null, null, TlsMaterial.trustStore(serverKeys))
        .build();
    client.connect(cqp, listener.localAddress(), ConnectParams.builder().tls(anonymous).build())
        .get(T, TimeUnit.SECONDS);
    local.buffer().setBytes(0, new byte[] {1, 2, 3, 4});
    cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(local, 0, 4));
    assertEquals(4, assertCompletion(scq, 9).byteLen());
    assertEquals(0x01020304, inbox.buffer().getInt(0));
  }

  @Test
  void aClientWithoutTlsIsRefusedWithinTheTimeoutAndTheMessageNamesTls() throws Exception {
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add,
        ListenParams.builder().tls(mutualServer()).build());
    QueuePair cqp = qp(client);
    long start = System.nanoTime();
    RdmaConnectException e = connectFails(client.connect(cqp, listener.localAddress()));
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf("TlsIT: plain client refused by a TLS listener in %d ms: %s%n", tookMillis,
        e.getMessage());
    assertTrue(tookMillis < MPA_TIMEOUT.toMillis(), "took " + tookMillis + " ms");
    assertTrue(e.getMessage().contains("TLS"), e.getMessage());
    assertTrue(e.getMessage().contains("expects TLS"), e.getMessage());
    assertEquals(QpState.ERROR, cqp.state());
    assertNull(requests.poll(), "the listener's application saw a request");
    awaitCounters(() -> server.tlsCounters(), new TlsCounters(1, 0));
  }

  @Test
  void aClientWithAnUntrustedCertificateIsRefused() throws Exception {
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add,
        ListenParams.builder().tls(mutualServer()).build());
    QueuePair cqp = qp(client);
    // It trusts the server, but the server does not trust it.
    TlsSettings stranger = strangerKeys.settingsTrusting(serverKeys).build();
    long start = System.nanoTime();
    RdmaConnectException e = connectFails(client.connect(cqp, listener.localAddress(),
        ConnectParams.builder().tls(stranger).build()));
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf("TlsIT: untrusted client refused in %d ms: %s%n", tookMillis,
        e.getMessage());
    assertTrue(tookMillis < MPA_TIMEOUT.toMillis(), "took " + tookMillis + " ms");
    assertTrue(e.getMessage().startsWith("TLS"), e.getMessage());
    assertNull(requests.poll(), "the listener's application saw a request");
    awaitCounters(() -> server.tlsCounters(), new TlsCounters(0, 1));
  }

  @Test
  void aClientThatDoesNotTrustTheServerRefusesIt() throws Exception {
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
        request -> fail("no request expected"),
        ListenParams.builder().tls(mutualServer()).build());
    QueuePair cqp = qp(client);
    TlsSettings trustsOnlyStranger = clientKeys.settingsTrusting(strangerKeys).build();
    RdmaConnectException e = connectFails(client.connect(cqp, listener.localAddress(),
        ConnectParams.builder().tls(trustsOnlyStranger).build()));
    assertTrue(e.getMessage().startsWith("TLS handshake"), e.getMessage());
  }

  /**
   * A trusted server certificate that does not name the address connected to is refused unless
   * the client turns the host name check off.
   */
  @Test
  void aServerCertificateForAnotherNameIsRefusedUnlessTheCheckIsOff() throws Exception {
    TlsMaterial elsewhere = TlsMaterial.generate("iwarp4j-elsewhere", "dns:elsewhere.invalid");
    ProtectionDomain spd = server.allocateProtectionDomain();
    CompletionQueue scq = server.createCompletionQueue(16);
    QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
        request -> request.accept(sqp),
        ListenParams.builder().tls(elsewhere.settingsTrusting().build()).build());
    RdmaConnectException e = connectFails(client.connect(qp(client), listener.localAddress(),
        ConnectParams.builder().tls(clientKeys.settingsTrusting(elsewhere).build()).build()));
    assertTrue(e.getMessage().startsWith("TLS handshake"), e.getMessage());
    assertTrue(e.getMessage().contains("127.0.0.1"), e.getMessage());
    client.connect(qp(client), listener.localAddress(), ConnectParams.builder()
        .tls(clientKeys.settingsTrusting(elsewhere).verifyHostname(false).build()).build())
        .get(T, TimeUnit.SECONDS);
  }

  @Test
  void aTlsClientOfAListenerWithoutTlsFailsNamingTls() throws Exception {
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    QueuePair cqp = qp(client);
    TlsSettings clientTls = clientKeys.settingsTrusting(serverKeys).build();
    long start = System.nanoTime();
    RdmaConnectException e = connectFails(client.connect(cqp, listener.localAddress(),
        ConnectParams.builder().tls(clientTls).build()));
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf("TlsIT: TLS client of a plain listener failed in %d ms: %s%n", tookMillis,
        e.getMessage());
    assertTrue(tookMillis < MPA_TIMEOUT.toMillis(), "took " + tookMillis + " ms");
    assertTrue(e.getMessage().startsWith("TLS handshake"), e.getMessage());
    assertTrue(e.getMessage().contains("listener without TLS"), e.getMessage());
    assertNull(requests.poll(), "the plain listener's application saw a request");
  }

  private static QueuePair qp(RdmaDevice d) {
    CompletionQueue cq = d.createCompletionQueue(8);
    return d.createQueuePair(d.allocateProtectionDomain(), QueuePairConfig.builder(cq, cq).build());
  }

  private static RdmaConnectException connectFails(CompletableFuture<RdmaConnection> f)
      throws Exception {
    try {
      f.get(T, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return assertInstanceOf(RdmaConnectException.class, e.getCause());
    }
    throw new AssertionError("the connect succeeded");
  }

  private static WorkCompletion assertCompletion(CompletionQueue cq, long wrId)
      throws InterruptedException {
    WorkCompletion[] wc = {new WorkCompletion()};
    assertEquals(1, cq.await(wc, T, TimeUnit.SECONDS), "no completion for " + wrId);
    assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
    assertEquals(wrId, wc[0].wrId(), wc[0].toString());
    return wc[0];
  }

  private static void assertArrayEquals(byte[] expected, byte[] actual, String what) {
    org.junit.jupiter.api.Assertions.assertArrayEquals(expected, actual, what);
  }

  private static void awaitCounters(Supplier<TlsCounters> counters, TlsCounters expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    while (!counters.get().equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(expected, counters.get());
  }
}
