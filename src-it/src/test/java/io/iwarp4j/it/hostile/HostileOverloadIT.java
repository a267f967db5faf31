package io.iwarp4j.it.hostile;

import static io.iwarp4j.it.hostile.HostilePeer.TAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.UNTAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.rdmap;
import static io.iwarp4j.it.hostile.HostilePeer.tagged;
import static io.iwarp4j.it.hostile.HostilePeer.untagged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.wire.TerminateMessage;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionListener;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkQueueFullException;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Load the application did not provision for, from a raw-TCP peer over 127.0.0.1: a peer that
 * stops reading and then closes instead of resuming, a completion queue too small for the
 * completions the peer's Sends produce, and a receive queue that runs out after some Sends.
 * Each runs {@code -Dfault.repeat} times (default 3) and ends with the device still serving a
 * new connection, and no leak (PARANOID).
 */
@Timeout(600)
class HostileOverloadIT {
  private static final long T = 10;
  private static final int REPEAT = Integer.getInteger("fault.repeat", 3);

  private RdmaDevice device;
  private ProtectionDomain pd;
  private CompletionQueue cq;
  private MemoryRegion target;
  private MemoryRegion recv;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
  private final WorkCompletion[] out = {new WorkCompletion()};

  @BeforeEach
  void setUp() throws Exception {
    device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(64);
    target = pd.allocate(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
    recv = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
    listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    device.close();
  }

  /** Connects a raw peer, accepts it on {@code qp} and brings it to full operation. */
  private HostilePeer connect(QueuePair qp, Runnable beforeAccept) throws Exception {
    events.clear();
    HostilePeer peer = new HostilePeer(listener.localAddress());
    peer.sendRequest();
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    beforeAccept.run();
    request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
    peer.readReply();
    peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), target.stag(), target.address(), new byte[0]));
    ConnectionEvent est = events.poll(T, TimeUnit.SECONDS);
    assertNotNull(est, "not established");
    assertEquals(ConnectionEventType.ESTABLISHED, est.type(), est.toString());
    return peer;
  }

  private ConnectionEvent awaitEvent(ConnectionEventType... types) throws InterruptedException {
    Set<ConnectionEventType> wanted = Set.of(types);
    ConnectionEvent e;
    do {
      e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "none of " + wanted + " within " + T + " s");
    } while (!wanted.contains(e.type()));
    return e;
  }

  /** A raw client still gets through the MPA startup: the event loop is not stuck. */
  private void assertDeviceStillAccepts() throws Exception {
    QueuePair qp = device.createQueuePair(pd,
        QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4).build());
    try (HostilePeer next = connect(qp, () -> { })) {
      next.close();
      awaitEvent(ConnectionEventType.DISCONNECTED);
    }
    qp.close();
  }

  /**
   * The peer stops reading while the device sends 256 KiB RDMA Writes, and then closes
   * (with unread octets in its socket, so its kernel answers with a RST) instead of resuming.
   * Every posted Write completes exactly once: SUCCESS for those that left, WR_FLUSH_ERR for the
   * rest (FATAL_ERR for the one in flight when the connection was lost), then DISCONNECTED or
   * ERROR; the application thread never blocks.
   */
  @Test
  void peerThatStopsReadingThenClosesFailsThePendingWrites() throws Exception {
    int depth = 4;
    int chunk = 256 * 1024;
    MemoryRegion src = pd.allocate(chunk, AccessFlags.LOCAL_WRITE);
    for (int round = 0; round < REPEAT; round++) {
      QueuePair qp = device.createQueuePair(pd,
          QueuePairConfig.builder(cq, cq).maxSendWr(depth).maxRecvWr(1).build());
      HostilePeer peer = connect(qp, () -> { });
      Set<Long> pending = new HashSet<>();
      long next = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
      boolean stalled = false;
      while (!stalled) {
        assertTrue(System.nanoTime() < deadline, "the send queue never filled");
        try {
          qp.postSend(new SendWorkRequest(1).wrId(next).opcode(WorkRequestOpcode.RDMA_WRITE)
              .flags(SendFlags.SIGNALED).remote(0x4242_4200, 0).addSge(src, 0, chunk));
          pending.add(next++);
        } catch (WorkQueueFullException e) {
          if (cq.await(out, 300, TimeUnit.MILLISECONDS) == 0) {
            stalled = true;
          } else {
            assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
            assertTrue(pending.remove(out[0].wrId()), "completed twice: " + out[0]);
          }
        }
      }
      assertTrue(pending.size() >= 1 && pending.size() <= depth, pending + " pending");
      peer.close(); // never resumes reading
      awaitEvent(ConnectionEventType.DISCONNECTED, ConnectionEventType.ERROR);
      int fatal = 0;
      while (!pending.isEmpty()) {
        assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "never completed: " + pending);
        assertTrue(pending.remove(out[0].wrId()), "completed twice: " + out[0]);
        WcStatus s = out[0].status();
        if (s == WcStatus.FATAL_ERR) {
          fatal++;
        } else if (s != WcStatus.SUCCESS && s != WcStatus.WR_FLUSH_ERR) {
          fail("unexpected status: " + out[0]);
        }
      }
      assertTrue(fatal <= 1, fatal + " FATAL_ERR completions");
      assertEquals(0, cq.await(out, 1, 100, TimeUnit.MILLISECONDS), "one too many: " + out[0]);
      qp.close();
      assertDeviceStillAccepts();
    }
    System.out.println("HostileOverloadIT.peerThatStopsReadingThenClosesFailsThePendingWrites: " + REPEAT + " rounds passed");
    src.close();
  }

  /**
   * A completion queue of 4 entries that nobody polls, fed by 16 Sends into 16 posted
   * receives: the fifth completion overruns it. As a verbs CQ does, it latches the overrun,
   * reports it once ({@link CompletionListener#onOverrun}), and the queue pair goes to ERROR:
   * an ERROR event, a Terminate (RDMAP local catastrophic, 0/0/0x00) to the peer, the connection
   * closed. Nothing is dropped silently: the four completions that fit are polled, SUCCESS, in
   * order; the event loop is never blocked (the device serves a new connection afterwards).
   */
  @Test
  void completionQueueTooSmallForTheLoadGoesToError() throws Exception {
    int capacity = 4;
    int sends = 16;
    for (int round = 0; round < REPEAT; round++) {
      AtomicInteger overruns = new AtomicInteger();
      CompletionQueue small = device.createCompletionQueue(capacity, new CompletionListener() {
        @Override
        public void onCompletion(CompletionQueue q) {
          // nobody polls
        }

        @Override
        public void onOverrun(CompletionQueue q) {
          overruns.incrementAndGet();
        }
      });
      QueuePair qp = device.createQueuePair(pd,
          QueuePairConfig.builder(small, small).maxSendWr(4).maxRecvWr(sends).build());
      for (int i = 0; i < sends; i++) {
        qp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(recv, 64 * i, 64));
      }
      try (HostilePeer peer = connect(qp, () -> { })) {
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        for (int i = 0; i < sends; i++) {
          burst.write(HostilePeer.fpdu(untagged(UNTAGGED_LAST, rdmap(3), 0, 0, i + 1, 0,
              new byte[] {(byte) i}), false));
        }
        peer.writeRaw(burst.toByteArray());
        byte[] term = peer.readFpdu();
        assertNotNull(term, "the device closed without a Terminate");
        TerminateMessage t = new TerminateMessage().wrap(Unpooled.wrappedBuffer(term), 0,
            term.length);
        assertEquals(0x00_00_00, t.layer() << 16 | t.errorType() << 8 | t.errorCode(),
            "RDMAP local catastrophic");
        assertTrue(peer.closedByDevice(), "the device sent more after its Terminate");
      }
      // Two ERROR events: the Terminate the abort sent (reported while it is sent) and the
      // overrun that caused it; then DISCONNECTED.
      java.util.List<ConnectionEvent> seen = new java.util.ArrayList<>();
      ConnectionEvent e;
      do {
        e = events.poll(T, TimeUnit.SECONDS);
        assertNotNull(e, "no DISCONNECTED within " + T + " s: " + seen);
        seen.add(e);
      } while (e.type() != ConnectionEventType.DISCONNECTED);
      assertTrue(seen.stream().anyMatch(x -> x.type() == ConnectionEventType.ERROR
          && String.valueOf(x.reason()).contains("completion queue overran (capacity 4)")),
          "no ERROR event naming the overrun: " + seen);
      assertTrue(seen.stream().anyMatch(x -> x.type() == ConnectionEventType.ERROR
          && new TerminateInfo(0, 0, 0, false).equals(x.terminate())),
          "no ERROR event for the Terminate sent: " + seen);
      assertEquals(1, overruns.get(), "overrun reported once");
      assertTrue(small.isOverrun(), "the queue latched its overrun");
      for (int i = 0; i < capacity; i++) {
        assertEquals(1, small.poll(out), "completion " + i + " of those that fit");
        assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
        assertEquals(WcOpcode.RECV, out[0].opcode(), out[0].toString());
        assertEquals(i, out[0].wrId(), "in order");
      }
      assertEquals(0, small.poll(out), "more than the capacity queued: " + out[0]);
      qp.close();
      small.close();
      assertDeviceStillAccepts();
    }
    System.out.println("HostileOverloadIT.completionQueueTooSmallForTheLoadGoesToError: " + REPEAT + " rounds passed");
  }

  /**
   * Three receives posted, five Sends from the peer: the first three arrive (SUCCESS, their
   * octets placed), the fourth draws the Terminate DDP 1/2/0x02 echoing its header (MSN 4), the
   * fifth is never processed; ERROR then DISCONNECTED, and no completion beyond the three.
   */
  @Test
  void receiveQueueExhaustedAfterSomeSendsEndsInATerminate() throws Exception {
    int receives = 3;
    for (int round = 0; round < REPEAT; round++) {
      recv.buffer().setZero(0, 4096);
      QueuePair qp = device.createQueuePair(pd,
          QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4).build());
      for (int i = 0; i < receives; i++) {
        qp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(recv, 64 * i, 64));
      }
      try (HostilePeer peer = connect(qp, () -> { })) {
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        for (int i = 0; i < receives + 2; i++) {
          burst.write(HostilePeer.fpdu(untagged(UNTAGGED_LAST, rdmap(3), 0, 0, i + 1, 0,
              new byte[] {(byte) (0x10 + i), (byte) (0x10 + i)}), false));
        }
        peer.writeRaw(burst.toByteArray());
        byte[] term = peer.readFpdu();
        assertNotNull(term, "the device closed without a Terminate");
        TerminateMessage t = new TerminateMessage().wrap(Unpooled.wrappedBuffer(term), 0,
            term.length);
        assertEquals(0x01_02_02, t.layer() << 16 | t.errorType() << 8 | t.errorCode(),
            "DDP 1/2/0x02 no buffer");
        int terminatedMsn = ByteBuffer.wrap(term,
            TerminateMessage.TERMINATED_DDP_HEADER_OFFSET + 10, 4).getInt();
        assertEquals(receives + 1, terminatedMsn, "the first Send without a receive");
        assertTrue(peer.closedByDevice(), "the device sent more after its Terminate");
      }
      ConnectionEvent e = awaitEvent(ConnectionEventType.ERROR);
      assertEquals(new TerminateInfo(1, 2, 2, false), e.terminate());
      awaitEvent(ConnectionEventType.DISCONNECTED);
      for (int i = 0; i < receives; i++) {
        assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "receive " + i);
        assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
        assertEquals(i, out[0].wrId(), "in order");
        assertEquals(2, out[0].byteLen());
        assertEquals(0x10 + i, recv.buffer().getUnsignedByte(64 * i), "placed octets");
      }
      assertEquals(0, cq.await(out, 1, 100, TimeUnit.MILLISECONDS), "one too many: " + out[0]);
      assertEquals(0, recv.buffer().getUnsignedByte(64 * receives), "nothing placed beyond");
      qp.close();
      assertDeviceStillAccepts();
    }
    System.out.println("HostileOverloadIT.receiveQueueExhaustedAfterSomeSendsEndsInATerminate: " + REPEAT + " rounds passed");
  }
}
