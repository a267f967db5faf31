package io.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RdmaRejectedException;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every scripted peer action against a real device as the code under test: the MPA startup
 * both ways (accept and reject with private data), well-formed FPDUs, each hostile FPDU and the
 * exact Terminate the device answers with, FIN, RST, a stall in the middle of an FPDU, a
 * Terminate of the peer's choosing, CRC off.
 */
@RdmaTest
class ScriptedPeerTest {
  private static final long T = 5;
  private static final int RECV_LEN = 64;
  private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);

  private RdmaDevice device;
  private ProtectionDomain pd;
  private CompletionQueue cq;
  private Completions completions;
  private MemoryRegion region;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();

  @BeforeEach
  void setUp() throws Exception {
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(64);
    completions = Completions.of(cq, Duration.ofSeconds(T));
    region = pd.allocate(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
        | AccessFlags.REMOTE_READ);
    listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  private QueuePair newQp() {
    return device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).maxSendWr(4)
        .maxRecvWr(4).build());
  }

  /**
   * The peer connects; the device accepts with {@code receives} receives posted; the peer sends
   * a valid zero-length Write so that the device may send FPDUs (RFC 5044 §7.1.2).
   */
  private ScriptedPeer established(int receives) throws Exception {
    ScriptedPeer peer = ScriptedPeer.connect(listener.localAddress());
    peer.sendRequest("from the peer".getBytes(StandardCharsets.US_ASCII));
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    assertArrayEquals("from the peer".getBytes(StandardCharsets.US_ASCII), request.privateData());
    QueuePair qp = newQp();
    for (int i = 0; i < receives; i++) {
      qp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(region, RECV_LEN * i, RECV_LEN));
    }
    CompletableFuture<RdmaConnection> accepted = request.accept(qp, AcceptParams.builder()
        .privateData(new byte[] {7}).eventListener(events::add).build());
    MpaStartup reply = peer.readReply();
    assertFalse(reply.rejected());
    assertTrue(reply.crc());
    assertArrayEquals(new byte[] {7}, reply.privateData());
    peer.sendWrite(region.stag(), region.address(), new byte[0]);
    accepted.get(T, TimeUnit.SECONDS);
    return peer;
  }

  /** Each of the {@code n} receives completes, flushed; then DISCONNECTED. */
  private void assertFlushedAndDisconnected(int n) throws InterruptedException {
    for (int i = 0; i < n; i++) {
      completions.next().isFlushed().hasOpcode(WcOpcode.RECV);
    }
    completions.assertNone();
    nextEvent(ConnectionEventType.DISCONNECTED);
  }

  private ConnectionEvent nextEvent(ConnectionEventType type) throws InterruptedException {
    while (true) {
      ConnectionEvent e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "no " + type + " event");
      if (e.type() == type) {
        return e;
      }
    }
  }

  @Test
  void aWellFormedSendIsReceived() throws Exception {
    try (ScriptedPeer peer = established(1)) {
      peer.sendSend(HELLO);
      completions.next().isSuccess().hasWrId(0).hasOpcode(WcOpcode.RECV)
          .hasByteLength(HELLO.length);
      byte[] got = new byte[HELLO.length];
      region.buffer().getBytes(0, got);
      assertArrayEquals(HELLO, got);
      peer.expectSilence(Duration.ofMillis(50));
    }
    nextEvent(ConnectionEventType.DISCONNECTED);
  }

  @Test
  void aBadCrcIsAnsweredWithAnLlpTerminateAndAClose() throws Exception {
    try (ScriptedPeer peer = established(2)) {
      peer.sendSend(HELLO);
      completions.next().isSuccess().hasWrId(0);
      peer.sendBadCrc(Ulpdus.send(2, HELLO));
      Terminate t = peer.readTerminate();
      assertEquals(new Terminate(Terminate.LAYER_LLP, 0, 0x02, 1, false, false, ""), t);
      peer.expectClosed();
    }
    assertFlushedAndDisconnected(1);
  }

  @Test
  void aWrongMsnIsAnsweredWithADdpTerminate() throws Exception {
    try (ScriptedPeer peer = established(2)) {
      peer.sendUlpdu(Ulpdus.send(7, HELLO));
      Terminate t = peer.readTerminate();
      assertTrue(t.is(Terminate.LAYER_DDP, 2, 0x03), t.toString());
      assertTrue(t.ddpHeaderIncluded());
      peer.expectClosed();
    }
    assertFlushedAndDisconnected(2);
  }

  @Test
  void aWriteToAnUnknownStagIsAnsweredWithInvalidStag() throws Exception {
    try (ScriptedPeer peer = established(1)) {
      peer.sendWrite(region.stag() ^ 0x5A5A_0000, 0, HELLO)
          .expectTerminate(Terminate.LAYER_DDP, 1, 0x00)
          .expectClosed();
    }
    assertFlushedAndDisconnected(1);
  }

  @Test
  void aWriteOutOfBoundsIsAnsweredWithBaseOrBounds() throws Exception {
    try (ScriptedPeer peer = established(1)) {
      peer.sendWrite(region.stag(), region.address() + 4096 - 2, HELLO)
          .expectTerminate(Terminate.LAYER_DDP, 1, 0x01)
          .expectClosed();
    }
    assertFlushedAndDisconnected(1);
  }

  @Test
  void aReadRequestIsAnsweredWithAReadResponse() throws Exception {
    region.buffer().setBytes(100, HELLO);
    try (ScriptedPeer peer = established(0)) {
      peer.sendReadRequest(0x77, 0x1000, HELLO.length, region.stag(), region.address() + 100);
      byte[] response = peer.readUlpdu();
      byte[] expected = Ulpdus.readResponse(0x77, 0x1000, HELLO);
      assertArrayEquals(expected, response, "a byte-exact RDMA Read Response");
    }
    nextEvent(ConnectionEventType.DISCONNECTED);
  }

  @Test
  void aTerminateFromThePeerIsReportedAndTheDeviceCloses() throws Exception {
    try (ScriptedPeer peer = established(1)) {
      peer.sendTerminate(Terminate.LAYER_RDMAP, 2, 0x06);
      ConnectionEvent error = nextEvent(ConnectionEventType.ERROR);
      assertEquals(new TerminateInfo(0, 2, 0x06, true), error.terminate());
      peer.expectClosed();
    }
    assertFlushedAndDisconnected(1);
  }

  @Test
  void aPrematureFinClosesTheConnection() throws Exception {
    try (ScriptedPeer peer = established(2)) {
      peer.fin().expectClosed();
    }
    assertFlushedAndDisconnected(2);
  }

  @Test
  void aFinIsAnsweredWithAFinAtAnFpduBoundary() throws Exception {
    try (ScriptedPeer peer = established(1)) {
      peer.fin();
      assertNull(peer.readUlpduUnlessClosed());
    }
    assertFlushedAndDisconnected(1);
  }

  @Test
  void readUlpduUnlessClosedReturnsAnFpduThatCameFirst() throws Exception {
    region.buffer().setBytes(0, HELLO);
    try (ScriptedPeer peer = established(0)) {
      peer.sendReadRequest(0x77, 0, HELLO.length, region.stag(), region.address());
      assertArrayEquals(Ulpdus.readResponse(0x77, 0, HELLO), peer.readUlpduUnlessClosed());
      AssertionError quiet = assertThrows(AssertionError.class,
          () -> peer.timeout(Duration.ofMillis(30)).readUlpduUnlessClosed());
      assertTrue(quiet.getMessage().contains("expected an FPDU or a close"), quiet.getMessage());
    }
    nextEvent(ConnectionEventType.DISCONNECTED);
  }

  @Test
  void aResetClosesTheConnection() throws Exception {
    try (ScriptedPeer peer = established(2)) {
      peer.reset();
    }
    assertFlushedAndDisconnected(2);
  }

  @Test
  void aStallInTheMiddleOfAnFpduHoldsTheReceiveUntilTheRestArrives() throws Exception {
    try (ScriptedPeer peer = established(1)) {
      peer.sendPartialFpdu(Ulpdus.send(1, HELLO), 9);
      completions.assertNoneWithin(Duration.ofMillis(100));
      peer.expectSilence(Duration.ofMillis(20));
      peer.sendRestOfFpdu();
      completions.next().isSuccess().hasByteLength(HELLO.length);
      assertThrows(IllegalStateException.class, peer::sendRestOfFpdu);
      assertThrows(IllegalArgumentException.class,
          () -> peer.sendPartialFpdu(Ulpdus.send(2, HELLO), 1000));
    }
    nextEvent(ConnectionEventType.DISCONNECTED);
  }

  @Test
  void theDeviceRejectingIsSeenWithItsPrivateData() throws Exception {
    try (ScriptedPeer peer = ScriptedPeer.connect(listener.localAddress())) {
      peer.sendRequest(new byte[0]);
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request);
      request.reject("busy".getBytes(StandardCharsets.US_ASCII));
      MpaStartup reply = peer.readReply();
      assertTrue(reply.isReply());
      assertTrue(reply.rejected());
      assertArrayEquals("busy".getBytes(StandardCharsets.US_ASCII), reply.privateData());
      peer.expectClosed();
    }
  }

  @Test
  void asResponderThePeerAcceptsWithPrivateDataAndReadsTheDevicesSend() throws Exception {
    try (ScriptedPeer peer = ScriptedPeer.listen()) {
      QueuePair qp = newQp();
      CompletableFuture<RdmaConnection> connecting = device.connect(qp, peer.address(),
          ConnectParams.builder().privateData(HELLO).ird(2).ord(3).build());
      MpaStartup request = peer.awaitConnection().readRequest();
      assertFalse(request.isReply());
      assertEquals(2, request.revision());
      assertEquals(2, request.ird());
      assertEquals(3, request.ord());
      assertArrayEquals(HELLO, request.privateData());
      // The Reply's depths must suit the Initiator's (RFC 6581 §7.1): IRD >= 3, ORD <= 2.
      peer.readDepths(3, 2).accept("welcome".getBytes(StandardCharsets.US_ASCII));
      RdmaConnection c = connecting.get(T, TimeUnit.SECONDS);
      assertArrayEquals("welcome".getBytes(StandardCharsets.US_ASCII), c.peerPrivateData());
      region.buffer().setBytes(0, HELLO);
      qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(region, 0, HELLO.length));
      assertArrayEquals(Ulpdus.send(1, HELLO), peer.readUlpdu(), "a byte-exact Send");
      completions.next().isSuccess().hasWrId(1);
    }
  }

  @Test
  void asResponderThePeerRejectsWithPrivateData() throws Exception {
    try (ScriptedPeer peer = ScriptedPeer.listen()) {
      CompletableFuture<RdmaConnection> connecting = device.connect(newQp(), peer.address());
      peer.awaitConnection().readRequest();
      peer.reject("go away".getBytes(StandardCharsets.US_ASCII));
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> connecting.get(T, TimeUnit.SECONDS));
      RdmaRejectedException rejected = assertInstanceOf(RdmaRejectedException.class,
          e.getCause());
      assertArrayEquals("go away".getBytes(StandardCharsets.US_ASCII), rejected.privateData());
    }
  }

  @Test
  @RdmaTest(crc = false)
  void withoutCrcTheCrcFieldIsZeroAndASendStillArrives() throws Exception {
    try (ScriptedPeer peer = ScriptedPeer.connect(listener.localAddress()).crc(false)) {
      peer.sendRequest(new byte[0]);
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request);
      QueuePair qp = newQp();
      qp.postRecv(new RecvWorkRequest(1).wrId(5).addSge(region, 0, RECV_LEN));
      request.accept(qp);
      assertFalse(peer.readReply().crc());
      peer.sendSend(HELLO);
      completions.next().isSuccess().hasWrId(5).hasByteLength(HELLO.length);
    }
  }

  @Test
  void stepsThatDoNotHappenFailInsteadOfHanging() throws Exception {
    try (ScriptedPeer peer = ScriptedPeer.listen().timeout(Duration.ofMillis(50))) {
      AssertionError e = assertThrows(AssertionError.class, peer::awaitConnection);
      assertTrue(e.getMessage().contains("nothing connected"), e.getMessage());
    }
    try (ScriptedPeer peer = ScriptedPeer.connect(listener.localAddress())
        .timeout(Duration.ofMillis(50))) {
      AssertionError e = assertThrows(AssertionError.class, peer::readReply);
      assertTrue(e.getMessage().contains("nothing (expected MPA REPLY) within 50 ms"), e.getMessage());
      assertThrows(AssertionError.class, peer::expectClosed);
      peer.sendRequest(new byte[0]);
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request);
      request.reject(new byte[0]);
    }
  }

  @Test
  void rawOctetsThatAreNoMpaRequestAreRefusedWithAClose() throws Exception {
    try (ScriptedPeer peer = ScriptedPeer.connect(listener.localAddress())) {
      byte[] notMpa = new byte[20 + 4];
      Arrays.fill(notMpa, (byte) 'X');
      peer.sendRaw(notMpa).expectClosed();
    }
    assertNull(requests.poll(), "no connect request for garbage");
  }

  @Test
  void expectSilenceFailsWhenSomethingArrives() throws Exception {
    region.buffer().setBytes(0, HELLO);
    try (ScriptedPeer peer = established(0)) {
      peer.sendReadRequest(0x77, 0, HELLO.length, region.stag(), region.address());
      AssertionError e = assertThrows(AssertionError.class,
          () -> peer.expectSilence(Duration.ofSeconds(T)));
      assertTrue(e.getMessage().contains("arrived within"), e.getMessage());
    }
    nextEvent(ConnectionEventType.DISCONNECTED);
  }

  @Test
  void aTerminateOfTheWrongKindFailsTheExpectation() throws Exception {
    try (ScriptedPeer peer = established(1)) {
      peer.sendWrite(0x0BAD_0000, 0, HELLO);
      AssertionError e = assertThrows(AssertionError.class,
          () -> peer.expectTerminate(Terminate.LAYER_LLP, 0, 0x02));
      assertTrue(e.getMessage().contains("got Terminate[layer=1, errorType=1, errorCode=0"),
          e.getMessage());
    }
    assertFlushedAndDisconnected(1);
  }
}
