package io.iwarp4j.it.stag;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.MemoryWindow;
import io.iwarp4j.verbs.MemoryWindowType;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Type 2 memory windows end to end over TCP on 127.0.0.1: the host device has two connections
 * to the peer device, A and B, whose queue pairs share one protection domain and one region
 * (with MW_BIND). Host queue pair A binds a window into the region (BIND_MW). The window's STag
 * is then valid on connection A only (RFC 5041 §8.2, RFC 5040 §8.1.1 item 2): peer A Writes and
 * Reads through it, while peer B, naming the same STag in the same domain, gets the exact
 * Terminate (Write: DDP 1/1/0x02, Read Request: RDMAP 0/1/0x03, Send with Invalidate: RDMAP
 * 0/1/0x09) and changes no octet. Peer A's Send with Invalidate invalidates the window.
 */
@Timeout(90)
class MemoryWindowIT {
  private static final long WAIT = 30;
  private static final int REGION = 8192;
  private static final int WIN_OFFSET = 1024;
  private static final int WIN_LENGTH = 2048;

  private RdmaDevice hostDevice;
  private RdmaDevice peerDevice;
  private CompletionQueue hostCq;
  private CompletionQueue peerCqA;
  private CompletionQueue peerCqB;
  private QueuePair hostA;
  private QueuePair hostB;
  private QueuePair peerA;
  private QueuePair peerB;
  private MemoryRegion hostRegion;
  private MemoryRegion hostMsgs;
  private MemoryRegion peerData;
  private MemoryWindow window;
  private final BlockingQueue<ConnectionEvent> eventsA = new LinkedBlockingQueue<>();
  private final BlockingQueue<ConnectionEvent> eventsB = new LinkedBlockingQueue<>();
  private final WorkCompletion[] out = {new WorkCompletion()};

  @BeforeEach
  void setUp() throws Exception {
    hostDevice = RdmaDevice.open();
    peerDevice = RdmaDevice.open();
    ProtectionDomain hpd = hostDevice.allocateProtectionDomain();
    hostCq = hostDevice.createCompletionQueue(64);
    hostA = hostDevice.createQueuePair(hpd, QueuePairConfig.builder(hostCq, hostCq).build());
    hostB = hostDevice.createQueuePair(hpd, QueuePairConfig.builder(hostCq, hostCq).build());
    hostRegion = hpd.allocate(REGION, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
        | AccessFlags.REMOTE_READ | AccessFlags.MW_BIND);
    hostMsgs = hpd.allocate(256, AccessFlags.LOCAL_WRITE);
    window = hpd.allocateMemoryWindow(MemoryWindowType.TYPE_2);

    ProtectionDomain ppd = peerDevice.allocateProtectionDomain();
    peerCqA = peerDevice.createCompletionQueue(64);
    peerCqB = peerDevice.createCompletionQueue(64);
    peerA = peerDevice.createQueuePair(ppd, QueuePairConfig.builder(peerCqA, peerCqA).build());
    peerB = peerDevice.createQueuePair(ppd, QueuePairConfig.builder(peerCqB, peerCqB).build());
    peerData = ppd.allocate(2 * REGION, AccessFlags.LOCAL_WRITE);

    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = hostDevice.listen(new InetSocketAddress("127.0.0.1", 0),
        requests::add);
    connect(listener, requests, peerA, hostA, eventsA);
    connect(listener, requests, peerB, hostB, eventsB);
  }

  private void connect(RdmaListener listener, BlockingQueue<ConnectRequest> requests,
      QueuePair client, QueuePair server, BlockingQueue<ConnectionEvent> clientEvents)
      throws Exception {
    var connected = peerDevice.connect(client, listener.localAddress(),
        ConnectParams.builder().peerToPeer(true).eventListener(clientEvents::add).build());
    ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    request.accept(server, AcceptParams.builder().build()).get(WAIT, TimeUnit.SECONDS);
    connected.get(WAIT, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() {
    hostDevice.close();
    peerDevice.close();
  }

  /** The queue pair's state once it is {@code wanted}, or its last state after {@link #WAIT} s. */
  private static QpState awaitState(QueuePair qp, QpState wanted) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
    QpState state = qp.state();
    while (state != wanted && System.nanoTime() < deadline) {
      Thread.sleep(5);
      state = qp.state();
    }
    return state;
  }

  /** Host queue pair A binds the window; returns what it advertises. */
  private RemoteBuffer bindOnA(int access) throws Exception {
    int stag = window.nextStag();
    hostA.postSend(new SendWorkRequest(0).wrId(1).opcode(WorkRequestOpcode.BIND_MW)
        .flags(SendFlags.SIGNALED)
        .bindMemoryWindow(window, stag, hostRegion, WIN_OFFSET, WIN_LENGTH, access));
    WorkCompletion wc = expect(hostCq, 1);
    assertEquals(WcOpcode.BIND_MW, wc.opcode(), wc.toString());
    assertTrue(window.isValid());
    RemoteBuffer rb = window.remote();
    assertEquals(new RemoteBuffer(stag, hostRegion.address() + WIN_OFFSET, WIN_LENGTH), rb);
    return rb;
  }

  @Test
  void theBoundConnectionWritesAndReadsAndAnotherConnectionGetsNotAssociated() throws Exception {
    RemoteBuffer w = bindOnA(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
    byte[] data = pattern(1, WIN_LENGTH);
    peerData.buffer().setBytes(0, data);
    // Peer A: Write the whole window, Read it back.
    peerA.postSend(new SendWorkRequest(1).wrId(10).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(w.stag(), w.address()).addSge(peerData, 0, WIN_LENGTH));
    peerA.postSend(new SendWorkRequest(1).wrId(11).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(w.stag(), w.address())
        .addSge(peerData, REGION, WIN_LENGTH));
    expect(peerCqA, 11);
    byte[] placed = new byte[WIN_LENGTH];
    hostRegion.buffer().getBytes(WIN_OFFSET, placed);
    assertArrayEquals(data, placed, "peer A's Write through the window");
    byte[] read = new byte[WIN_LENGTH];
    peerData.buffer().getBytes(REGION, read);
    assertArrayEquals(data, read, "peer A's Read through the window");

    // Peer B names the same STag: DDP Terminate 1/1/0x02, nothing placed.
    byte[] before = snapshot();
    peerData.buffer().setBytes(0, pattern(2, WIN_LENGTH));
    peerB.postSend(new SendWorkRequest(1).wrId(20).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(w.stag(), w.address()).addSge(peerData, 0, 64));
    assertEquals(new TerminateInfo(1, 1, 0x02, true), terminate(eventsB));
    assertArrayEquals(before, snapshot(), "octets placed from another stream");
    // Host B moves to ERROR once its Terminate is written, which may be after peer B read it.
    assertEquals(QpState.ERROR, awaitState(hostB, QpState.ERROR));

    // Connection A is unaffected: another Read through the window still works.
    peerA.postSend(new SendWorkRequest(1).wrId(12).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(w.stag(), w.address() + 8)
        .addSge(peerData, REGION, 64));
    expect(peerCqA, 12);
    assertTrue(window.isValid());
    assertEquals(QpState.RTS, hostA.state());
  }

  @Test
  void aReadRequestFromAnotherConnectionGetsRdmapNotAssociated() throws Exception {
    RemoteBuffer w = bindOnA(AccessFlags.REMOTE_READ);
    peerB.postSend(new SendWorkRequest(1).wrId(30).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(w.stag(), w.address()).addSge(peerData, 0, 64));
    assertEquals(new TerminateInfo(0, 1, 0x03, true), terminate(eventsB));
    WorkCompletion wc = expectAny(peerCqB, 30);
    assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), wc.toString());
    assertTrue(window.isValid());
  }

  @Test
  void sendWithInvalidateInvalidatesTheWindowOnlyFromTheBoundConnection() throws Exception {
    RemoteBuffer w = bindOnA(AccessFlags.REMOTE_WRITE);
    hostA.postRecv(new RecvWorkRequest(1).wrId(40).addSge(hostMsgs, 0, 64));
    hostB.postRecv(new RecvWorkRequest(1).wrId(41).addSge(hostMsgs, 64, 64));
    // From B: RDMAP Terminate 0/1/0x09 (STag cannot be invalidated); the window stays valid.
    peerB.postSend(new SendWorkRequest(1).wrId(50).opcode(WorkRequestOpcode.SEND_WITH_INVALIDATE)
        .invalidateStag(w.stag()).addSge(peerData, 0, 8));
    assertEquals(new TerminateInfo(0, 1, 0x09, true), terminate(eventsB));
    assertTrue(window.isValid(), "another connection invalidated the window");
    WorkCompletion charged = expectAny(hostCq, 41);
    assertEquals(WcStatus.LOC_ACCESS_ERR, charged.status(), charged.toString());
    // From A: the window is invalidated, the receive reports it.
    peerA.postSend(new SendWorkRequest(1).wrId(51).opcode(WorkRequestOpcode.SEND_WITH_INVALIDATE)
        .flags(SendFlags.SIGNALED).invalidateStag(w.stag()).addSge(peerData, 0, 8));
    expect(peerCqA, 51);
    WorkCompletion recv = expect(hostCq, 40);
    assertTrue(recv.hasInvalidatedStag(), recv.toString());
    assertEquals(w.stag(), recv.invalidatedStag());
    assertFalse(window.isValid());
    // A Write to it now: 1/1/0x00, nothing placed.
    byte[] before = snapshot();
    peerA.postSend(new SendWorkRequest(1).wrId(52).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(w.stag(), w.address()).addSge(peerData, 0, 64));
    assertEquals(new TerminateInfo(1, 1, 0x00, true), terminate(eventsA));
    assertArrayEquals(before, snapshot());
  }

  @Test
  void localInvalidateAndRebindWithANewKey() throws Exception {
    RemoteBuffer first = bindOnA(AccessFlags.REMOTE_READ);
    hostA.postSend(new SendWorkRequest(0).wrId(2).opcode(WorkRequestOpcode.LOCAL_INV)
        .flags(SendFlags.SIGNALED).invalidateStag(first.stag()));
    assertEquals(WcOpcode.LOCAL_INV, expect(hostCq, 2).opcode());
    assertFalse(window.isValid());
    RemoteBuffer second = bindOnA(AccessFlags.REMOTE_READ);
    assertTrue(first.stag() != second.stag(), "a new key");
    peerA.postSend(new SendWorkRequest(1).wrId(60).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(second.stag(), second.address())
        .addSge(peerData, 0, 64));
    expect(peerCqA, 60);
    // The old STag: RDMAP 0/1/0x00 (invalid STag).
    peerA.postSend(new SendWorkRequest(1).wrId(61).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(first.stag(), first.address())
        .addSge(peerData, 0, 64));
    assertEquals(new TerminateInfo(0, 1, 0x00, true), terminate(eventsA));
  }

  @Test
  void aType1WindowServesEveryConnectionOfTheDomainAndCannotBeInvalidatedByAPeer()
      throws Exception {
    MemoryWindow t1 = hostRegion.pd().allocateMemoryWindow(MemoryWindowType.TYPE_1);
    int stag = hostA.bindMemoryWindow(t1, 3, SendFlags.SIGNALED, hostRegion, WIN_OFFSET,
        WIN_LENGTH, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
    WorkCompletion bound = expect(hostCq, 3);
    assertEquals(WcOpcode.BIND_MW, bound.opcode(), bound.toString());
    assertEquals(stag, t1.stag());
    long address = hostRegion.address() + WIN_OFFSET;
    byte[] data = pattern(3, 256);
    peerData.buffer().setBytes(0, data);
    // Connection B (not the one that bound it) Writes and Reads through it.
    peerB.postSend(new SendWorkRequest(1).wrId(70).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(stag, address).addSge(peerData, 0, 256));
    peerB.postSend(new SendWorkRequest(1).wrId(71).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(stag, address).addSge(peerData, REGION, 256));
    expect(peerCqB, 71);
    byte[] placed = new byte[256];
    hostRegion.buffer().getBytes(WIN_OFFSET, placed);
    assertArrayEquals(data, placed);
    // Shared by streams: a peer may not invalidate it (RFC 5040 §8.1.1 item 7): 0/1/0x09.
    hostA.postRecv(new RecvWorkRequest(1).wrId(72).addSge(hostMsgs, 0, 64));
    peerA.postSend(new SendWorkRequest(1).wrId(73).opcode(WorkRequestOpcode.SEND_WITH_INVALIDATE)
        .invalidateStag(stag).addSge(peerData, 0, 8));
    assertEquals(new TerminateInfo(0, 1, 0x09, true), terminate(eventsA));
    assertTrue(t1.isValid());
  }

  private byte[] snapshot() {
    byte[] b = new byte[REGION];
    hostRegion.buffer().getBytes(0, b);
    return b;
  }

  private static TerminateInfo terminate(BlockingQueue<ConnectionEvent> events)
      throws InterruptedException {
    while (true) {
      ConnectionEvent e = events.poll(WAIT, TimeUnit.SECONDS);
      assertNotNull(e, "no ERROR event: the access was not refused");
      if (e.type() == ConnectionEventType.ERROR) {
        assertNotNull(e.terminate(), "ERROR without a Terminate: " + e);
        return e.terminate();
      }
    }
  }

  private WorkCompletion expect(CompletionQueue cq, long wrId) throws InterruptedException {
    WorkCompletion wc = expectAny(cq, wrId);
    assertTrue(wc.isSuccess(), wc.toString());
    return wc;
  }

  private WorkCompletion expectAny(CompletionQueue cq, long wrId) throws InterruptedException {
    assertEquals(1, cq.await(out, 1, WAIT, TimeUnit.SECONDS), "no completion for wrId " + wrId);
    WorkCompletion wc = new WorkCompletion().copyFrom(out[0]);
    assertEquals(wrId, wc.wrId(), wc.toString());
    return wc;
  }

  private static byte[] pattern(long seed, int size) {
    byte[] b = new byte[size];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }
}
