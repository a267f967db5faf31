package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two devices over real TCP on 127.0.0.1: the connection manager (accept, reject, unreachable,
 * peer-to-peer), data moved by Write, Read and Send and checked octet by octet, a Send with no
 * receive posted (Terminate, error completions, flush), and disconnect.
 */
@Timeout(30)
class VerbsEndToEndTest {
  private static final long T = Peer.TIMEOUT_SECONDS;

  private Peer server;
  private Peer client;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();

  /** The transport both devices use; AUTO is epoll where available. */
  Transport transport() {
    return Transport.AUTO;
  }

  @BeforeEach
  void setUp() throws Exception {
    server = new Peer(transport());
    client = new Peer(transport());
    listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    client.close();
    server.close();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private ConnectRequest nextRequest() throws InterruptedException {
    ConnectRequest r = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(r, "no connect request within " + T + " s");
    return r;
  }

  /** A connected pair; the server's connection completes once the client has sent. */
  private final class Pair {
    QueuePair cqp;
    QueuePair sqp;
    RdmaConnection clientConnection;
    CompletableFuture<RdmaConnection> serverConnection;

    Pair(byte[] clientData, byte[] serverData, ConnectParams.Builder params) throws Exception {
      cqp = client.newQp();
      CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
          params.privateData(clientData).eventListener(client.events::add).build());
      ConnectRequest request = nextRequest();
      assertArrayEquals(clientData, request.privateData());
      sqp = server.newQp();
      serverConnection = request.accept(sqp, AcceptParams.builder().privateData(serverData)
          .eventListener(server.events::add).build());
      clientConnection = cf.get(T, TimeUnit.SECONDS);
    }
  }

  @Test
  void connectAndAcceptExchangePrivateDataBothWays() throws Exception {
    MemoryRegion srvRecv = server.region(64);
    MemoryRegion msg = client.region(64);
    Pair p = new Pair(ascii("from-client"), ascii("from-server"), ConnectParams.builder().ird(4).ord(2));
    assertArrayEquals(ascii("from-server"), p.clientConnection.peerPrivateData());
    assertEquals(QpState.RTS, p.cqp.state());
    ConnectionEvent established = client.nextEvent(ConnectionEventType.ESTABLISHED);
    assertArrayEquals(ascii("from-server"), established.privateData());
    assertTrue(p.clientConnection.isInitiator());
    assertTrue(p.clientConnection.ord() <= 2, "ORD is at most what was asked");

    // Client-server MPA: the server may send once the client's first message arrived.
    assertFalse(p.serverConnection.isDone());
    p.sqp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(srvRecv, 0, 64));
    p.cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(msg, 0, 8));
    RdmaConnection sc = p.serverConnection.get(T, TimeUnit.SECONDS);
    assertArrayEquals(ascii("from-client"), sc.peerPrivateData());
    assertEquals(4, sc.peerIrd());
    assertEquals(2, sc.peerOrd());
    assertFalse(sc.isInitiator());
    assertEquals(QpState.RTS, p.sqp.state());
    assertArrayEquals(ascii("from-client"),
        server.nextEvent(ConnectionEventType.ESTABLISHED).privateData());
    assertEquals(8, server.nextCompletion().byteLen());
    assertTrue(client.nextCompletion().isSuccess());
  }

  /**
   * AcceptParams.responderSendsFirst(true), the opt-in that departs from RFC 5044 §7.1.2 rule 4:
   * the server's queue pair is RTS right after the Reply and its Send reaches a client that has
   * sent nothing.
   */
  @Test
  void aResponderThatSendsFirstIsRtsBeforeTheInitiatorSpoke() throws Exception {
    assertEquals(null, AcceptParams.defaults().responderSendsFirst(), "default: the device's");
    QueuePair cqp = client.newQp();
    MemoryRegion cliRecv = client.region(64);
    cqp.postRecv(new RecvWorkRequest(1).wrId(5).addSge(cliRecv, 0, 64));
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress());
    QueuePair sqp = server.newQp();
    RdmaConnection sc = nextRequest().accept(sqp, AcceptParams.builder()
        .responderSendsFirst(true).build()).get(T, TimeUnit.SECONDS);
    assertEquals(QpState.RTS, sqp.state());
    assertFalse(sc.isInitiator());
    cf.get(T, TimeUnit.SECONDS);
    MemoryRegion msg = server.region(64);
    msg.buffer().setBytes(0, ascii("server first"));
    sqp.postSend(new SendWorkRequest(1).wrId(6).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(msg, 0, 12));
    assertTrue(server.nextCompletion().isSuccess());
    WorkCompletion got = client.nextCompletion();
    assertTrue(got.isSuccess(), got.toString());
    assertEquals(12, got.byteLen());
    byte[] octets = new byte[12];
    cliRecv.buffer().getBytes(0, octets);
    assertArrayEquals(ascii("server first"), octets);
  }

  @Test
  void aRejectionCarriesThePeersPrivateData() throws Exception {
    QueuePair qp = client.newQp();
    qp.postRecv(new RecvWorkRequest(1).wrId(77).addSge(client.region(16), 0, 16));
    CompletableFuture<RdmaConnection> cf = client.device.connect(qp, listener.localAddress(),
        ConnectParams.builder().privateData(ascii("let me in"))
            .eventListener(client.events::add).build());
    ConnectRequest request = nextRequest();
    assertArrayEquals(ascii("let me in"), request.privateData());
    request.reject(ascii("go away"));
    assertThrows(IllegalStateException.class, () -> request.reject(new byte[0]));
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> cf.get(T, TimeUnit.SECONDS));
    RdmaRejectedException rejected = assertInstanceOf(RdmaRejectedException.class, e.getCause());
    assertArrayEquals(ascii("go away"), rejected.privateData());
    assertEquals(ConnectionEventType.REJECTED, rejected.type());
    assertTrue(rejected.peerIrd() >= 0, "an enhanced Reply states IRD/ORD");
    ConnectionEvent event = client.nextEvent(ConnectionEventType.REJECTED);
    assertArrayEquals(ascii("go away"), event.privateData());
    assertEquals(QpState.ERROR, qp.state());
    WorkCompletion flushed = client.nextCompletion();
    assertEquals(77, flushed.wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
  }

  @Test
  void nobodyListeningIsUnreachable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    QueuePair qp = client.newQp();
    CompletableFuture<RdmaConnection> cf = client.device.connect(qp,
        new InetSocketAddress("127.0.0.1", port),
        ConnectParams.builder().eventListener(client.events::add).build());
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> cf.get(T, TimeUnit.SECONDS));
    assertInstanceOf(RdmaUnreachableException.class, e.getCause());
    client.nextEvent(ConnectionEventType.UNREACHABLE);
    assertEquals(QpState.ERROR, qp.state());
  }

  @Test
  void aPeerThatNeverRepliesIsATimeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      QueuePair qp = client.newQp();
      CompletableFuture<RdmaConnection> cf = client.device.connect(qp,
          new InetSocketAddress("127.0.0.1", silent.getLocalPort()),
          ConnectParams.builder().replyTimeout(java.time.Duration.ofMillis(200))
              .eventListener(client.events::add).build());
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> cf.get(T, TimeUnit.SECONDS));
      assertInstanceOf(RdmaTimeoutException.class, e.getCause());
      client.nextEvent(ConnectionEventType.TIMEOUT);
      assertEquals(QpState.ERROR, qp.state());
    }
  }

  @Test
  void aMalformedReplyIsAConnectError() throws Exception {
    try (ServerSocket bogus = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Thread peer = new Thread(() -> {
        try (java.net.Socket s = bogus.accept()) {
          s.getInputStream().read(new byte[64]);
          s.getOutputStream().write(new byte[20]); // no MPA key: not a Reply
          s.getOutputStream().flush();
          s.getInputStream().read(); // until the initiator closes
        } catch (java.io.IOException ignored) {
          // the initiator closed first
        }
      }, "bogus-responder");
      peer.start();
      QueuePair qp = client.newQp();
      CompletableFuture<RdmaConnection> cf = client.device.connect(qp,
          new InetSocketAddress("127.0.0.1", bogus.getLocalPort()),
          ConnectParams.builder().eventListener(client.events::add).build());
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> cf.get(T, TimeUnit.SECONDS));
      RdmaConnectException failure = assertInstanceOf(RdmaConnectException.class, e.getCause());
      assertEquals(ConnectionEventType.CONNECT_ERROR, failure.type());
      client.nextEvent(ConnectionEventType.CONNECT_ERROR);
      peer.join(T * 1000);
    }
  }

  @Test
  void aQueuePairServesOneConnectionOnly() throws Exception {
    Pair p = new Pair(new byte[0], new byte[0], ConnectParams.builder());
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> client.device.connect(p.cqp, listener.localAddress()));
    assertTrue(e.getMessage().contains("RTS"), e.getMessage());
  }

  @Test
  void writeReadAndSendMoveTheRightOctets() throws Exception {
    MemoryRegion target = server.region(8192); // Write target and Read source
    MemoryRegion srvRecv = server.region(256);
    MemoryRegion srvSend = server.region(256);
    MemoryRegion src = client.region(4096);
    MemoryRegion sink = client.region(4096);
    MemoryRegion cliRecv = client.region(256);
    MemoryRegion cliSend = client.region(256);
    for (int i = 0; i < 4096; i++) {
      src.buffer().setByte(i, i * 7 + 1);
      target.buffer().setByte(4096 + i, i * 13 + 5); // what the client will read
    }

    QueuePair cqp = client.newQp();
    cqp.postRecv(new RecvWorkRequest(2).wrId(900).addSge(cliRecv, 0, 100).addSge(cliRecv, 128, 128));
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress());
    ConnectRequest request = nextRequest();
    QueuePair sqp = server.newQp();
    for (int i = 0; i < 3; i++) {
      sqp.postRecv(new RecvWorkRequest(1).wrId(100 + i).addSge(srvRecv, 64L * i, 64));
    }
    // The server hands its buffer's coordinates over in the accept private data.
    CompletableFuture<RdmaConnection> sf = request.accept(sqp,
        AcceptParams.builder().privateData(target.remote().toBytes()).build());
    RdmaConnection connection = cf.get(T, TimeUnit.SECONDS);
    RemoteBuffer remote = RemoteBuffer.fromBytes(connection.peerPrivateData(), 0);
    assertEquals(target.remote(), remote);

    // Write 4096 octets, then a Send: its delivery means the Write was placed (RFC 5040 §5.5).
    cqp.postSend(new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address())
        .addSge(src, 0, 1000).addSge(src, 1000, 3096));
    cliSend.buffer().setBytes(0, ascii("written"));
    cqp.postSend(new SendWorkRequest(2).wrId(2).opcode(WorkRequestOpcode.SEND_WITH_SOLICITED)
        .flags(SendFlags.SIGNALED).addSge(cliSend, 0, 7));
    // Read 4096 octets from the second half of the server's buffer.
    cqp.postSend(new SendWorkRequest(2).wrId(3).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address() + 4096)
        .addSge(sink, 0, 4096));
    List<WorkCompletion> done = client.nextCompletions(3);
    assertEquals(List.of(1L, 2L, 3L), done.stream().map(WorkCompletion::wrId).toList());
    assertTrue(done.stream().allMatch(WorkCompletion::isSuccess), done.toString());
    assertEquals(WcOpcode.RDMA_READ, done.get(2).opcode());
    assertEquals(4096, done.get(2).byteLen());
    for (int i = 0; i < 4096; i++) {
      assertEquals((byte) (i * 13 + 5), sink.buffer().getByte(i), "read octet " + i);
    }

    sf.get(T, TimeUnit.SECONDS);
    WorkCompletion recv = server.nextCompletion();
    assertEquals(100, recv.wrId());
    assertEquals(WcOpcode.RECV, recv.opcode());
    assertEquals(7, recv.byteLen());
    assertTrue(recv.solicited());
    byte[] got = new byte[7];
    srvRecv.buffer().getBytes(0, got);
    assertArrayEquals(ascii("written"), got);
    for (int i = 0; i < 4096; i++) {
      assertEquals((byte) (i * 7 + 1), target.buffer().getByte(i), "written octet " + i);
    }

    // And the other way: a 150-octet Send scattered over the client's two SGEs (100 + 50).
    for (int i = 0; i < 150; i++) {
      srvSend.buffer().setByte(i, 200 - i);
    }
    sqp.postSend(new SendWorkRequest(1).wrId(5).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(srvSend, 0, 150));
    assertEquals(5, server.nextCompletion().wrId());
    WorkCompletion back = client.nextCompletion();
    assertEquals(900, back.wrId());
    assertEquals(150, back.byteLen());
    for (int i = 0; i < 100; i++) {
      assertEquals((byte) (200 - i), cliRecv.buffer().getByte(i));
    }
    for (int i = 100; i < 150; i++) {
      assertEquals((byte) (200 - i), cliRecv.buffer().getByte(128 + i - 100));
    }
  }

  @Test
  void aSendWithNoReceivePostedTerminatesAndFlushesEverything() throws Exception {
    MemoryRegion remoteSrc = server.region(64);
    MemoryRegion local = client.region(256);
    QueuePair cqp = client.newQp();
    cqp.postRecv(new RecvWorkRequest(1).wrId(50).addSge(local, 128, 64));
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().eventListener(client.events::add).build());
    QueuePair sqp = server.newQp(); // posts no receive
    CompletableFuture<RdmaConnection> sf = nextRequest().accept(sqp,
        AcceptParams.builder().eventListener(server.events::add).build());
    cf.get(T, TimeUnit.SECONDS);
    client.nextEvent(ConnectionEventType.ESTABLISHED);

    cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(local, 0, 16));
    // Issued behind the Send, so still outstanding when the server's Terminate arrives.
    cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(remoteSrc.stag(), remoteSrc.address())
        .addSge(local, 64, 32));

    WorkCompletion send = client.nextCompletion();
    assertEquals(1, send.wrId());
    assertTrue(send.isSuccess(), "a Send completes once TCP took it: " + send);
    WorkCompletion read = client.nextCompletion();
    assertEquals(2, read.wrId());
    assertEquals(WcStatus.REM_INV_REQ_ERR, read.status(), read.toString());
    // DDP Untagged Buffer Error / Invalid MSN - no buffer available: 1/2/0x02.
    assertEquals(0x01_02_02, read.vendorError());
    WorkCompletion recv = client.nextCompletion();
    assertEquals(50, recv.wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, recv.status());

    TerminateInfo received = client.nextEvent(ConnectionEventType.ERROR).terminate();
    assertNotNull(received);
    assertTrue(received.receivedFromPeer());
    assertEquals(1, received.layer());
    assertEquals(2, received.errorType());
    assertEquals(2, received.errorCode());
    client.nextEvent(ConnectionEventType.DISCONNECTED);
    assertEquals(QpState.ERROR, cqp.state());

    sf.get(T, TimeUnit.SECONDS);
    server.nextEvent(ConnectionEventType.ESTABLISHED);
    TerminateInfo sent = server.nextEvent(ConnectionEventType.ERROR).terminate();
    assertFalse(sent.receivedFromPeer());
    assertEquals(0x01_02_02, sent.vendorError());
    server.nextEvent(ConnectionEventType.DISCONNECTED);

    // Later work requests are flushed too.
    cqp.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.SEND)
        .addSge(local, 0, 4));
    WorkCompletion later = client.nextCompletion();
    assertEquals(3, later.wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, later.status());
    client.assertNoCompletion();
  }

  @Test
  void disconnectIsReportedOnBothSidesAndFlushes() throws Exception {
    MemoryRegion cbuf = client.region(256);
    MemoryRegion sbuf = server.region(256);
    Pair p = new Pair(new byte[0], new byte[0], ConnectParams.builder());
    client.nextEvent(ConnectionEventType.ESTABLISHED);
    p.sqp.postRecv(new RecvWorkRequest(1).wrId(10).addSge(sbuf, 0, 64));
    p.sqp.postRecv(new RecvWorkRequest(1).wrId(11).addSge(sbuf, 64, 64));
    p.cqp.postRecv(new RecvWorkRequest(1).wrId(20).addSge(cbuf, 0, 64));
    p.cqp.postSend(new SendWorkRequest(1).wrId(21).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(cbuf, 128, 8));
    assertEquals(21, client.nextCompletion().wrId());
    assertEquals(10, server.nextCompletion().wrId());
    p.serverConnection.get(T, TimeUnit.SECONDS);
    server.nextEvent(ConnectionEventType.ESTABLISHED);

    p.clientConnection.disconnect().get(T, TimeUnit.SECONDS);
    WorkCompletion c = client.nextCompletion();
    assertEquals(20, c.wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, c.status());
    client.nextEvent(ConnectionEventType.DISCONNECTED);
    assertEquals(QpState.ERROR, p.cqp.state());

    WorkCompletion s = server.nextCompletion();
    assertEquals(11, s.wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, s.status());
    server.nextEvent(ConnectionEventType.DISCONNECTED);
    assertTrue(server.events.isEmpty(), "a graceful disconnect is no error: " + server.events);
    assertEquals(QpState.ERROR, p.sqp.state());
    assertFalse(p.serverConnection.get().isOpen());
  }

  @Test
  void aResetIsALostConnection() throws Exception {
    MemoryRegion cbuf = client.region(64);
    MemoryRegion sbuf = server.region(64);
    Pair p = new Pair(new byte[0], new byte[0], ConnectParams.builder());
    client.nextEvent(ConnectionEventType.ESTABLISHED);
    p.sqp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(sbuf, 0, 64));
    p.cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
        .addSge(cbuf, 0, 4));
    assertEquals(1, server.nextCompletion().wrId());
    p.cqp.postRecv(new RecvWorkRequest(1).wrId(3).addSge(cbuf, 0, 64));
    RdmaConnection sc = p.serverConnection.get(T, TimeUnit.SECONDS);
    // SO_LINGER 0: the close sends a RST instead of a FIN.
    sc.channel().config().setOption(ChannelOption.SO_LINGER, 0);
    sc.channel().close().await(T, TimeUnit.SECONDS);

    WorkCompletion flushed = client.nextCompletion();
    assertEquals(3, flushed.wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
    ConnectionEvent lost = client.nextEvent(ConnectionEventType.ERROR);
    assertTrue(lost.reason().contains("lost"), lost.reason());
    client.nextEvent(ConnectionEventType.DISCONNECTED);
  }

  @Test
  void peerToPeerModeLetsTheResponderSendFirst() throws Exception {
    MemoryRegion cbuf = client.region(64);
    MemoryRegion sbuf = server.region(64);
    QueuePair cqp = client.newQp();
    cqp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(cbuf, 0, 64));
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().peerToPeer(true).build());
    ConnectRequest request = nextRequest();
    assertTrue(request.peerToPeer());
    QueuePair sqp = server.newQp();
    RdmaConnection sc = request.accept(sqp).get(T, TimeUnit.SECONDS);
    assertNotNull(sc.mpaInfo().rtr(), "an RTR was exchanged");
    cf.get(T, TimeUnit.SECONDS);
    sbuf.buffer().setBytes(0, ascii("first"));
    sqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(sbuf, 0, 5));
    assertTrue(server.nextCompletion().isSuccess());
    WorkCompletion recv = client.nextCompletion();
    assertEquals(5, recv.byteLen());
    byte[] got = new byte[5];
    cbuf.buffer().getBytes(0, got);
    assertArrayEquals(ascii("first"), got);
  }

  @Test
  void closingTheDeviceFlushesAndClosesEverything() throws Exception {
    MemoryRegion cbuf = client.region(64);
    Pair p = new Pair(new byte[0], new byte[0], ConnectParams.builder());
    p.cqp.postRecv(new RecvWorkRequest(1).wrId(8).addSge(cbuf, 0, 64));
    client.close();
    assertEquals(QpState.CLOSED, p.cqp.state());
    assertTrue(cbuf.isClosed());
    assertTrue(p.clientConnection.closeFuture().isDone());
    assertThrows(IllegalStateException.class, client.device::allocateProtectionDomain);
  }
}
