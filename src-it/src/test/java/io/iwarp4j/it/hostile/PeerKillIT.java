package io.iwarp4j.it.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.it.ProcessOutput;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
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
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The peer process dies mid-transfer: a {@link KilledPeer} in a separate JVM is killed with
 * {@code destroyForcibly()} (SIGKILL: its kernel closes the socket, with a RST when it held
 * unread octets) while it RDMA-Writes into our region, while it sends the Read Responses we are
 * pulling, and while it Sends into our posted receives. Each ends with DISCONNECTED or ERROR,
 * every posted work request completed exactly once (SUCCESS or WR_FLUSH_ERR; the one send work
 * request in flight may instead carry FATAL_ERR when the connection was lost, see
 * {@code QueuePair.disconnected}), no thread left blocked (bounded joins), no leak (PARANOID),
 * and the device accepting a new connection afterwards. Each mode runs {@code -Dfault.repeat}
 * times (default 3).
 */
@Timeout(900)
class PeerKillIT {
  private static final long T = 30;
  private static final int REPEAT = Integer.getInteger("fault.repeat", 3);
  private static final int WRITE_LEN = 1 << 20;
  private static final int READ_LEN = 1 << 20;
  private static final int SEND_LEN = 256 * 1024;
  private static final int RECVS = 16;
  private static final long HELLO = 1_000_000;

  private RdmaDevice device;
  private ProtectionDomain pd;
  private CompletionQueue cq;
  private MemoryRegion mine;
  private MemoryRegion hello;
  private MemoryRegion credit;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
  private final WorkCompletion[] out = {new WorkCompletion()};

  @BeforeEach
  void setUp() throws Exception {
    device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(1024);
    mine = pd.allocate(RECVS * SEND_LEN, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
    hello = pd.allocate(16, AccessFlags.LOCAL_WRITE);
    credit = pd.allocate(8, AccessFlags.LOCAL_WRITE);
    listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    device.close();
  }

  @Test
  void peerKilledMidWrite() throws Exception {
    for (int round = 0; round < REPEAT; round++) {
      mine.buffer().setZero(0, WRITE_LEN);
      try (Peer peer = new Peer("WRITE", WRITE_LEN)) {
        Outstanding wrs = new Outstanding();
        QueuePair qp = accept(peer, wrs);
        for (int i = 0; i < 4; i++) {
          wrs.postRecv(qp, i, mine, WRITE_LEN + i * 64, 64);
        }
        peer.awaitLine("READY");
        // The Writes land in our region: the peer's pattern appears.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
        long last = 0x5EED_0000_0000_0000L | (WRITE_LEN - 8);
        while (mine.buffer().getLong(WRITE_LEN - 8) != last) {
          assertTrue(System.nanoTime() < deadline, "the peer's Writes never landed");
          Thread.sleep(1);
        }
        peer.kill();
        assertEndedCleanly(qp, wrs, peer);
      }
      assertDeviceStillAccepts();
    }
    System.out.println("PeerKillIT.peerKilledMidWrite: " + REPEAT + " rounds passed");
  }

  @Test
  void peerKilledMidReadResponse() throws Exception {
    MemoryRegion sink = pd.allocate(READ_LEN, AccessFlags.LOCAL_WRITE);
    for (int round = 0; round < REPEAT; round++) {
      try (Peer peer = new Peer("READ", READ_LEN)) {
        Outstanding wrs = new Outstanding();
        QueuePair qp = accept(peer, wrs);
        RemoteBuffer remote = peer.remote;
        peer.awaitLine("READY");
        int inFlight = 0;
        int done = 0;
        long id = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
        while (done < 3) {
          assertTrue(System.nanoTime() < deadline, "only " + done + " Reads completed");
          while (inFlight < 4) {
            wrs.postSend(qp, new SendWorkRequest(1).wrId(id++)
                .opcode(WorkRequestOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .remote(remote.stag(), remote.address()).addSge(sink, 0, READ_LEN));
            inFlight++;
          }
          if (cq.await(out, 1, TimeUnit.SECONDS) == 1) {
            assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
            wrs.completed(out[0]);
            inFlight--;
            done++;
          }
        }
        // Four Reads of 1 MiB outstanding: the peer is answering one of them.
        peer.kill();
        assertEndedCleanly(qp, wrs, peer);
      }
      assertDeviceStillAccepts();
    }
    System.out.println("PeerKillIT.peerKilledMidReadResponse: " + REPEAT + " rounds passed");
    sink.close();
  }

  @Test
  void peerKilledMidSend() throws Exception {
    for (int round = 0; round < REPEAT; round++) {
      try (Peer peer = new Peer("SEND", SEND_LEN)) {
        Outstanding wrs = new Outstanding();
        QueuePair qp = accept(peer, wrs);
        RemoteBuffer remote = peer.remote;
        long recvId = 0;
        for (; recvId < RECVS; recvId++) {
          wrs.postRecv(qp, recvId, mine, (int) recvId * SEND_LEN, SEND_LEN);
        }
        long sendId = 1L << 40;
        grant(qp, wrs, remote, recvId, sendId++);
        int received = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
        while (received < 8) {
          assertTrue(System.nanoTime() < deadline, "only " + received + " Sends arrived");
          if (cq.await(out, 1, TimeUnit.SECONDS) == 0) {
            continue;
          }
          assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
          wrs.completed(out[0]);
          if (out[0].wrId() < (1L << 40)) {
            assertEquals(SEND_LEN, out[0].byteLen(), out[0].toString());
            received++;
            int slot = (int) (out[0].wrId() % RECVS);
            wrs.postRecv(qp, recvId++, mine, slot * SEND_LEN, SEND_LEN);
            grant(qp, wrs, remote, recvId, sendId++);
          }
        }
        peer.kill();
        assertEndedCleanly(qp, wrs, peer);
      }
      assertDeviceStillAccepts();
    }
    System.out.println("PeerKillIT.peerKilledMidSend: " + REPEAT + " rounds passed");
  }

  /** Tells the peer how many receives were posted in all (its Send credit). */
  private void grant(QueuePair qp, Outstanding wrs, RemoteBuffer remote, long receives, long id) {
    credit.putLong(0, receives);
    wrs.postSend(qp, new SendWorkRequest(1).wrId(id).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address())
        .addSge(credit, 0, 8));
  }

  /** Accepts the peer's connection and takes its hello (its region's advertisement). */
  private QueuePair accept(Peer peer, Outstanding wrs) throws Exception {
    events.clear();
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "the peer did not connect within " + T + " s: " + peer.output());
    QueuePair qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(64).maxRecvWr(RECVS + 1).ird(16).ord(8).build());
    wrs.postRecv(qp, HELLO, hello, 0, 16);
    request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
    assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "no hello: " + peer.output());
    assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
    wrs.completed(out[0]);
    byte[] ad = new byte[16];
    hello.buffer().getBytes(0, ad);
    peer.remote = RemoteBuffer.fromBytes(ad, 0);
    return qp;
  }

  /**
   * After the kill: the process is gone, DISCONNECTED or ERROR is reported, every posted work
   * request completes exactly once, nothing more, and the peer's output reader ended.
   */
  private void assertEndedCleanly(QueuePair qp, Outstanding wrs, Peer peer) throws Exception {
    assertTrue(peer.process.waitFor(T, TimeUnit.SECONDS), "the killed peer is still alive");
    ConnectionEvent e;
    do {
      e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "neither DISCONNECTED nor ERROR within " + T + " s");
    } while (e.type() != ConnectionEventType.DISCONNECTED
        && e.type() != ConnectionEventType.ERROR);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    while (!wrs.posted.isEmpty()) {
      long left = deadline - System.nanoTime();
      assertTrue(left > 0, "never completed: " + wrs.posted.keySet());
      if (cq.await(out, 1, Math.min(left, TimeUnit.SECONDS.toNanos(1)),
          TimeUnit.NANOSECONDS) == 1) {
        wrs.completed(out[0]);
      }
    }
    assertEquals(0, cq.await(out, 1, 100, TimeUnit.MILLISECONDS),
        "a completion too many: " + out[0]);
    assertTrue(wrs.fatal <= 1, wrs.fatal + " FATAL_ERR completions");
    assertTrue(peer.output.awaitEnd(T, TimeUnit.SECONDS),
        "the peer's output reader is still blocked");
    qp.close();
  }

  /** A raw client still gets through the MPA startup and is accepted. */
  private void assertDeviceStillAccepts() throws Exception {
    try (HostilePeer next = new HostilePeer(listener.localAddress())) {
      next.sendRequest();
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request after the kill");
      QueuePair qp = device.createQueuePair(pd,
          QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4).build());
      events.clear();
      request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
      next.readReply();
      next.sendFpdu(HostilePeer.tagged(HostilePeer.TAGGED_LAST, HostilePeer.rdmap(0),
          mine.stag(), mine.address(), new byte[0]));
      ConnectionEvent est = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(est, "the next connection was not established");
      assertEquals(ConnectionEventType.ESTABLISHED, est.type(), est.toString());
    }
    ConnectionEvent e;
    do {
      e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "the next connection never ended");
    } while (e.type() != ConnectionEventType.DISCONNECTED);
    events.clear();
  }

  /** Work requests posted and not yet completed, by id; completions checked once each. */
  private static final class Outstanding {
    final Map<Long, Boolean> posted = new HashMap<>();
    int fatal;

    void postRecv(QueuePair qp, long id, MemoryRegion mr, int offset, int length) {
      qp.postRecv(new RecvWorkRequest(1).wrId(id).addSge(mr, offset, length));
      assertEquals(null, posted.put(id, Boolean.FALSE), "id reused " + id);
    }

    void postSend(QueuePair qp, SendWorkRequest wr) {
      qp.postSend(wr);
      assertEquals(null, posted.put(wr.wrId(), Boolean.TRUE), "id reused " + wr.wrId());
    }

    void completed(WorkCompletion wc) {
      Boolean send = posted.remove(wc.wrId());
      assertNotNull(send, "completed twice, or never posted: " + wc);
      WcStatus s = wc.status();
      if (s == WcStatus.FATAL_ERR && send) {
        fatal++;
      } else if (s != WcStatus.SUCCESS && s != WcStatus.WR_FLUSH_ERR) {
        fail("unexpected status: " + wc);
      }
    }
  }

  /** The peer process and a thread reading its output. */
  private final class Peer implements AutoCloseable {
    final Process process;
    final ProcessOutput output;
    RemoteBuffer remote;

    Peer(String mode, int length) throws Exception {
      List<String> cmd = new ArrayList<>();
      cmd.add(ProcessHandle.current().info().command()
          .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
      String leak = System.getProperty("io.netty.leakDetection.level");
      if (leak != null) {
        cmd.add("-Dio.netty.leakDetection.level=" + leak);
      }
      cmd.add("-Xmx128m");
      cmd.add("-XX:TieredStopAtLevel=1");
      cmd.add("-cp");
      cmd.add(System.getProperty("java.class.path"));
      cmd.add(KilledPeer.class.getName());
      cmd.add(mode);
      cmd.add(Integer.toString(((InetSocketAddress) listener.localAddress()).getPort()));
      cmd.add(Integer.toUnsignedString(mine.stag()));
      cmd.add(Long.toString(mine.address()));
      cmd.add(Integer.toString(length));
      process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      output = ProcessOutput.follow(process, "killed-peer-output");
    }

    void awaitLine(String expected) throws InterruptedException {
      output.await(expected::equals, expected, T, TimeUnit.SECONDS);
    }

    void kill() {
      assertTrue(process.isAlive(), "the peer ended before it was killed: " + output());
      process.destroyForcibly();
    }

    String output() {
      return output.text();
    }

    @Override
    public void close() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(T, TimeUnit.SECONDS);
    }
  }
}
