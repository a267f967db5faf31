package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.CompletionListener;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.SharedReceiveQueue;
import io.iwarp4j.verbs.SharedReceiveQueueConfig;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Shared receive queues end to end over TCP on 127.0.0.1: a server whose queue pairs, on two
 * event loops, take their receives from one shared receive queue, fed by two clients. Every Send
 * variant and Immediate Data, FIFO across the queue pairs, an SRQ that runs dry (the Terminate
 * ends that one connection), and deregistration with receives outstanding on the SRQ.
 */
@Timeout(90)
class SharedReceiveQueueIT {
  private static final long WAIT = 30;

  private OpsItPeer server;
  private final List<OpsItPeer> clients = new ArrayList<>();
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<ConnectionEvent> serverEvents = new LinkedBlockingQueue<>();
  private final Map<Integer, String> recvThreads = new ConcurrentHashMap<>();
  private SharedReceiveQueue srq;
  private final List<Integer> limitEvents = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** One client connection: its peer, queue pair and events, and the server's queue pair. */
  private record Link(OpsItPeer client, QueuePair cqp, QueuePair sqp,
      BlockingQueue<ConnectionEvent> clientEvents, CompletionQueue serverCq) {
  }

  @BeforeEach
  void setUp() throws Exception {
    server = new OpsItPeer(DeviceConfig.builder().eventLoopThreads(2).build(), 512);
    listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    listener.close();
    for (OpsItPeer c : clients) {
      c.close();
    }
    server.close();
  }

  private SharedReceiveQueue newSrq(int maxWr, int limit) {
    return server.pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder().maxWr(maxWr)
        .maxSge(2).limit(limit).listener((q, l) -> limitEvents.add(l)).build());
  }

  /** A client connected to a new server queue pair on {@link #srq}, with its own receive CQ. */
  private Link connect() throws Exception {
    OpsItPeer client = new OpsItPeer(1, 256);
    clients.add(client);
    CompletionQueue[] holder = new CompletionQueue[1];
    CompletionListener recordThread = new CompletionListener() {
      @Override
      public void onCompletion(CompletionQueue cq) {
        recvThreads.put(System.identityHashCode(cq), Thread.currentThread().getName());
      }
    };
    CompletionQueue scq = server.device.createCompletionQueue(256, recordThread);
    holder[0] = scq;
    scq.requestNotify(false);
    QueuePair sqp = server.device.createQueuePair(server.pd,
        QueuePairConfig.builder(server.cq, scq).sharedReceiveQueue(srq).build());
    QueuePair cqp = client.newQp(64, 8, 2);
    BlockingQueue<ConnectionEvent> clientEvents = new LinkedBlockingQueue<>();
    CompletableFuture<?> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().eventListener(clientEvents::add).build());
    ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    request.accept(sqp, AcceptParams.builder().eventListener(serverEvents::add).build());
    cf.get(WAIT, TimeUnit.SECONDS);
    return new Link(client, cqp, sqp, clientEvents, scq);
  }

  private static List<WorkCompletion> take(CompletionQueue cq, int n) throws Exception {
    List<WorkCompletion> all = new ArrayList<>();
    WorkCompletion[] out = new WorkCompletion[64];
    for (int i = 0; i < out.length; i++) {
      out[i] = new WorkCompletion();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
    while (all.size() < n) {
      long left = deadline - System.nanoTime();
      assertTrue(left > 0, "only " + all.size() + " of " + n + " completions: " + all);
      int got = cq.await(out, Math.min(out.length, n - all.size()), left, TimeUnit.NANOSECONDS);
      for (int i = 0; i < got; i++) {
        all.add(new WorkCompletion().copyFrom(out[i]));
      }
    }
    return all;
  }

  private static byte[] payload(int client, int seq, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (client * 31 + seq * 7 + i);
    }
    return b;
  }

  @Test
  void twoQueuePairsOnTwoEventLoopsShareOneQueueForEverySendVariantAndImmediateData()
      throws Exception {
    srq = newSrq(256, 0);
    MemoryRegion recv = server.region(64 * 256);
    // 8 rounds of: Send, Send with SE, Send with Invalidate, Immediate Data, Send with SE and
    // Invalidate, RDMA Write with Immediate (whose Immediate Data consumes a receive).
    int perClient = 48;
    for (int i = 0; i < 2 * perClient; i++) {
      srq.postRecv(new RecvWorkRequest(2).wrId(i).addSge(recv, 64L * i, 32)
          .addSge(recv, 64L * i + 32, 32));
    }
    Link a = connect();
    Link b = connect();
    assertEquals(srq, a.sqp().sharedReceiveQueue());
    // Regions the Sends with Invalidate invalidate, one per such Send.
    List<MemoryRegion> victims = new ArrayList<>();
    for (int i = 0; i < 2 * perClient / 3; i++) {
      victims.add(server.invalidatableRegion(64));
    }
    MemoryRegion sink = server.region(64 * 2 * perClient);
    int v = 0;
    for (int round = 0; round < perClient; round++) {
      for (int c = 0; c < 2; c++) {
        Link l = c == 0 ? a : b;
        MemoryRegion src = l.client().region(64);
        byte[] p = payload(c, round, 48);
        src.buffer().setBytes(0, p);
        SendWorkRequest wr = new SendWorkRequest(1).wrId(round).flags(SendFlags.SIGNALED);
        switch (round % 6) {
          case 0 -> wr.opcode(WorkRequestOpcode.SEND).addSge(src, 0, 48);
          case 1 -> wr.opcode(WorkRequestOpcode.SEND_WITH_SOLICITED).addSge(src, 0, 48);
          case 2 -> wr.opcode(WorkRequestOpcode.SEND_WITH_INVALIDATE)
              .invalidateStag(victims.get(v++).stag()).addSge(src, 0, 48);
          case 3 -> wr.opcode(WorkRequestOpcode.IMMEDIATE_DATA)
              .immData(((long) c << 32) | round);
          case 4 -> wr.opcode(WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE)
              .invalidateStag(victims.get(v++).stag()).addSge(src, 0, 48);
          default -> wr.opcode(WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE)
              .remote(sink.stag(), sink.address() + 64L * (2 * round + c)).addSge(src, 0, 48)
              .immData(((long) c << 32) | round);
        }
        l.cqp().postSend(wr);
        List<WorkCompletion> sent = l.client().take(1, WAIT);
        assertEquals(WcStatus.SUCCESS, sent.get(0).status(), sent.get(0).toString());
        src.close();
      }
    }
    List<WorkCompletion> ofA = take(a.serverCq(), perClient);
    List<WorkCompletion> ofB = take(b.serverCq(), perClient);
    // The two queue pairs ran on different event loops (the device gives connections loops in
    // turn) and each took receives in posting order; between them, every receive exactly once.
    assertNotEquals(recvThreads.get(System.identityHashCode(a.serverCq())),
        recvThreads.get(System.identityHashCode(b.serverCq())), "loops: " + recvThreads);
    boolean[] used = new boolean[2 * perClient];
    for (int c = 0; c < 2; c++) {
      List<WorkCompletion> got = c == 0 ? ofA : ofB;
      QueuePair sqp = c == 0 ? a.sqp() : b.sqp();
      long previous = -1;
      for (int round = 0; round < perClient; round++) {
        WorkCompletion wc = got.get(round);
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(sqp.number(), wc.qpNumber(), wc.toString());
        assertTrue(wc.wrId() > previous, "FIFO per queue pair: " + got);
        previous = wc.wrId();
        assertFalse(used[(int) wc.wrId()], "receive " + wc.wrId() + " used twice");
        used[(int) wc.wrId()] = true;
        int variant = round % 6;
        if (variant == 3 || variant == 5) {
          assertEquals(WcOpcode.RECV_IMMEDIATE_DATA, wc.opcode());
          assertEquals(((long) c << 32) | round, wc.immData());
          if (variant == 5) { // the Write was placed before the receive completed
            assertArrayEquals(payload(c, round, 48),
                OpsItPeer.bytes(sink.buffer(), 64 * (2 * round + c), 48));
          }
          continue;
        }
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(48, wc.byteLen());
        assertEquals(variant == 1 || variant == 4, wc.solicited(), wc.toString());
        assertEquals(variant == 2 || variant == 4, wc.hasInvalidatedStag(), wc.toString());
        assertArrayEquals(payload(c, round, 48),
            OpsItPeer.bytes(recv.buffer(), (int) (64 * wc.wrId()), 48), "client " + c + " #" + round);
      }
    }
    for (MemoryRegion victim : victims) {
      assertFalse(victim.isValid(), "invalidated by a Send with Invalidate");
    }
    assertEquals(0, srq.outstanding());
    assertEquals(QpState.RTS, a.sqp().state());
    assertEquals(QpState.RTS, b.sqp().state());
  }

  @Test
  void anSrqThatRunsDryEndsOnlyTheConnectionWhoseSendFoundItEmpty() throws Exception {
    srq = newSrq(8, 2);
    MemoryRegion recv = server.region(4096);
    srq.postRecv(new RecvWorkRequest(1).wrId(1).addSge(recv, 0, 64));
    srq.postRecv(new RecvWorkRequest(1).wrId(2).addSge(recv, 64, 64));
    Link a = connect();
    Link b = connect();
    MemoryRegion src = a.client().region(64);
    // a's first Send takes wrId 1 (one left: below the limit of 2), its second wrId 2, its third
    // finds the queue empty.
    for (int i = 0; i < 3; i++) {
      a.cqp().postSend(new SendWorkRequest(1).wrId(i).opcode(WorkRequestOpcode.SEND)
          .addSge(src, 0, 16));
    }
    List<WorkCompletion> gotA = take(a.serverCq(), 2);
    assertEquals(List.of(1L, 2L), gotA.stream().map(WorkCompletion::wrId).toList());
    gotA.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status()));
    assertEquals(List.of(2), limitEvents, "the limit event, once");
    ConnectionEvent error = awaitEvent(serverEvents, ConnectionEventType.ERROR);
    assertEquals(a.sqp(), error.queuePair());
    TerminateInfo t = error.terminate();
    assertNotNull(t, error.toString());
    assertEquals(List.of(1, 2, 2), List.of(t.layer(), t.errorType(), t.errorCode()),
        "DDP: no buffer available (RFC 5041 §7.1 U2), as a queue pair's own queue gives");
    assertFalse(t.receivedFromPeer());
    ConnectionEvent clientError = awaitEvent(a.clientEvents(), ConnectionEventType.ERROR);
    assertTrue(clientError.terminate().receivedFromPeer());
    assertEquals(2, clientError.terminate().errorCode());
    assertEquals(QpState.ERROR, a.sqp().state());
    assertEquals(QpState.ERROR, a.cqp().state());
    // The third Send took nothing (the queue was empty), so a's queue pair had nothing to
    // flush; b's connection is untouched and takes what is posted next.
    WorkCompletion[] none = {new WorkCompletion()};
    assertEquals(0, a.serverCq().poll(none), "no receive completion for the third Send");
    srq.postRecv(new RecvWorkRequest(1).wrId(3).addSge(recv, 128, 64));
    MemoryRegion srcB = b.client().region(64);
    srcB.buffer().setBytes(0, payload(1, 0, 16));
    b.cqp().postSend(new SendWorkRequest(1).wrId(9).opcode(WorkRequestOpcode.SEND)
        .addSge(srcB, 0, 16));
    WorkCompletion wc = take(b.serverCq(), 1).get(0);
    assertEquals(3, wc.wrId());
    assertEquals(b.sqp().number(), wc.qpNumber());
    assertArrayEquals(payload(1, 0, 16), OpsItPeer.bytes(recv.buffer(), 128, 16));
    assertEquals(QpState.RTS, b.sqp().state());
  }

  @Test
  void deregisteringAMemoryRegionUnderSrqReceives() throws Exception {
    srq = newSrq(8, 0);
    MemoryRegion doomed = server.region(4096);
    MemoryRegion kept = server.region(4096);
    srq.postRecv(new RecvWorkRequest(1).wrId(1).addSge(doomed, 0, 64));
    srq.postRecv(new RecvWorkRequest(1).wrId(2).addSge(kept, 0, 64));
    Link a = connect();
    Link b = connect();
    // The refusing variant names the shared queue's receive, and changes nothing.
    IllegalStateException refused = assertThrows(IllegalStateException.class,
        doomed::closeChecked);
    assertTrue(refused.getMessage().contains("shared receive queue " + srq.number()
        + " receive wrId 1"), refused.getMessage());
    assertTrue(doomed.isValid());
    doomed.close(); // always succeeds (siw); the receive now meets LOC_PROT_ERR when taken
    MemoryRegion src = a.client().region(64);
    a.cqp().postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
        .addSge(src, 0, 16));
    WorkCompletion wc = take(a.serverCq(), 1).get(0);
    assertEquals(1, wc.wrId());
    assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc.toString());
    assertEquals(a.sqp().number(), wc.qpNumber());
    ConnectionEvent clientError = awaitEvent(a.clientEvents(), ConnectionEventType.ERROR);
    assertNotNull(clientError.terminate(), clientError.toString());
    assertEquals(TerminateInfo.LAYER_RDMAP, clientError.terminate().layer(),
        "our error, reported as RDMAP Local Catastrophic, never blaming the peer: "
            + clientError.terminate());
    assertEquals(1, srq.outstanding(), "the other receive stays in the shared queue");
    MemoryRegion srcB = b.client().region(64);
    srcB.buffer().setBytes(0, payload(2, 2, 16));
    b.cqp().postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
        .addSge(srcB, 0, 16));
    WorkCompletion ok = take(b.serverCq(), 1).get(0);
    assertEquals(WcStatus.SUCCESS, ok.status(), ok.toString());
    assertEquals(2, ok.wrId());
    assertArrayEquals(payload(2, 2, 16), OpsItPeer.bytes(kept.buffer(), 0, 16));
  }

  @Test
  void theQueueIsDestroyedOnlyOnceItsQueuePairsAreClosed() throws Exception {
    srq = newSrq(8, 0);
    MemoryRegion recv = server.region(4096);
    srq.postRecv(new RecvWorkRequest(1).wrId(1).addSge(recv, 0, 64));
    Link a = connect();
    IllegalStateException busy = assertThrows(IllegalStateException.class, srq::close);
    assertTrue(busy.getMessage().contains("queue pair " + a.sqp().number()), busy.getMessage());
    a.cqp().close();
    a.sqp().close();
    srq.close();
    assertTrue(srq.isClosed());
    assertEquals(0, srq.outstanding(), "dropped without a completion, as ibv_destroy_srq");
    assertTrue(recv.isValid());
  }

  private static ConnectionEvent awaitEvent(BlockingQueue<ConnectionEvent> events,
      ConnectionEventType type) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
    for (;;) {
      long left = deadline - System.nanoTime();
      ConnectionEvent e = events.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
      assertNotNull(e, "no " + type + " event");
      if (e.type() == type) {
        return e;
      }
    }
  }
}
