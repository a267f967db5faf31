package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.CountersSnapshot;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RdmaRejectedException;
import io.iwarp4j.verbs.RdmapMessageType;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observability end to end between two devices over TCP on 127.0.0.1 (issue 9): a client runs a
 * known mix of operations of known sizes (3 Writes of 1000 octets, 3 Sends and a Send with SE of
 * 100, Immediate Data, 2 FetchAdds, 2 Reads of 500), then a Write to an unknown STag that the
 * server answers with a Terminate (DDP 1/1/0x00). Checked on both sides:
 * <ul>
 *   <li>the exact counters through {@link QueuePair#counters} and {@link RdmaDevice#counters},
 *       before and after the queue pair is closed (a closed queue pair's counters stay in its
 *       device's totals);
 *   <li>the same values through the platform MBeanServer ({@code DeviceConfig.jmx(true)}), and
 *       the queue pair's MBean unregistered on close, the device's on device close;
 *   <li>that a snapshot call allocates nothing (ThreadMXBean's allocated bytes over many calls);
 *   <li>the lifecycle log records (logger {@code io.iwarp4j.lifecycle}): connect, accept,
 *       established, terminate sent/received with layer/type/code, disconnect, and a reject on
 *       both sides, each with its queue pair number and peer address.
 * </ul>
 */
@Timeout(120)
class ObservabilityIT {
  private static final long T = 30;
  private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;

  @Test
  void countersJmxAndLifecycleLogsShowKnownTraffic() throws Exception {
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    PrintStream originalErr = System.err;
    Runnable restoreLevel = lifecycleAtInfo();
    System.setErr(new PrintStream(new TeeStream(logged, originalErr), true,
        StandardCharsets.UTF_8));
    try {
      run();
    } finally {
      System.setErr(originalErr);
      restoreLevel.run();
    }
    checkLog(logged.toString(StandardCharsets.UTF_8));
  }

  private void run() throws Exception {
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    DeviceConfig config = DeviceConfig.builder().eventLoopThreads(1).jmx(true).build();
    RdmaDevice server = RdmaDevice.open(config);
    RdmaDevice client = RdmaDevice.open(config);
    ObjectName serverDeviceName = new ObjectName("io.iwarp4j:type=Device,name=\""
        + server.name() + "\"");
    ObjectName clientDeviceName = new ObjectName("io.iwarp4j:type=Device,name=\""
        + client.name() + "\"");
    try {
      assertTrue(mbs.isRegistered(serverDeviceName), serverDeviceName.toString());
      ProtectionDomain spd = server.allocateProtectionDomain();
      ProtectionDomain cpd = client.allocateProtectionDomain();
      CompletionQueue scq = server.createCompletionQueue(64);
      CompletionQueue ccq = client.createCompletionQueue(64);
      MemoryRegion sink = spd.allocate(8192, ALL);
      MemoryRegion recv = spd.allocate(4096, ALL);
      MemoryRegion src = cpd.allocate(8192, ALL);
      MemoryRegion crecv = cpd.allocate(256, ALL);
      QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq)
          .maxSendWr(16).maxRecvWr(16).build());
      QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq)
          .maxSendWr(16).maxRecvWr(16).build());
      ObjectName cqpName = new ObjectName("io.iwarp4j:type=QueuePair,device=\""
          + client.name() + "\",qp=" + cqp.number());
      assertTrue(mbs.isRegistered(cqpName), cqpName.toString());
      // 4 Sends + 1 Immediate Data consume 5 receives; 2 more are flushed by the Terminate.
      for (int i = 0; i < 7; i++) {
        sqp.postRecv(new RecvWorkRequest(1).wrId(100 + i).addSge(recv, 256L * i, 256));
      }
      cqp.postRecv(new RecvWorkRequest(1).wrId(200).addSge(crecv, 0, 256));

      BlockingQueue<ConnectionEvent> clientEvents = new LinkedBlockingQueue<>();
      BlockingQueue<ConnectionEvent> serverEvents = new LinkedBlockingQueue<>();
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      try (RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add)) {
        CompletableFuture<RdmaConnection> cf = client.connect(cqp, listener.localAddress(),
            ConnectParams.builder().eventListener(clientEvents::add).build());
        ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
        assertNotNull(request, "connect request");
        CompletableFuture<RdmaConnection> sf = request.accept(sqp,
            AcceptParams.builder().eventListener(serverEvents::add).build());
        cf.get(T, TimeUnit.SECONDS);

        SendWorkRequest wr = new SendWorkRequest(1);
        long id = 1;
        for (int i = 0; i < 3; i++) {
          cqp.postSend(wr.reset().wrId(id++).opcode(WorkRequestOpcode.RDMA_WRITE)
              .flags(SendFlags.SIGNALED).remote(sink.stag(), sink.address())
              .addSge(src, 0, 1000));
        }
        for (int i = 0; i < 4; i++) {
          cqp.postSend(wr.reset().wrId(id++).opcode(i == 3
                  ? WorkRequestOpcode.SEND_WITH_SOLICITED : WorkRequestOpcode.SEND)
              .flags(SendFlags.SIGNALED).addSge(src, 1000, 100));
        }
        cqp.postSend(wr.reset().wrId(id++).opcode(WorkRequestOpcode.IMMEDIATE_DATA)
            .flags(SendFlags.SIGNALED).immData(7));
        for (int i = 0; i < 2; i++) {
          cqp.postSend(wr.reset().wrId(id++).opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD)
              .flags(SendFlags.SIGNALED).addData(1).remote(sink.stag(), sink.address() + 4096)
              .localResult(src, 4096 + 8L * i));
        }
        for (int i = 0; i < 2; i++) {
          cqp.postSend(wr.reset().wrId(id++).opcode(WorkRequestOpcode.RDMA_READ)
              .flags(SendFlags.SIGNALED).remote(sink.stag(), sink.address())
              .addSge(src, 2048, 500));
        }
        for (WorkCompletion wc : completions(ccq, 12)) {
          assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
        for (WorkCompletion wc : completions(scq, 5)) {
          assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
        sf.get(T, TimeUnit.SECONDS);

        CountersSnapshot c = cqp.counters(new CountersSnapshot());
        CountersSnapshot s = sqp.counters(new CountersSnapshot());
        assertTraffic(c, s);
        assertTraffic(s, c, true);
        assertEquals(12, c.messagesSent());
        assertEquals(4, c.messagesReceived());
        assertEquals(3000 + 400 + 8 + 104 + 56, c.octetsSent());
        assertEquals(1000 + 24, c.octetsReceived());
        assertEquals(c.toString(), deviceTraffic(client),
            "one queue pair: the device's counters are its");

        // The same through JMX.
        assertEquals(3L, tabular(mbs.getAttribute(cqpName, "MessagesSent"), "RDMA_WRITE"));
        assertEquals(1000L, tabular(mbs.getAttribute(cqpName, "OctetsReceived"),
            "RDMA_READ_RESPONSE"));
        assertEquals(c.octetsSent(), mbs.getAttribute(clientDeviceName, "OctetsSentTotal"));
        assertEquals(2L, tabular(mbs.getAttribute(serverDeviceName, "MessagesReceived"),
            "ATOMIC_REQUEST"));

        assertSnapshotsAllocateNothing(cqp, client);

        // A Write to an STag the server does not know: Terminate DDP 1/1/0x00 (Invalid STag).
        cqp.postSend(wr.reset().wrId(id++).opcode(WorkRequestOpcode.RDMA_WRITE)
            .flags(SendFlags.SIGNALED).remote(sink.stag() ^ 0xFF, sink.address())
            .addSge(src, 0, 16));
        untilDisconnected(clientEvents);
        untilDisconnected(serverEvents);
        drain(ccq, 2); // the faulty Write (success or error) and the flushed receive
        drain(scq, 2); // the two receives left
      }

      CountersSnapshot c = cqp.counters(new CountersSnapshot());
      CountersSnapshot s = sqp.counters(new CountersSnapshot());
      assertEquals(1, s.terminatesSent(1, 1, 0x00), s.toString());
      assertEquals(1, s.messagesSent(RdmapMessageType.TERMINATE));
      assertEquals(1, c.terminatesReceived(1, 1, 0x00), c.toString());
      assertEquals(1, c.messagesReceived(RdmapMessageType.TERMINATE));
      // Control 4 + DDP segment length 2 + the echoed 14-octet tagged DDP header.
      assertEquals(20, s.octetsSent(RdmapMessageType.TERMINATE));
      assertEquals(20, c.octetsReceived(RdmapMessageType.TERMINATE));
      assertEquals(0, s.terminatesReceived(1, 1, 0x00));
      assertEquals(4, c.messagesSent(RdmapMessageType.RDMA_WRITE));
      assertEquals(3, s.messagesReceived(RdmapMessageType.RDMA_WRITE), "refused: not received");
      assertEquals(2, s.flushedWorkRequests(), s.toString());
      assertEquals(0, s.errorCompletions(), s.toString());
      assertEquals(1, s.errorEvents(), s.toString());
      assertEquals(1, c.flushedWorkRequests(), c.toString());
      assertEquals(1, c.errorEvents(), c.toString());
      assertEquals(Map.of("1/1/0x0", 1L),
          tabularMap(mbs.getAttribute(serverDeviceName, "TerminatesSent")));
      assertEquals(Map.of("1/1/0x0", 1L),
          tabularMap(mbs.getAttribute(cqpName, "TerminatesReceived")));

      // Destroyed queue pairs: their MBean goes, their counters stay in the device's totals.
      String before = c.toString();
      cqp.close();
      assertFalse(mbs.isRegistered(cqpName), "queue pair MBean unregistered on close");
      assertEquals(before, deviceTraffic(client));
      QueuePair other = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
      assertEquals(before, deviceTraffic(client), "a new idle queue pair adds nothing");
      other.close();

      rejectOnce(server, client, cpd, ccq);
    } finally {
      client.close();
      server.close();
    }
    assertFalse(mbs.isRegistered(clientDeviceName), "device MBean unregistered on close");
    assertFalse(mbs.isRegistered(serverDeviceName), "device MBean unregistered on close");
  }

  /** {@code a} sent what {@code b} received, as the client's operations make them. */
  private static void assertTraffic(CountersSnapshot client, CountersSnapshot server) {
    assertTraffic(client, server, false);
  }

  private static void assertTraffic(CountersSnapshot x, CountersSnapshot y, boolean xIsServer) {
    CountersSnapshot c = xIsServer ? y : x;
    CountersSnapshot s = xIsServer ? x : y;
    Object[][] clientSends = {
        {RdmapMessageType.RDMA_WRITE, 3, 3000},
        {RdmapMessageType.SEND, 3, 300},
        {RdmapMessageType.SEND_WITH_SE, 1, 100},
        {RdmapMessageType.IMMEDIATE_DATA, 1, 8},
        {RdmapMessageType.ATOMIC_REQUEST, 2, 104},
        {RdmapMessageType.RDMA_READ_REQUEST, 2, 56},
    };
    Object[][] serverSends = {
        {RdmapMessageType.RDMA_READ_RESPONSE, 2, 1000},
        {RdmapMessageType.ATOMIC_RESPONSE, 2, 24},
    };
    for (Object[] row : clientSends) {
      check(c, s, row);
    }
    for (Object[] row : serverSends) {
      check(s, c, row);
    }
    assertEquals(0, c.errorEvents() + s.errorEvents() + c.flushedWorkRequests()
        + s.flushedWorkRequests() + c.errorCompletions() + s.errorCompletions());
  }

  private static void check(CountersSnapshot sender, CountersSnapshot receiver, Object[] row) {
    RdmapMessageType t = (RdmapMessageType) row[0];
    long n = (Integer) row[1];
    long octets = (Integer) row[2];
    assertEquals(n, sender.messagesSent(t), t + " sent: " + sender);
    assertEquals(octets, sender.octetsSent(t), t + " octets sent: " + sender);
    assertEquals(n, receiver.messagesReceived(t), t + " received: " + receiver);
    assertEquals(octets, receiver.octetsReceived(t), t + " octets received: " + receiver);
    assertEquals(0, sender.messagesReceived(t), t + " not received by the sender");
  }

  /** Many snapshot calls after warm-up: the thread's allocated bytes must not grow with them. */
  private static void assertSnapshotsAllocateNothing(QueuePair qp, RdmaDevice device) {
    AllocationMeter meter = AllocationMeter.create();
    CountersSnapshot snap = new CountersSnapshot();
    long sink = 0;
    for (int i = 0; i < 50_000; i++) {
      sink += qp.counters(snap).messagesSent() + device.counters(snap).octetsReceived();
    }
    long empty0 = meter.allocatedBytes();
    long empty1 = meter.allocatedBytes();
    long overhead = empty1 - empty0;
    int calls = 100_000;
    long before = meter.allocatedBytes();
    for (int i = 0; i < calls; i++) {
      sink += qp.counters(snap).messagesSent() + device.counters(snap).octetsReceived();
    }
    long allocated = meter.allocatedBytes() - before - overhead;
    assertTrue(sink > 0);
    // One object per call would be >= 16 bytes x 200 000 calls; allow a stray JIT artefact.
    assertTrue(allocated < 4096, "snapshot calls allocated " + allocated + " bytes over "
        + (2 * calls) + " calls");
  }

  private static void rejectOnce(RdmaDevice server, RdmaDevice client, ProtectionDomain cpd,
      CompletionQueue ccq) throws Exception {
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    try (RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
        requests::add)) {
      QueuePair qp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
      CompletableFuture<RdmaConnection> cf = client.connect(qp, listener.localAddress());
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "connect request");
      request.reject(new byte[] {1, 2, 3});
      try {
        cf.get(T, TimeUnit.SECONDS);
        fail("the connection was rejected");
      } catch (ExecutionException e) {
        assertTrue(e.getCause() instanceof RdmaRejectedException, e.toString());
      }
      qp.close();
    }
  }

  private static void checkLog(String log) {
    System.out.println("lifecycle records:\n" + lifecycleLines(log));
    expect(log, "event=connect device=iwarp4j-\\d+ qp=\\d+ peer=127\\.0\\.0\\.1:\\d+");
    expect(log, "event=accept qp=\\d+ peer=127\\.0\\.0\\.1:\\d+");
    expect(log, "event=established qp=\\d+ peer=127\\.0\\.0\\.1:\\d+ local=127\\.0\\.0\\.1:\\d+"
        + " role=initiator ird=\\d+ ord=\\d+");
    expect(log, "event=established qp=\\d+ peer=127\\.0\\.0\\.1:\\d+ local=127\\.0\\.0\\.1:\\d+"
        + " role=responder ird=\\d+ ord=\\d+");
    expect(log, "event=terminate direction=sent qp=\\d+ peer=127\\.0\\.0\\.1:\\d+ layer=1 type=1"
        + " code=0x0 meaning=\"[^\"]+\"");
    expect(log, "event=terminate direction=received qp=\\d+ peer=127\\.0\\.0\\.1:\\d+ layer=1"
        + " type=1 code=0x0 meaning=\"[^\"]+\"");
    expect(log, "event=disconnect qp=\\d+ peer=127\\.0\\.0\\.1:\\d+ reason=\"");
    expect(log, "event=reject side=local qp=- peer=127\\.0\\.0\\.1:\\d+ privateData=3");
    expect(log, "event=reject side=peer qp=\\d+ peer=127\\.0\\.0\\.1:\\d+ reason=\"");
  }

  private static void expect(String log, String regex) {
    assertTrue(java.util.regex.Pattern.compile("io\\.iwarp4j\\.lifecycle - " + regex)
        .matcher(log).find(), "no lifecycle record matching " + regex + " in:\n"
        + lifecycleLines(log));
  }

  private static String lifecycleLines(String log) {
    StringBuilder b = new StringBuilder();
    log.lines().filter(l -> l.contains("io.iwarp4j.lifecycle")).forEach(l -> b.append(l)
        .append('\n'));
    return b.toString();
  }

  /**
   * Sets the lifecycle logger (slf4j-simple, the tests' binding) to INFO for this test and
   * returns how to restore it. slf4j-simple has no API for that; its level field is set
   * reflectively (slf4j-simple 2.0.x, pinned by the parent POM).
   */
  private static Runnable lifecycleAtInfo() throws ReflectiveOperationException {
    Logger logger = LoggerFactory.getLogger("io.iwarp4j.lifecycle");
    Field level = logger.getClass().getDeclaredField("currentLogLevel");
    level.setAccessible(true);
    int old = level.getInt(logger);
    level.setInt(logger, 20); // SimpleLogger.LOG_LEVEL_INFO
    assertTrue(logger.isInfoEnabled());
    return () -> {
      try {
        level.setInt(logger, old);
      } catch (IllegalAccessException e) {
        throw new AssertionError(e);
      }
    };
  }

  private static long tabular(Object attribute, String key) {
    return tabularMap(attribute).get(key);
  }

  private static Map<String, Long> tabularMap(Object attribute) {
    Map<String, Long> m = new java.util.HashMap<>();
    for (Object row : ((TabularData) attribute).values()) {
      CompositeData d = (CompositeData) row;
      m.put((String) d.get("key"), (Long) d.get("value"));
    }
    return m;
  }

  private static List<WorkCompletion> completions(CompletionQueue cq, int n)
      throws InterruptedException {
    List<WorkCompletion> all = new ArrayList<>();
    WorkCompletion[] out = {new WorkCompletion()};
    while (all.size() < n) {
      if (cq.await(out, T, TimeUnit.SECONDS) == 0) {
        fail("only " + all.size() + " of " + n + " completions: " + all);
      }
      all.add(new WorkCompletion().copyFrom(out[0]));
    }
    return all;
  }

  private static void drain(CompletionQueue cq, int n) throws InterruptedException {
    completions(cq, n);
  }

  private static void untilDisconnected(BlockingQueue<ConnectionEvent> events)
      throws InterruptedException {
    List<ConnectionEvent> seen = new ArrayList<>();
    while (true) {
      ConnectionEvent e = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(e, "no DISCONNECTED after " + seen);
      seen.add(e);
      if (e.type() == ConnectionEventType.DISCONNECTED) {
        return;
      }
    }
  }

  /** Writes to two streams. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public synchronized void write(int x) throws java.io.IOException {
      a.write(x);
      b.write(x);
    }

    @Override
    public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }

    @Override
    public synchronized void flush() throws java.io.IOException {
      a.flush();
      b.flush();
    }
  }

  /**
   * The device's counters as text, without its wake-up counts: those are the device's own (a
   * queue pair's snapshot has none), so they are left out where the device is compared with
   * its queue pairs.
   */
  private static String deviceTraffic(RdmaDevice device) {
    return device.counters(new CountersSnapshot()).toString()
        .replaceAll(", loopWakeUps=\\d+|, pollerWakeUps=\\d+", "");
  }
}
