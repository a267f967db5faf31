package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairAttributes;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link QueuePair#reset()} and {@link QueuePair#query()} over TCP on 127.0.0.1: one client queue
 * pair connects, carries a Send, is disconnected by its peer (ERROR), is reset and connects to
 * another server, where Send, RDMA Write and RDMA Read work; a server queue pair is reset after
 * its client disconnected and accepts the next client; then 100 rounds of connect, Send,
 * peer close and reset on the same queue pair, with every work request completing exactly once
 * and nothing of the old connections or of the closed receive regions staying reachable (Netty's
 * leak detector runs at PARANOID).
 */
@Timeout(300)
class QueuePairResetIT {
  private static final long T = 20;
  private static final int ROUNDS = Integer.getInteger("qpReset.rounds", 100);

  /** A server device with a listener: accepts each request with a new queue pair. */
  private static final class Server implements AutoCloseable {
    final OpsItPeer peer = new OpsItPeer(1, 64);
    final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    final RdmaListener listener;

    Server() throws Exception {
      listener = peer.device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    }

    /** Completes at RTS: a client-server Responder waits for the Initiator's first FPDU. */
    CompletableFuture<RdmaConnection> accept(QueuePair qp) throws Exception {
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      return request.accept(qp, AcceptParams.builder().build());
    }

    @Override
    public void close() {
      listener.close();
      peer.close();
    }
  }

  @Test
  void aDisconnectedQueuePairIsResetAndConnectsToAnotherServer() throws Exception {
    try (OpsItPeer client = new OpsItPeer(1, 64); Server s1 = new Server();
        Server s2 = new Server()) {
      QueuePair qp = client.newQp(8, 8, 1);
      MemoryRegion local = client.region(4096);
      Map<Long, Integer> completed = new HashMap<>();

      QueuePairAttributes before = qp.query();
      assertEquals(QpState.INIT, before.state());
      assertFalse(before.hasConnection());
      assertEquals(-1, before.ird());
      assertEquals(8, before.capabilities().maxSendWr());

      // First connection, peer-to-peer: a Send, then the server closes its queue pair.
      CompletableFuture<RdmaConnection> cf = client.device.connect(qp,
          s1.listener.localAddress(), ConnectParams.builder().peerToPeer(true).build());
      QueuePair sqp1 = s1.peer.newQp(8, 8, 1);
      MemoryRegion s1recv = s1.peer.region(4096);
      sqp1.postRecv(new RecvWorkRequest(1).wrId(100).addSge(s1recv, 0, 4096));
      s1.accept(sqp1).get(T, TimeUnit.SECONDS);
      RdmaConnection c1 = cf.get(T, TimeUnit.SECONDS);

      QueuePairAttributes first = qp.query();
      assertEquals(QpState.RTS, first.state());
      assertTrue(first.hasConnection());
      assertTrue(first.peerToPeer());
      assertNotNull(first.rtrType());
      assertEquals(2, first.mpaRevision());
      assertEquals(c1.ird(), first.ird());
      assertEquals(c1.ord(), first.ord());
      assertEquals(c1.mpaInfo().crc(), first.crc());
      assertFalse(first.markers());
      assertEquals(s1.listener.localAddress(), first.remoteAddress());
      assertEquals(c1.localAddress(), first.localAddress());
      assertThrows(IllegalStateException.class, qp::reset, "RTS is not reset");

      local.buffer().setBytes(0, "first".getBytes());
      qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(local, 0, 5));
      record(completed, client.take(1, T), WcStatus.SUCCESS);
      assertEquals(5, s1.peer.take(1, T).get(0).byteLen());
      // Two receives wait when the peer goes away: they are flushed, once each.
      qp.postRecv(new RecvWorkRequest(1).wrId(2).addSge(local, 1024, 1024));
      qp.postRecv(new RecvWorkRequest(1).wrId(3).addSge(local, 2048, 1024));
      sqp1.close();
      c1.closeFuture().get(T, TimeUnit.SECONDS);
      assertEquals(QpState.ERROR, qp.state());
      qp.postRecv(new RecvWorkRequest(1).wrId(4).addSge(local, 3072, 1024)); // flushed too
      qp.reset();

      assertEquals(QpState.INIT, qp.state());
      assertEquals(0, qp.outstandingSends());
      assertEquals(0, qp.outstandingReceives());
      record(completed, client.take(3, T), WcStatus.WR_FLUSH_ERR);
      client.assertQuiet(100);
      QueuePairAttributes afterReset = qp.query();
      assertFalse(afterReset.hasConnection());
      assertNull(afterReset.remoteAddress());
      assertEquals(first.qpNumber(), afterReset.qpNumber());

      // Second connection to another server, client-server model: Send, Write, Read.
      QueuePair sqp2 = s2.peer.newQp(8, 8, 1);
      MemoryRegion s2mem = s2.peer.region(4096);
      sqp2.postRecv(new RecvWorkRequest(1).wrId(200).addSge(s2mem, 0, 1024));
      cf = client.device.connect(qp, s2.listener.localAddress(), ConnectParams.builder().build());
      CompletableFuture<RdmaConnection> sc2 = s2.accept(sqp2);
      RdmaConnection c2 = cf.get(T, TimeUnit.SECONDS);
      QueuePairAttributes second = qp.query();
      assertEquals(QpState.RTS, second.state());
      assertFalse(second.peerToPeer());
      assertNull(second.rtrType());
      assertEquals(s2.listener.localAddress(), second.remoteAddress());

      // The old connection's disconnect() no longer reaches the queue pair (one event loop:
      // it would run before the posts below and flush them).
      c1.disconnect().get(T, TimeUnit.SECONDS);

      byte[] written = "written over the new connection".getBytes();
      local.buffer().setBytes(0, written);
      qp.postSend(new SendWorkRequest(1).wrId(5).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.SIGNALED).remote(s2mem.stag(), s2mem.address() + 2048)
          .addSge(local, 0, written.length));
      local.buffer().setBytes(100, "second".getBytes());
      qp.postSend(new SendWorkRequest(1).wrId(6).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(local, 100, 6));
      record(completed, client.take(2, T), WcStatus.SUCCESS);
      sc2.get(T, TimeUnit.SECONDS);
      WorkCompletion recv = s2.peer.take(1, T).get(0); // the Send: the Write before it is placed
      assertEquals(200, recv.wrId());
      assertArrayEquals("second".getBytes(), OpsItPeer.bytes(s2mem.buffer(), 0, 6));
      assertArrayEquals(written, OpsItPeer.bytes(s2mem.buffer(), 2048, written.length));

      byte[] remote = "read back from the second server".getBytes();
      s2mem.buffer().setBytes(3072, remote);
      qp.postSend(new SendWorkRequest(1).wrId(7).opcode(WorkRequestOpcode.RDMA_READ)
          .flags(SendFlags.SIGNALED).remote(s2mem.stag(), s2mem.address() + 3072)
          .addSge(local, 512, remote.length));
      record(completed, client.take(1, T), WcStatus.SUCCESS);
      assertArrayEquals(remote, OpsItPeer.bytes(local.buffer(), 512, remote.length));

      assertEquals(7, completed.size(), "completions: " + completed);
      completed.forEach((id, n) -> assertEquals(1, n, "wrId " + id + " completed " + n
          + " times"));
      c2.disconnect().get(T, TimeUnit.SECONDS);
      qp.close();
      client.assertQuiet(100);
    }
  }

  @Test
  void aServerQueuePairIsResetAndAcceptsTheNextClient() throws Exception {
    try (OpsItPeer c1 = new OpsItPeer(1, 64); OpsItPeer c2 = new OpsItPeer(1, 64);
        Server server = new Server()) {
      QueuePair sqp = server.peer.newQp(4, 4, 1);
      MemoryRegion smem = server.peer.region(256);
      for (OpsItPeer client : List.of(c1, c2)) {
        QueuePair cqp = client.newQp(4, 4, 1);
        MemoryRegion cmem = client.region(64);
        sqp.postRecv(new RecvWorkRequest(1).wrId(client == c1 ? 1 : 2).addSge(smem, 0, 256));
        CompletableFuture<RdmaConnection> cf = client.device.connect(cqp,
            server.listener.localAddress(), ConnectParams.builder().peerToPeer(true).build());
        RdmaConnection sc = server.accept(sqp).get(T, TimeUnit.SECONDS);
        RdmaConnection cc = cf.get(T, TimeUnit.SECONDS);
        assertEquals(cc.localAddress(), sqp.query().remoteAddress());
        cqp.postSend(new SendWorkRequest(1).wrId(9).opcode(WorkRequestOpcode.SEND)
            .flags(SendFlags.SIGNALED).addSge(cmem, 0, 64));
        assertEquals(WcStatus.SUCCESS, client.take(1, T).get(0).status());
        WorkCompletion got = server.peer.take(1, T).get(0);
        assertEquals(client == c1 ? 1 : 2, got.wrId());
        assertEquals(WcStatus.SUCCESS, got.status());
        // The client disconnects: the server's queue pair goes to ERROR and is reset.
        cc.disconnect().get(T, TimeUnit.SECONDS);
        sc.closeFuture().get(T, TimeUnit.SECONDS);
        assertEquals(QpState.ERROR, sqp.state());
        sqp.reset();
        assertEquals(QpState.INIT, sqp.state());
        cqp.close();
      }
      server.peer.assertQuiet(100);
      sqp.close();
    }
  }

  @Test
  void aHundredResetsAndReconnectsLeaveNothingBehind() throws Exception {
    try (OpsItPeer client = new OpsItPeer(1, 64); Server server = new Server()) {
      QueuePair qp = client.newQp(4, 4, 1);
      MemoryRegion src = client.region(64);
      List<WeakReference<Object>> old = new ArrayList<>();
      long warmHeap = 0;
      long wrId = 0;
      for (int i = 0; i < ROUNDS; i++) {
        // A fresh receive region per round, closed once the queue pair was reset.
        MemoryRegion recv = client.region(256);
        qp.postRecv(new RecvWorkRequest(1).wrId(++wrId).addSge(recv, 0, 256));
        long recvId = wrId;
        CompletableFuture<RdmaConnection> cf = client.device.connect(qp,
            server.listener.localAddress(), ConnectParams.builder().build());
        QueuePair sqp = server.peer.newQp(4, 4, 1);
        MemoryRegion smem = server.peer.region(256);
        sqp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(smem, 0, 256));
        CompletableFuture<RdmaConnection> scf = server.accept(sqp);
        RdmaConnection c = cf.get(T, TimeUnit.SECONDS);
        assertEquals(server.listener.localAddress(), qp.query().remoteAddress());
        qp.postSend(new SendWorkRequest(1).wrId(++wrId).opcode(WorkRequestOpcode.SEND)
            .flags(SendFlags.SIGNALED).addSge(src, 0, 64));
        List<WorkCompletion> sent = client.take(1, T);
        assertEquals(wrId, sent.get(0).wrId());
        assertEquals(WcStatus.SUCCESS, sent.get(0).status());
        assertEquals(64, server.peer.take(1, T).get(0).byteLen());
        RdmaConnection sc = scf.get(T, TimeUnit.SECONDS);
        // The server ends it: the client's receive is flushed, the queue pair reset.
        sqp.close();
        smem.close();
        c.closeFuture().get(T, TimeUnit.SECONDS);
        qp.reset();
        List<WorkCompletion> flushed = client.take(1, T);
        assertEquals(recvId, flushed.get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.get(0).status());
        assertEquals(QpState.INIT, qp.state());
        recv.close();
        old.add(new WeakReference<>(c));
        old.add(new WeakReference<>(sc));
        old.add(new WeakReference<>(recv));
        if (i == ROUNDS / 10) {
          warmHeap = heapAfterGc();
        }
      }
      client.assertQuiet(100);
      long endHeap = heapAfterGc();
      int retained = 0;
      StringBuilder examples = new StringBuilder();
      for (WeakReference<Object> ref : old) {
        Object o = ref.get();
        if (o != null && retained++ < 4) {
          examples.append(' ').append(o);
        }
      }
      System.out.printf("QueuePairResetIT: %d resets, heap after GC %.1f MiB at %d, %.1f MiB at"
          + " the end; %d of %d old connections and closed regions still reachable%n", ROUNDS,
          warmHeap / 1048576.0, ROUNDS / 10, endHeap / 1048576.0, retained, old.size());
      assertEquals(0, retained, "still reachable:" + examples);
      assertTrue(endHeap - warmHeap < 16L << 20, "heap after GC grew from " + warmHeap + " to "
          + endHeap + " octets over " + ROUNDS + " resets");
      qp.close();
    }
  }

  private static void record(Map<Long, Integer> completed, List<WorkCompletion> wcs,
      WcStatus expected) {
    for (WorkCompletion wc : wcs) {
      assertEquals(expected, wc.status(), wc.toString());
      completed.merge(wc.wrId(), 1, Integer::sum);
    }
  }

  private static long heapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
