package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionChannel;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
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
 * A completion channel end to end over TCP on 127.0.0.1: a server whose two connections run on
 * two event loops, each with its own receive completion queue, both attached to one channel. One
 * application thread serves both with the libibverbs idiom (wait for an event, acknowledge,
 * re-arm, drain), never polling an idle queue: 5,000 Sends on one connection and 5,000 RDMA
 * Writes with Immediate on the other, each taken exactly once and in order. Flow control is by
 * credits the server sends back, as iWARP has no receiver-not-ready retry.
 */
@Timeout(180)
class CompletionChannelIT {
  private static final long WAIT = 30;
  private static final int PER_CONNECTION = 5_000;
  /** Receives the server keeps posted per queue pair, and the client's initial credit. */
  private static final int RECEIVES = 256;
  /** The server returns a credit message every this many messages taken on a connection. */
  private static final int CREDIT = 128;
  private static final int SLOT = 64;
  private static final int WRITE_SLOTS = 1024;
  private static final int SEND_WR = 64;

  private RdmaDevice serverDevice;
  private RdmaDevice clientDevice;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();

  @BeforeEach
  void setUp() throws Exception {
    serverDevice = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build());
    clientDevice = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build());
    listener = serverDevice.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    listener.close();
    clientDevice.close();
    serverDevice.close();
  }

  /** The server's side of one connection. */
  private static final class ServerLink {
    final QueuePair qp;
    final CompletionQueue recvCq;
    final MemoryRegion receives;
    /** Where the Writes with Immediate land; null on the Send connection. */
    MemoryRegion writeSink;
    long expected; // the next sequence number due
    int sinceCredit;

    ServerLink(QueuePair qp, CompletionQueue recvCq, MemoryRegion receives) {
      this.qp = qp;
      this.recvCq = recvCq;
      this.receives = receives;
    }
  }

  @Test
  void oneThreadServesTwoQueuesThroughOneChannelWithoutLosingOrDuplicatingAMessage()
      throws Exception {
    ProtectionDomain spd = serverDevice.allocateProtectionDomain();
    CompletionChannel channel = serverDevice.createCompletionChannel();
    CompletionQueue serverSendCq = serverDevice.createCompletionQueue(256);
    MemoryRegion writeSink = spd.allocate(WRITE_SLOTS * 8,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
    MemoryRegion creditSource = spd.allocate(8, AccessFlags.LOCAL_WRITE);

    ProtectionDomain cpd = clientDevice.allocateProtectionDomain();
    CompletionQueue clientSendCq = clientDevice.createCompletionQueue(1024);
    CompletionQueue clientRecvCq = clientDevice.createCompletionQueue(256);
    MemoryRegion clientSource = cpd.allocate(2 * SEND_WR * SLOT, AccessFlags.LOCAL_WRITE);
    MemoryRegion creditSink = cpd.allocate(128 * 8, AccessFlags.LOCAL_WRITE);

    ServerLink[] links = new ServerLink[2];
    QueuePair[] clientQps = new QueuePair[2];
    RecvWorkRequest recv = new RecvWorkRequest(1);
    for (int c = 0; c < 2; c++) {
      CompletionQueue recvCq = serverDevice.createCompletionQueue(RECEIVES + 16, channel);
      QueuePair sqp = serverDevice.createQueuePair(spd, QueuePairConfig.builder(serverSendCq,
          recvCq).maxSendWr(16).maxRecvWr(RECEIVES).build());
      MemoryRegion receives = spd.allocate(RECEIVES * SLOT, AccessFlags.LOCAL_WRITE);
      for (int i = 0; i < RECEIVES; i++) {
        sqp.postRecv(recv.reset().wrId(i).addSge(receives, (long) i * SLOT, SLOT));
      }
      links[c] = new ServerLink(sqp, recvCq, receives);
      links[c].writeSink = c == 1 ? writeSink : null;
      QueuePair cqp = clientDevice.createQueuePair(cpd, QueuePairConfig.builder(clientSendCq,
          clientRecvCq).maxSendWr(SEND_WR).maxRecvWr(64).build());
      for (int i = 0; i < 64; i++) {
        cqp.postRecv(recv.reset().wrId(((long) c << 32) | i)
            .addSge(creditSink, (long) (c * 64 + i) * 8, 8));
      }
      clientQps[c] = cqp;
      CompletableFuture<?> connected = clientDevice.connect(cqp, listener.localAddress());
      ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      // Client-server MPA: the server's side completes once the client has sent first.
      request.accept(sqp);
      connected.get(WAIT, TimeUnit.SECONDS);
    }
    assertTrue(links[0].qp.number() != links[1].qp.number());

    // The application thread: serves both receive queues through the channel only.
    CompletableFuture<int[]> served = new CompletableFuture<>();
    Thread server = new Thread(() -> {
      try {
        served.complete(serve(channel, links, serverSendCq, creditSource));
      } catch (Throwable e) {
        served.completeExceptionally(e);
      }
    }, "channel-application-thread");
    server.setDaemon(true);
    server.start();

    // The client: alternate a Send on connection 0 and a Write with Immediate on connection 1,
    // within the credits the server granted.
    RemoteBuffer sink = writeSink.remote();
    int[] credits = {RECEIVES, RECEIVES};
    int[] inFlight = new int[2];
    WorkCompletion[] wc = newCompletions(64);
    SendWorkRequest wr = new SendWorkRequest(1);
    for (int seq = 0; seq < PER_CONNECTION; seq++) {
      for (int c = 0; c < 2; c++) {
        while (credits[c] == 0) {
          int n = clientRecvCq.await(wc, WAIT, TimeUnit.SECONDS);
          assertTrue(n > 0, "no credit from the server within " + WAIT + " s at " + seq);
          for (int i = 0; i < n; i++) {
            assertEquals(WcStatus.SUCCESS, wc[i].status(), wc[i].toString());
            credits[(int) (wc[i].wrId() >>> 32)] += CREDIT;
          }
        }
        while (inFlight[c] == SEND_WR) {
          int n = clientSendCq.await(wc, WAIT, TimeUnit.SECONDS);
          assertTrue(n > 0, "no send completion within " + WAIT + " s");
          for (int i = 0; i < n; i++) {
            assertEquals(WcStatus.SUCCESS, wc[i].status(), wc[i].toString());
            inFlight[(int) (wc[i].wrId() >>> 32)]--;
          }
        }
        long offset = (long) (c * SEND_WR + seq % SEND_WR) * SLOT;
        clientSource.buffer().setLong((int) offset, seq);
        clientSource.buffer().setLong((int) offset + 8, ~seq);
        wr.reset().wrId(((long) c << 32) | seq).flags(SendFlags.SIGNALED);
        if (c == 0) {
          wr.opcode(WorkRequestOpcode.SEND).addSge(clientSource, offset, 16);
        } else {
          wr.opcode(WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE)
              .remote(sink.stag(), sink.address() + (long) (seq % WRITE_SLOTS) * 8)
              .addSge(clientSource, offset, 8).immData(seq);
        }
        clientQps[c].postSend(wr);
        credits[c]--;
        inFlight[c]++;
      }
    }
    int[] result;
    try {
      result = served.get(WAIT * 4, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("the application thread failed", e.getCause());
    }
    for (int c = 0; c < 2; c++) {
      assertTrue(result[c] > 0 && result[c] <= PER_CONNECTION,
          result[c] + " events for connection " + c);
    }
    for (ServerLink l : links) {
      assertEquals(PER_CONNECTION, l.expected);
    }

    // Every event was acknowledged: queues and channel close in order without complaint.
    for (ServerLink l : links) {
      l.qp.close();
      l.recvCq.close();
    }
    channel.close();
    assertTrue(channel.isClosed());
  }

  /**
   * Over TCP, a notification armed for solicited completions only: plain Sends queue no event,
   * the Send with Solicited Event after them does, and the drain then finds all of them in order.
   * (That the plain Sends alone fire nothing is shown deterministically, turn by turn, in
   * CompletionChannelTest.)
   */
  @Test
  void aSolicitedOnlyArmFiresOnTheSendWithSolicitedEvent() throws Exception {
    ProtectionDomain spd = serverDevice.allocateProtectionDomain();
    CompletionChannel channel = serverDevice.createCompletionChannel();
    CompletionQueue recvCq = serverDevice.createCompletionQueue(16, channel);
    QueuePair sqp = serverDevice.createQueuePair(spd, QueuePairConfig.builder(
        serverDevice.createCompletionQueue(16), recvCq).build());
    MemoryRegion receives = spd.allocate(8 * SLOT, AccessFlags.LOCAL_WRITE);
    RecvWorkRequest recv = new RecvWorkRequest(1);
    for (int i = 0; i < 8; i++) {
      sqp.postRecv(recv.reset().wrId(i).addSge(receives, (long) i * SLOT, SLOT));
    }
    ProtectionDomain cpd = clientDevice.allocateProtectionDomain();
    CompletionQueue clientCq = clientDevice.createCompletionQueue(16);
    QueuePair cqp = clientDevice.createQueuePair(cpd,
        QueuePairConfig.builder(clientCq, clientCq).build());
    CompletableFuture<?> connected = clientDevice.connect(cqp, listener.localAddress());
    ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    request.accept(sqp);
    connected.get(WAIT, TimeUnit.SECONDS);

    recvCq.requestNotify(true);
    WorkCompletion[] wc = newCompletions(8);
    assertEquals(0, recvCq.poll(wc));
    MemoryRegion source = cpd.allocate(64, AccessFlags.LOCAL_WRITE);
    SendWorkRequest wr = new SendWorkRequest(1);
    for (int i = 0; i < 4; i++) {
      cqp.postSend(wr.reset().wrId(i).addSge(source, 0, 8).opcode(i < 3
          ? WorkRequestOpcode.SEND : WorkRequestOpcode.SEND_WITH_SOLICITED));
    }
    assertSame(recvCq, channel.awaitEvent(WAIT, TimeUnit.SECONDS));
    channel.ackEvents(recvCq, 1);
    // Receive completions are added in order: the solicited one was last, so all are there.
    assertEquals(4, recvCq.poll(wc));
    for (int i = 0; i < 4; i++) {
      assertEquals(i, wc[i].wrId());
      assertEquals(i == 3, wc[i].solicited(), wc[i].toString());
    }
    assertNull(channel.pollEvent(), "one event for the one solicited Send");
  }

  /**
   * The application thread: arm both queues, drain them, then loop on the channel. Returns the
   * number of events taken per connection.
   */
  private static int[] serve(CompletionChannel channel, ServerLink[] links,
      CompletionQueue sendCq, MemoryRegion creditSource) throws Exception {
    WorkCompletion[] wc = newCompletions(32);
    RecvWorkRequest recv = new RecvWorkRequest(1);
    SendWorkRequest credit = new SendWorkRequest(1);
    int[] events = new int[2];
    int[] unacked = new int[2];
    int creditsOut = 0;
    long taken = 0;
    for (ServerLink l : links) {
      l.recvCq.requestNotify(false);
      taken += drain(l, wc, recv);
    }
    while (taken < 2L * PER_CONNECTION) {
      CompletionQueue fired = channel.awaitEvent(WAIT, TimeUnit.SECONDS);
      assertNotNull(fired, "no event within " + WAIT + " s, " + taken + " messages taken");
      int c = fired == links[0].recvCq ? 0 : 1;
      events[c]++;
      assertTrue(fired == links[c].recvCq, "an event for a queue not served: " + fired);
      if (++unacked[c] == 16) { // acknowledged in batches, as libibverbs users do
        channel.ackEvents(fired, unacked[c]);
        unacked[c] = 0;
      }
      fired.requestNotify(false); // re-arm, then drain: nothing slips between the two
      ServerLink l = links[c];
      taken += drain(l, wc, recv);
      while (l.sinceCredit >= CREDIT) {
        // Drain our own send completions (never blocking on the receive queues) to keep room.
        while (creditsOut >= 8) {
          int n = sendCq.await(wc, WAIT, TimeUnit.SECONDS);
          assertTrue(n > 0, "credit sends did not complete");
          creditsOut -= n;
        }
        creditsOut -= sendCq.poll(wc);
        l.qp.postSend(credit.reset().wrId(c).opcode(WorkRequestOpcode.SEND)
            .flags(SendFlags.SIGNALED).addSge(creditSource, 0, 8));
        creditsOut++;
        l.sinceCredit -= CREDIT;
      }
    }
    for (int c = 0; c < 2; c++) {
      if (unacked[c] > 0) {
        channel.ackEvents(links[c].recvCq, unacked[c]);
      }
    }
    // An event queued by a completion taken before it was waited for may remain: spurious,
    // harmless, and it finds its queue empty.
    CompletionQueue late;
    while ((late = channel.pollEvent()) != null) {
      channel.ackEvents(late, 1);
      assertEquals(0, late.poll(wc), "a message after the last one");
    }
    return events;
  }

  /** Takes everything ready on one connection, checking order and content, and reposts. */
  private static int drain(ServerLink l, WorkCompletion[] wc, RecvWorkRequest recv) {
    int total = 0;
    int n;
    while ((n = l.recvCq.poll(wc)) > 0) {
      for (int i = 0; i < n; i++) {
        WorkCompletion w = wc[i];
        assertEquals(WcStatus.SUCCESS, w.status(), w.toString());
        long slot = w.wrId();
        if (w.opcode() == WcOpcode.RECV) {
          long seq = l.receives.buffer().getLong((int) (slot * SLOT));
          assertEquals(~seq, l.receives.buffer().getLong((int) (slot * SLOT) + 8));
          assertEquals(l.expected, seq, "Sends in order, none lost, none twice");
          assertEquals(16, w.byteLen());
        } else {
          assertEquals(WcOpcode.RECV_IMMEDIATE_DATA, w.opcode(), w.toString());
          assertEquals(l.expected, w.immData(), "Writes with Immediate in order, exactly once");
          assertEquals(l.expected, l.writeSink.buffer().getLong((int) (l.expected % WRITE_SLOTS)
              * 8), "the Write was placed before its Immediate Data completed");
        }
        l.expected++;
        l.sinceCredit++;
        l.qp.postRecv(recv.reset().wrId(slot).addSge(l.receives, slot * SLOT, SLOT));
      }
      total += n;
    }
    return total;
  }

  private static WorkCompletion[] newCompletions(int n) {
    WorkCompletion[] a = new WorkCompletion[n];
    for (int i = 0; i < n; i++) {
      a[i] = new WorkCompletion();
    }
    return a;
  }
}
