package io.iwarp4j.it.hostile;

import static io.iwarp4j.it.hostile.HostilePeer.TAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.UNTAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.rdmap;
import static io.iwarp4j.it.hostile.HostilePeer.tagged;
import static io.iwarp4j.it.hostile.HostilePeer.untagged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.wire.TerminateMessage;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.MpaSettings;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
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
 * Transport faults a raw-TCP peer inflicts on an established (or half-established) connection
 * of a real {@link RdmaDevice} over 127.0.0.1: a reset, a half-close, a stalled MPA Request
 * (slowloris), a flood of Sends with no receive posted. Each ends with every posted receive
 * completed exactly once (WR_FLUSH_ERR), DISCONNECTED reported, the listener still serving,
 * and no leak (PARANOID detector). Each scenario runs {@code -Dfault.repeat} times (default 3;
 * 20 for the acceptance run in docs/reliability.md).
 */
@Timeout(300)
class HostileFaultIT {
  private static final long T = 10;
  private static final int REPEAT = Integer.getInteger("fault.repeat", 3);
  private static final Duration REQUEST_TIMEOUT = Duration.ofMillis(500);

  private RdmaDevice device;
  private ProtectionDomain pd;
  private CompletionQueue cq;
  private MemoryRegion target;
  private MemoryRegion recv;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();

  @BeforeEach
  void setUp() throws Exception {
    device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1)
        .mpaSettings(MpaSettings.builder().requestTimeout(REQUEST_TIMEOUT).build()).build());
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

  /** A peer whose connection the device accepted with {@code receives} receives posted. */
  private HostilePeer established(int receives) throws Exception {
    HostilePeer peer = new HostilePeer(listener.localAddress());
    peer.sendRequest();
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    QueuePair qp = device.createQueuePair(pd,
        QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4).build());
    for (int i = 0; i < receives; i++) {
      qp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(recv, 64 * i, 64));
    }
    request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
    peer.readReply();
    // A valid zero-length Write: the connection is in full operation on both sides.
    peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), target.stag(), target.address(), new byte[0]));
    return peer;
  }

  /** Waits for DISCONNECTED, then checks every posted receive was flushed exactly once. */
  private void assertDisconnectedAndFlushed(int receives) throws InterruptedException {
    ConnectionEvent e;
    do {
      e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "no DISCONNECTED within " + T + " s");
    } while (e.type() != ConnectionEventType.DISCONNECTED);
    Set<Long> done = new HashSet<>();
    WorkCompletion[] out = {new WorkCompletion()};
    for (int i = 0; i < receives; i++) {
      assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "receive " + i + " not completed");
      assertEquals(WcStatus.WR_FLUSH_ERR, out[0].status(), out[0].toString());
      assertTrue(done.add(out[0].wrId()), "completed twice: " + out[0]);
    }
    assertEquals(0, cq.poll(out), "a completion too many");
    events.clear();
  }

  @Test
  void peerResetsAnEstablishedConnection() throws Exception {
    for (int round = 0; round < REPEAT; round++) {
      HostilePeer peer = established(3);
      peer.resetOnClose();
      peer.close();
      assertDisconnectedAndFlushed(3);
    }
  }

  @Test
  void peerHalfClosesAnEstablishedConnection() throws Exception {
    for (int round = 0; round < REPEAT; round++) {
      try (HostilePeer peer = established(3)) {
        peer.shutdownOutput();
        assertDisconnectedAndFlushed(3);
        assertTrue(peer.closedByDevice(), "the device kept its side open after our FIN");
      }
    }
  }

  @Test
  void stalledMpaRequestTimesOutWhileTheListenerServesOthers() throws Exception {
    for (int round = 0; round < REPEAT; round++) {
      try (HostilePeer slow = new HostilePeer(listener.localAddress())) {
        slow.writeRaw("MPA ID Req".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        // Meanwhile another client connects and is served.
        try (HostilePeer good = established(1)) {
          ConnectionEvent e = events.poll(T, TimeUnit.SECONDS);
          assertNotNull(e, "the good connection was not established");
          assertEquals(ConnectionEventType.ESTABLISHED, e.type(), e.toString());
          good.close();
          assertDisconnectedAndFlushed(1);
        }
        assertTrue(slow.closedByDevice(), "the stalled handshake was not closed");
        assertTrue(requests.isEmpty(), "a half Request reached the application");
      }
    }
  }

  @Test
  void floodOfSendsWithNoReceivePostedEndsInOneTerminate() throws Exception {
    MemorySample cold = MemorySample.take();
    MemorySample warm = cold;
    for (int round = 0; round < REPEAT; round++) {
      try (HostilePeer peer = established(0)) {
        AtomicInteger written = new AtomicInteger();
        Thread flooder = new Thread(() -> {
          byte[] burst = new byte[0];
          try {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < 1000; i++) {
              b.write(HostilePeer.fpdu(untagged(UNTAGGED_LAST, rdmap(3), 0, 0, i + 1, 0,
                  new byte[32]), false));
            }
            burst = b.toByteArray();
            for (int i = 0; i < 100; i++) {
              peer.writeRaw(burst);
              written.addAndGet(1000);
            }
          } catch (IOException expected) {
            // the device terminated and closed the connection
          }
        }, "hostile-flooder");
        flooder.setDaemon(true);
        flooder.start();
        byte[] term = peer.readFpdu();
        assertNotNull(term, "no Terminate");
        TerminateMessage t = new TerminateMessage().wrap(Unpooled.wrappedBuffer(term), 0,
            term.length);
        assertEquals(0x01_02_02, t.layer() << 16 | t.errorType() << 8 | t.errorCode(),
            "DDP 1/2/0x02 no buffer");
        assertEquals(1, t.msn(), "exactly one Terminate, the first");
        assertTrue(peer.closedByDevice(), "the device sent more after its Terminate");
        peer.close();
        flooder.join(TimeUnit.SECONDS.toMillis(T));
        assertFalse(flooder.isAlive(), "the flooder is still blocked writing");
        assertDisconnectedAndFlushed(0);
      }
      if (round == 0) {
        warm = MemorySample.take();
      }
    }
    // Generous bounds: the flood must leave nothing behind, not a few MiB of pool churn.
    MemorySample.assertBounded("100k-Send flood x" + REPEAT, cold, warm, MemorySample.take(),
        32, 32);
  }

  /**
   * The peer stops reading: the device's RDMA Writes stall with at most the SQ depth pending
   * ({@code postSend} beyond it throws {@link io.iwarp4j.verbs.WorkQueueFullException}, nothing
   * queues without bound), then all complete SUCCESS once the peer reads again.
   */
  @Test
  void peerThatStopsReadingStallsTheSendQueueThenResumes() throws Exception {
    int depth = 4;
    int chunk = 256 * 1024;
    MemoryRegion src = pd.allocate(chunk, AccessFlags.LOCAL_WRITE);
    for (int round = 0; round < REPEAT; round++) {
      HostilePeer peer = new HostilePeer(listener.localAddress());
      peer.sendRequest();
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      QueuePair qp = device.createQueuePair(pd,
          QueuePairConfig.builder(cq, cq).maxSendWr(depth).maxRecvWr(1).build());
      request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
      peer.readReply();
      peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), target.stag(), target.address(),
          new byte[0]));
      ConnectionEvent est = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(est, "not established");
      WorkCompletion[] out = {new WorkCompletion()};
      int posted = 0;
      int completed = 0;
      boolean full = false;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
      while (!full) {
        assertTrue(System.nanoTime() < deadline, "the send queue never filled: " + posted
            + " posted, " + completed + " completed");
        try {
          qp.postSend(new io.iwarp4j.verbs.SendWorkRequest(1).wrId(posted)
              .opcode(io.iwarp4j.verbs.WorkRequestOpcode.RDMA_WRITE)
              .flags(io.iwarp4j.verbs.SendFlags.SIGNALED).remote(0x4242_4200, 0)
              .addSge(src, 0, chunk));
          posted++;
        } catch (io.iwarp4j.verbs.WorkQueueFullException e) {
          // Stalled only if nothing completes for a while: the peer's window is closed.
          int n = cq.await(out, 300, TimeUnit.MILLISECONDS);
          if (n == 0) {
            full = true;
          } else {
            assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
            completed++;
          }
        }
      }
      int pending = posted - completed;
      assertTrue(pending >= 1 && pending <= depth,
          pending + " pending work requests, not bounded by the SQ depth " + depth);
      // The peer reads again: every pending Write completes.
      Thread reader = new Thread(() -> {
        try {
          while (peer.readFpdu() != null) {
            // discard
          }
        } catch (IOException closed) {
          // the test closed the socket
        }
      }, "hostile-reader");
      reader.setDaemon(true);
      reader.start();
      while (completed < posted) {
        assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "no completion after resuming");
        assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
        completed++;
      }
      peer.close();
      reader.join(TimeUnit.SECONDS.toMillis(T));
      assertFalse(reader.isAlive(), "reader still blocked");
      assertDisconnectedAndFlushed(0);
    }
  }
}
