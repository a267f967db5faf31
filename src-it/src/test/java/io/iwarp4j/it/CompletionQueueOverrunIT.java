package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.iwarp4j.verbs.Transport;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A CQ overrun reaches every queue pair on the CQ (as {@code IBV_EVENT_CQ_ERR} does in
 * libibverbs), each on its own event loop: two client queue pairs on two connections, served by
 * two event loops, share one send completion queue of capacity 4 and have a receive queue each.
 * The first posts 8 signaled Writes and nobody polls: the fifth completion is refused. Both queue
 * pairs reach ERROR, each connection reports its ERROR events (the Terminate the abort sends and
 * the cause, the overrun) then DISCONNECTED, on two different event loop threads; {@code onOverrun} is called once; every posted receive of both
 * is flushed exactly once into its own receive queue; the shared queue keeps the four Writes
 * that fit and gets nothing after.
 */
@Timeout(120)
class CompletionQueueOverrunIT {
  private static final long T = ErrItPeer.TIMEOUT_SECONDS;

  private ErrItPeer server;
  private RdmaDevice client;

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** What one connection's event listener heard, with the thread it ran on. */
  private record Heard(ConnectionEvent event, String thread) {
  }

  @Test
  void anOverrunMovesEveryQueuePairOnTheQueueToErrorOnItsOwnLoop() throws Exception {
    server = new ErrItPeer();
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener =
        server.device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    client = RdmaDevice.open(DeviceConfig.builder().transport(Transport.AUTO)
        .eventLoopThreads(2).build());
    ProtectionDomain pd = client.allocateProtectionDomain();
    AtomicInteger overruns = new AtomicInteger();
    CompletionQueue shared = client.createCompletionQueue(4, new CompletionListener() {
      @Override
      public void onCompletion(CompletionQueue cq) {
      }

      @Override
      public void onOverrun(CompletionQueue cq) {
        overruns.incrementAndGet();
      }
    });
    MemoryRegion sink = server.region(4096);
    MemoryRegion src = pd.allocate(4096, io.iwarp4j.verbs.AccessFlags.LOCAL_WRITE);
    List<QueuePair> qps = new ArrayList<>();
    List<CompletionQueue> recvCqs = new ArrayList<>();
    List<BlockingQueue<Heard>> heard = new ArrayList<>();
    for (int c = 0; c < 2; c++) {
      CompletionQueue recvCq = client.createCompletionQueue(64);
      QueuePair qp = client.createQueuePair(pd, QueuePairConfig.builder(shared, recvCq)
          .maxSendWr(16).maxRecvWr(16).build());
      for (int i = 0; i < 3; i++) {
        qp.postRecv(new RecvWorkRequest(1).wrId(100 * (c + 1) + i).addSge(src, 64 * i, 64));
      }
      BlockingQueue<Heard> events = new LinkedBlockingQueue<>();
      var cf = client.connect(qp, listener.localAddress(), ConnectParams.builder()
          .eventListener(e -> events.add(new Heard(e, Thread.currentThread().getName())))
          .build());
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "connect request");
      request.accept(server.newQp(-1, -1),
          AcceptParams.builder().eventListener(server.events::add).build());
      cf.get(T, TimeUnit.SECONDS);
      qps.add(qp);
      recvCqs.add(recvCq);
      heard.add(events);
    }
    for (Heard h : List.of(heard.get(0).take(), heard.get(1).take())) {
      assertEquals(ConnectionEventType.ESTABLISHED, h.event().type(), h.toString());
    }

    for (int i = 0; i < 8; i++) {
      qps.get(0).postSend(new SendWorkRequest(1).wrId(i).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.SIGNALED).remote(sink.stag(), sink.address() + 8 * i)
          .addSge(src, 0, 8));
    }

    List<String> errorThreads = new ArrayList<>();
    for (int c = 0; c < 2; c++) {
      List<Heard> events = new ArrayList<>();
      Heard h;
      do {
        h = heard.get(c).poll(T, TimeUnit.SECONDS);
        assertNotNull(h, "queue pair " + c + ": no DISCONNECTED within " + T + " s after "
            + events);
        events.add(h);
      } while (h.event().type() != ConnectionEventType.DISCONNECTED);
      // The documented pair (docs/reliability.md, HostileOverloadIT): an ERROR event for the
      // Terminate the abort sends and one naming the overrun, then DISCONNECTED; nothing else.
      assertEquals(3, events.size(), events.toString());
      Heard cause = null;
      for (Heard x : events.subList(0, 2)) {
        assertEquals(ConnectionEventType.ERROR, x.event().type(), events.toString());
        if (x.event().terminate() != null) {
          assertEquals(new TerminateInfo(0, 0, 0, false), x.event().terminate(), x.toString());
        } else {
          cause = x;
        }
      }
      assertNotNull(cause, "no ERROR event naming the cause: " + events);
      assertTrue(cause.event().reason().contains("send completion queue overran (capacity 4)"),
          cause.toString());
      errorThreads.add(cause.thread());
      assertEquals(QpState.ERROR, qps.get(c).state());
    }
    assertNotEquals(errorThreads.get(0), errorThreads.get(1),
        "each queue pair went to ERROR on its own event loop");
    assertEquals(1, overruns.get());

    WorkCompletion[] out = new WorkCompletion[16];
    for (int i = 0; i < out.length; i++) {
      out[i] = new WorkCompletion();
    }
    for (int c = 0; c < 2; c++) {
      int n = recvCqs.get(c).poll(out);
      assertEquals(3, n, "queue pair " + c + "'s receives, each flushed once");
      for (int i = 0; i < 3; i++) {
        assertEquals(100 * (c + 1) + i, out[i].wrId(), out[i].toString());
        assertEquals(WcStatus.WR_FLUSH_ERR, out[i].status(), out[i].toString());
      }
    }
    int n = shared.poll(out);
    assertEquals(4, n, "the four Writes that fit");
    for (int i = 0; i < 4; i++) {
      assertEquals(i, out[i].wrId(), out[i].toString());
      assertEquals(WcStatus.SUCCESS, out[i].status(), out[i].toString());
    }
    assertTrue(shared.isOverrun());
    // Nothing more: every flush happened before the events were reported.
    for (CompletionQueue cq : List.of(shared, recvCqs.get(0), recvCqs.get(1))) {
      assertEquals(0, cq.poll(out), cq.toString());
    }
    assertEquals(0, heard.get(0).size() + heard.get(1).size(), "no more events");
  }
}
