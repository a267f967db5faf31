package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.CountersSnapshot;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RdmapMessageType;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Registered memory deregistered while a work request still refers to it (issue 15, "Memory
 * lifetime" in docs/architecture.md): a posted receive, a send slice on a second event loop, a
 * Read sink and an Atomic's result buffer. Each case proves that no octet is written to (or sent
 * from) the memory after {@link MemoryRegion#close()} returned, by watching memory the test owns
 * or memory the pool handed out again ("victims"), and that the work request completes as
 * documented: LOC_PROT_ERR, the queue pair in ERROR, and the Terminate this end sent says
 * <em>local</em> (RDMAP Local Catastrophic Error, 0/0/*), never blaming the peer.
 *
 * <p>To hold a work request between "issued" and "done" without timing, the server's event loop
 * is frozen: a completion listener on the server's receive queue blocks that loop until the test
 * thaws it, so the server reads nothing (the client's Write stays in the client's outbound
 * buffer, a Read or Atomic Request waits unanswered).
 */
@Timeout(120)
class MemoryLifetimeIT {
  private static final long T = 20;
  private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
  private static final int MIB = 1 << 20;

  private RdmaDevice server;
  private RdmaDevice client;
  private ProtectionDomain spd;
  private ProtectionDomain cpd;
  private CompletionQueue scq;
  private CompletionQueue srq;
  private CompletionQueue ccq;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final CountDownLatch frozen = new CountDownLatch(1);
  private final CountDownLatch thaw = new CountDownLatch(1);
  private final List<ByteBuf> owned = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    server = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    client = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build());
    spd = server.allocateProtectionDomain();
    cpd = client.allocateProtectionDomain();
    scq = server.createCompletionQueue(256);
    srq = server.createCompletionQueue(256, cq -> {
      // On the server's event loop: hold it until the test thaws it.
      frozen.countDown();
      try {
        thaw.await(T, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    ccq = client.createCompletionQueue(256);
    listener = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    thaw.countDown();
    client.close();
    server.close();
    owned.forEach(ByteBuf::release);
  }

  /** One connection: both queue pairs, their events, the client's event loop thread. */
  private final class Conn {
    QueuePair cqp;
    QueuePair sqp;
    final BlockingQueue<ConnectionEvent> clientEvents = new LinkedBlockingQueue<>();
    final BlockingQueue<ConnectionEvent> serverEvents = new LinkedBlockingQueue<>();
    volatile Thread clientLoop;
  }

  private Conn connect() throws Exception {
    Conn c = new Conn();
    c.cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).maxSendWr(16)
        .maxRecvWr(16).ord(4).build());
    var cf = client.connect(c.cqp, listener.localAddress(), ConnectParams.builder()
        .peerToPeer(true).firstFpduDelay(Duration.ZERO).eventListener(e -> {
          if (e.type() == ConnectionEventType.ESTABLISHED) {
            c.clientLoop = Thread.currentThread();
          }
          c.clientEvents.add(e);
        }).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    c.sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, srq).maxSendWr(16)
        .maxRecvWr(16).ird(4).build());
    request.accept(c.sqp, AcceptParams.builder().eventListener(c.serverEvents::add).build())
        .get(T, TimeUnit.SECONDS);
    cf.get(T, TimeUnit.SECONDS);
    return c;
  }

  /** Blocks the server's event loop: a Send from {@code c}'s client fires the listener. */
  private void freezeServer(Conn c) throws Exception {
    MemoryRegion in = spd.allocate(64, AccessFlags.LOCAL_WRITE);
    MemoryRegion out = cpd.allocate(64, AccessFlags.LOCAL_WRITE);
    c.sqp.postRecv(new RecvWorkRequest(1).wrId(1_000).addSge(in, 0, 64));
    srq.requestNotify(false);
    c.cqp.postSend(new SendWorkRequest(1).wrId(1_001).opcode(WorkRequestOpcode.SEND)
        .addSge(out, 0, 8));
    assertTrue(frozen.await(T, TimeUnit.SECONDS), "the server's loop did not freeze");
  }

  private static WorkCompletion next(CompletionQueue cq) throws InterruptedException {
    WorkCompletion[] out = {new WorkCompletion()};
    if (cq.await(out, T, TimeUnit.SECONDS) == 0) {
      fail("no completion within " + T + " s");
    }
    return new WorkCompletion().copyFrom(out[0]);
  }

  /** The next completion of {@code wrId}, skipping others (flushes of helpers). */
  private static WorkCompletion completionOf(CompletionQueue cq, long wrId)
      throws InterruptedException {
    for (int i = 0; i < 64; i++) {
      WorkCompletion wc = next(cq);
      if (wc.wrId() == wrId) {
        return wc;
      }
    }
    throw new AssertionError("no completion of wrId " + wrId);
  }

  private static void awaitCounter(QueuePair qp, ToLongFunction<CountersSnapshot> what,
      long atLeast) throws InterruptedException {
    CountersSnapshot s = new CountersSnapshot();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    while (what.applyAsLong(qp.counters(s)) < atLeast) {
      if (System.nanoTime() > deadline) {
        fail("counter did not reach " + atLeast + ": " + s);
      }
      Thread.sleep(1);
    }
  }

  /** Regions the pool may build on the memory just released, filled with {@code fill}. */
  private List<MemoryRegion> victims(ProtectionDomain pd, int length, int fill) {
    List<MemoryRegion> v = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      MemoryRegion r = pd.allocate(length, AccessFlags.LOCAL_WRITE);
      r.buffer().setBytes(0, filled(length, fill));
      v.add(r);
    }
    return v;
  }

  private static byte[] filled(int length, int value) {
    byte[] b = new byte[length];
    java.util.Arrays.fill(b, (byte) value);
    return b;
  }

  private static void assertAll(ByteBuf buf, int index, int length, int value, String what) {
    byte[] octets = new byte[length];
    buf.getBytes(index, octets); // one call: the leak detector records every access
    for (int i = 0; i < length; i++) {
      int got = octets[i] & 0xFF;
      if (got != value) {
        fail(what + ": octet " + i + " is 0x" + Integer.toHexString(got) + ", expected 0x"
            + Integer.toHexString(value));
      }
    }
  }

  /** The ERROR event of one side: a Terminate this end sent, and it says local. */
  private static void assertLocalTerminateSent(BlockingQueue<ConnectionEvent> events)
      throws InterruptedException {
    TerminateInfo t = errorTerminate(events);
    assertFalse(t.receivedFromPeer(), t.toString());
    assertEquals(TerminateInfo.LAYER_RDMAP, t.layer(), "a local error is RDMAP's: " + t);
    assertEquals(0, t.errorType(), "Local Catastrophic Error: " + t);
  }

  /** The peer's ERROR event: it received the local Terminate, not a DDP buffer error. */
  private static void assertLocalTerminateReceived(BlockingQueue<ConnectionEvent> events)
      throws InterruptedException {
    TerminateInfo t = errorTerminate(events);
    assertTrue(t.receivedFromPeer(), t.toString());
    assertEquals(TerminateInfo.LAYER_RDMAP, t.layer(), "the peer is not to blame: " + t);
    assertEquals(0, t.errorType(), "Local Catastrophic Error: " + t);
  }

  private static TerminateInfo errorTerminate(BlockingQueue<ConnectionEvent> events)
      throws InterruptedException {
    while (true) {
      ConnectionEvent e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "no ERROR event");
      if (e.type() == ConnectionEventType.ERROR) {
        assertNotNull(e.terminate(), "ERROR without a Terminate: " + e);
        return e.terminate();
      }
      assertNotSame(ConnectionEventType.DISCONNECTED, e.type(), "disconnected without ERROR");
    }
  }

  // ---- a posted receive ----

  @Test
  void aSendForAReceiveWhoseRegionWasClosedWritesNothingAndFailsTheReceive() throws Exception {
    Conn c = connect();
    MemoryRegion first = spd.allocate(64, AccessFlags.LOCAL_WRITE);
    MemoryRegion target = spd.allocate(MIB, AccessFlags.LOCAL_WRITE);
    c.sqp.postRecv(new RecvWorkRequest(1).wrId(6).addSge(first, 0, 64));
    c.sqp.postRecv(new RecvWorkRequest(1).wrId(7).addSge(target, 0, 4096));
    MemoryRegion src = cpd.allocate(4096, AccessFlags.LOCAL_WRITE);
    src.buffer().setBytes(0, filled(4096, 0x55));
    c.cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
        .addSge(src, 0, 64));
    // Receive 6 completed: both receives were taken from the ring and handed to the stream.
    WorkCompletion wc6 = next(srq);
    assertEquals(6, wc6.wrId());
    assertEquals(WcStatus.SUCCESS, wc6.status());
    target.close();
    List<MemoryRegion> victims = victims(spd, MIB, 0xEE);

    c.cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
        .addSge(src, 0, 4096));
    WorkCompletion wc7 = next(srq);
    assertEquals(7, wc7.wrId());
    assertEquals(WcStatus.LOC_PROT_ERR, wc7.status(), wc7.toString());
    for (MemoryRegion v : victims) {
      assertAll(v.buffer(), 0, MIB, 0xEE, "memory reused after the close");
    }
    assertLocalTerminateSent(c.serverEvents);
    assertLocalTerminateReceived(c.clientEvents);
    assertEquals(QpState.ERROR, c.sqp.state());
  }

  @Test
  void aSendForAReceiveInCallerMemoryWhoseRegionWasClosedLeavesTheMemoryAlone()
      throws Exception {
    Conn c = connect();
    ByteBuf mine = Unpooled.directBuffer(4096, 4096);
    owned.add(mine);
    mine.writeBytes(filled(4096, 0xAA));
    MemoryRegion first = spd.allocate(64, AccessFlags.LOCAL_WRITE);
    MemoryRegion target = spd.register(mine, AccessFlags.LOCAL_WRITE);
    c.sqp.postRecv(new RecvWorkRequest(1).wrId(6).addSge(first, 0, 64));
    c.sqp.postRecv(new RecvWorkRequest(1).wrId(7).addSge(target, 0, 4096));
    MemoryRegion src = cpd.allocate(4096, AccessFlags.LOCAL_WRITE);
    src.buffer().setBytes(0, filled(4096, 0x55));
    c.cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
        .addSge(src, 0, 64));
    assertEquals(6, next(srq).wrId());
    target.close();

    c.cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
        .addSge(src, 0, 4096));
    WorkCompletion wc7 = next(srq);
    assertEquals(7, wc7.wrId());
    assertEquals(WcStatus.LOC_PROT_ERR, wc7.status(), wc7.toString());
    assertAll(mine, 0, 4096, 0xAA, "caller's memory written after the close");
    assertLocalTerminateSent(c.serverEvents);
  }

  // ---- a send slice on a second event loop ----

  @Test
  void aWriteQueuedOnASecondLoopSendsTheRegistrationsOctetsNotWhatReusedTheMemory()
      throws Exception {
    Conn a = connect();
    Conn b = connect();
    assertNotSame(a.clientLoop, b.clientLoop, "the two connections share a client loop");
    MemoryRegion target = spd.allocate(2 * MIB, ALL);
    MemoryRegion shared = cpd.allocate(MIB, AccessFlags.LOCAL_WRITE);
    shared.buffer().setBytes(0, filled(MIB, 0x55));
    // Loop A sends from the region first: it owns the region's slices, loop B gets its own root.
    a.cqp.postSend(new SendWorkRequest(1).wrId(10).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(target.stag(), target.address())
        .addSge(shared, 0, 64));
    WorkCompletion wcA = completionOf(ccq, 10);
    assertEquals(WcStatus.SUCCESS, wcA.status());

    freezeServer(a);
    b.cqp.postSend(new SendWorkRequest(1).wrId(20).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(target.stag(), target.address() + MIB)
        .addSge(shared, 0, MIB));
    awaitCounter(b.cqp, s -> s.messagesSent(RdmapMessageType.RDMA_WRITE), 1);
    shared.close();
    List<MemoryRegion> victims = victims(cpd, MIB, 0xEE);
    thaw.countDown();

    WorkCompletion wcB = completionOf(ccq, 20);
    assertEquals(WcStatus.SUCCESS, wcB.status(), "the Write was handed to TCP before the close: "
        + wcB);
    // A Send behind the Write: once the server received it, the Write is placed (in order).
    MemoryRegion in = spd.allocate(64, AccessFlags.LOCAL_WRITE);
    MemoryRegion out = cpd.allocate(64, AccessFlags.LOCAL_WRITE);
    b.sqp.postRecv(new RecvWorkRequest(1).wrId(21).addSge(in, 0, 64));
    b.cqp.postSend(new SendWorkRequest(1).wrId(22).opcode(WorkRequestOpcode.SEND)
        .addSge(out, 0, 8));
    assertEquals(WcStatus.SUCCESS, completionOf(srq, 21).status());
    assertAll(target.buffer(), MIB, MIB, 0x55, "the Write carried octets not of its region");
    for (MemoryRegion v : victims) {
      assertAll(v.buffer(), 0, MIB, 0xEE, "victim changed");
    }
  }

  // ---- a Read sink ----

  @Test
  void aReadWhoseSinkWasClosedFailsLocallyAndBlamesNoPeer() throws Exception {
    Conn c = connect();
    MemoryRegion source = spd.allocate(64 * 1024, ALL);
    source.buffer().setBytes(0, filled(64 * 1024, 0x55));
    MemoryRegion sink = cpd.allocate(MIB, AccessFlags.LOCAL_WRITE);
    freezeServer(c);
    c.cqp.postSend(new SendWorkRequest(1).wrId(30).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(source.stag(), source.address())
        .addSge(sink, 0, 64 * 1024));
    awaitCounter(c.cqp, s -> s.messagesSent(RdmapMessageType.RDMA_READ_REQUEST), 1);
    sink.close();
    List<MemoryRegion> victims = victims(cpd, MIB, 0xEE);
    thaw.countDown();

    WorkCompletion wc = completionOf(ccq, 30);
    assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc.toString());
    for (MemoryRegion v : victims) {
      assertAll(v.buffer(), 0, MIB, 0xEE, "memory reused after the close");
    }
    assertLocalTerminateSent(c.clientEvents);
    assertLocalTerminateReceived(c.serverEvents);
    assertEquals(QpState.ERROR, c.cqp.state());
  }

  // ---- an Atomic's result buffer ----

  @Test
  void anAtomicWhoseResultBufferWasClosedFailsLocallyAndBlamesNoPeer() throws Exception {
    Conn c = connect();
    MemoryRegion counter = spd.allocate(64, ALL);
    counter.putLong(0, 41);
    MemoryRegion result = cpd.allocate(4096, AccessFlags.LOCAL_WRITE);
    freezeServer(c);
    c.cqp.postSend(new SendWorkRequest(1).wrId(40).opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD)
        .flags(SendFlags.SIGNALED).remote(counter.stag(), counter.address()).addData(1)
        .localResult(result, 0));
    awaitCounter(c.cqp, s -> s.messagesSent(RdmapMessageType.ATOMIC_REQUEST), 1);
    result.close();
    List<MemoryRegion> victims = victims(cpd, 4096, 0xEE);
    thaw.countDown();

    WorkCompletion wc = completionOf(ccq, 40);
    assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc.toString());
    for (MemoryRegion v : victims) {
      assertAll(v.buffer(), 0, 4096, 0xEE, "memory reused after the close");
    }
    assertLocalTerminateSent(c.clientEvents);
    assertLocalTerminateReceived(c.serverEvents);
    assertEquals(QpState.ERROR, c.cqp.state());
  }

  // ---- the refusing path ----

  @Test
  void closeCheckedRefusesWhileWorkRequestsUseTheRegionAndNamesThem() throws Exception {
    Conn c = connect();
    MemoryRegion target = spd.allocate(4096, AccessFlags.LOCAL_WRITE);
    c.sqp.postRecv(new RecvWorkRequest(1).wrId(77).addSge(target, 0, 64));
    // A queue pair without a connection (no event loop yet) is looked at too.
    QueuePair idle = server.createQueuePair(spd, QueuePairConfig.builder(scq, srq).build());
    idle.postRecv(new RecvWorkRequest(1).wrId(88).addSge(target, 64, 64));

    IllegalStateException refused = assertThrows(IllegalStateException.class,
        target::closeChecked);
    String m = refused.getMessage();
    assertTrue(m.contains("queue pair " + c.sqp.number() + " receive wrId 77"), m);
    assertTrue(m.contains("queue pair " + idle.number() + " receive wrId 88"), m);
    assertTrue(m.contains("2 outstanding"), m);
    assertTrue(target.isValid(), "a refused closeChecked() changes nothing");

    MemoryRegion src = cpd.allocate(64, AccessFlags.LOCAL_WRITE);
    src.buffer().setBytes(0, filled(64, 0x55));
    c.cqp.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.SEND)
        .addSge(src, 0, 64));
    WorkCompletion wc = completionOf(srq, 77);
    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
    assertAll(target.buffer(), 0, 64, 0x55, "the receive the refusal kept");
    idle.close();
    assertEquals(WcStatus.WR_FLUSH_ERR, completionOf(srq, 88).status());

    target.closeChecked();
    assertTrue(target.isClosed());
  }

  // ---- ORD 0 ----

  @Test
  void aReadOrAtomicOnAQueuePairWithOrdZeroIsRefusedAtPost() throws Exception {
    QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).ord(0)
        .build());
    var cf = client.connect(cqp, listener.localAddress(),
        ConnectParams.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request);
    QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, srq).build());
    request.accept(sqp, AcceptParams.builder().build()).get(T, TimeUnit.SECONDS);
    assertEquals(0, cf.get(T, TimeUnit.SECONDS).ord(), "negotiated ORD");
    MemoryRegion source = spd.allocate(64, ALL);
    MemoryRegion sink = cpd.allocate(64, AccessFlags.LOCAL_WRITE);
    IllegalStateException read = assertThrows(IllegalStateException.class,
        () -> cqp.postSend(new SendWorkRequest(1).wrId(50).opcode(WorkRequestOpcode.RDMA_READ)
            .flags(SendFlags.SIGNALED).remote(source.stag(), source.address())
            .addSge(sink, 0, 8)));
    assertTrue(read.getMessage().contains("ORD 0"), read.getMessage());
    IllegalStateException atomic = assertThrows(IllegalStateException.class,
        () -> cqp.postSend(new SendWorkRequest(1).wrId(51)
            .opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).flags(SendFlags.SIGNALED)
            .remote(source.stag(), source.address()).addData(1).localResult(sink, 0)));
    assertTrue(atomic.getMessage().contains("ORD 0"), atomic.getMessage());
    assertEquals(0, cqp.outstandingSends(), "nothing was posted");
    // The queue pair still works: a Write goes through.
    cqp.postSend(new SendWorkRequest(1).wrId(52).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(source.stag(), source.address())
        .addSge(sink, 0, 8));
    assertEquals(WcStatus.SUCCESS, completionOf(ccq, 52).status());
  }
}
