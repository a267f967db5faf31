package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A device in {@link PollMode#BUSY_POLL}: its event loops never block, yet a Send, a Write and a
 * Read cross 127.0.0.1 (the device talks to itself: one spinning loop, not two, on a small
 * machine), posts from this thread reach the spinning loop, and closing the device ends its
 * threads. Nothing is timed.
 */
@Timeout(60)
class BusyPollDeviceTest {
  private static final long T = 10;

  private static DeviceConfig busy(Transport transport) {
    return DeviceConfig.builder().transport(transport).eventLoopThreads(1)
        .pollMode(PollMode.BUSY_POLL).build();
  }

  @ParameterizedTest
  @EnumSource(value = Transport.class, names = {"AUTO", "NIO"})
  void sendWriteAndReadRoundTripsThenTheThreadsEnd(Transport transport) throws Exception {
    RdmaDevice device = RdmaDevice.open(busy(transport));
    String prefix = device.name() + "-";
    try {
      assertEquals(PollMode.BUSY_POLL, device.config().pollMode());
      ProtectionDomain pd = device.allocateProtectionDomain();
      CompletionQueue cq = device.createCompletionQueue(64);
      assertEquals(DeviceConfig.DEFAULT_AWAIT_SPIN_NANOS, cq.spinNanos());
      int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
      MemoryRegion a = pd.allocate(4096, access);
      MemoryRegion b = pd.allocate(4096, access);
      QueuePairConfig qpc = QueuePairConfig.builder(cq, cq).maxSendWr(8).maxRecvWr(8).build();
      QueuePair client = device.createQueuePair(pd, qpc);
      QueuePair server = device.createQueuePair(pd, qpc);
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
      CompletableFuture<RdmaConnection> cf = device.connect(client, listener.localAddress(),
          ConnectParams.builder().peerToPeer(true).build());
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      server.postRecv(new RecvWorkRequest(1).wrId(10).addSge(b, 0, 64));
      client.postRecv(new RecvWorkRequest(1).wrId(20).addSge(a, 2048, 64));
      CompletableFuture<RdmaConnection> sf = request.accept(server, AcceptParams.builder().build());
      cf.get(T, TimeUnit.SECONDS);
      sf.get(T, TimeUnit.SECONDS);

      // Send 8 octets and back.
      a.buffer().setLong(0, 0x0102030405060708L);
      client.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(a, 0, 8));
      List<WorkCompletion> got = take(cq, 2);
      assertEquals(List.of(1L, 10L), wrIds(got));
      assertEquals(0x0102030405060708L, b.buffer().getLong(0));
      b.buffer().setLong(8, 42);
      server.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(b, 8, 8));
      got = take(cq, 2);
      assertEquals(List.of(2L, 20L), wrIds(got));
      assertEquals(42, a.buffer().getLong(2048));

      // Write, then Read it back.
      for (int i = 0; i < 512; i++) {
        a.buffer().setByte(64 + i, i * 3 + 1);
      }
      RemoteBuffer rb = b.remote();
      client.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.SIGNALED).remote(rb.stag(), rb.address() + 1024).addSge(a, 64, 512));
      client.postSend(new SendWorkRequest(1).wrId(4).opcode(WorkRequestOpcode.RDMA_READ)
          .flags(SendFlags.SIGNALED).remote(rb.stag(), rb.address() + 1024)
          .addSge(a, 1024, 512));
      got = take(cq, 2);
      assertEquals(List.of(3L, 4L), wrIds(got));
      for (int i = 0; i < 512; i++) {
        assertEquals((byte) (i * 3 + 1), b.buffer().getByte(1024 + i), "written octet " + i);
        assertEquals((byte) (i * 3 + 1), a.buffer().getByte(1024 + i), "read octet " + i);
      }
      assertFalse(loopThreads(prefix).isEmpty(), "the device's event loop thread runs");
    } finally {
      device.close();
    }
    for (Thread t : loopThreads(prefix)) {
      t.join(TimeUnit.SECONDS.toMillis(T));
      assertFalse(t.isAlive(), t.getName() + " still runs after close");
    }
  }

  /**
   * A parked device counts the posts that handed its loop a drain task and the waiters its loop
   * unparked; a queue pair's own snapshot has neither (they are device counts).
   */
  @Test
  void aParkedDeviceCountsItsWakeUps() throws Exception {
    try (RdmaDevice device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build())) {
      ProtectionDomain pd = device.allocateProtectionDomain();
      CompletionQueue cq = device.createCompletionQueue(64);
      MemoryRegion a = pd.allocate(64, AccessFlags.LOCAL_WRITE);
      MemoryRegion b = pd.allocate(64, AccessFlags.LOCAL_WRITE);
      QueuePairConfig qpc = QueuePairConfig.builder(cq, cq).maxSendWr(8).maxRecvWr(8).build();
      QueuePair client = device.createQueuePair(pd, qpc);
      QueuePair server = device.createQueuePair(pd, qpc);
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
      CompletableFuture<RdmaConnection> cf = device.connect(client, listener.localAddress(),
          ConnectParams.builder().peerToPeer(true).build());
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      request.accept(server, AcceptParams.builder().build()).get(T, TimeUnit.SECONDS);
      cf.get(T, TimeUnit.SECONDS);
      loopIdle(client);
      CountersSnapshot before = device.counters(new CountersSnapshot());
      for (int i = 0; i < 3; i++) {
        server.postRecv(new RecvWorkRequest(1).wrId(100 + i).addSge(b, 0, 8));
        client.postSend(new SendWorkRequest(1).wrId(i).opcode(WorkRequestOpcode.SEND)
            .flags(SendFlags.SIGNALED).addSge(a, 0, 8));
        take(cq, 2);
        loopIdle(client);
      }
      CountersSnapshot after = device.counters(new CountersSnapshot());
      // Each round's Send was posted after the loop had run every task queued before (a drain
      // the loop queued itself included, which a post finding it queued would not count): at
      // least one hand-off per round.
      assertTrue(after.loopWakeUps() - before.loopWakeUps() >= 3, after.toString());
      assertTrue(after.pollerWakeUps() >= before.pollerWakeUps());
      CountersSnapshot qp = client.counters(new CountersSnapshot());
      assertEquals(0, qp.loopWakeUps());
      assertEquals(0, qp.pollerWakeUps());
      assertEquals(3, qp.messagesSent(RdmapMessageType.SEND));
    }
  }

  @Test
  void parkedIsTheDefaultAndSpinsNot() {
    DeviceConfig parked = DeviceConfig.defaults();
    assertEquals(PollMode.PARKED, parked.pollMode());
    assertEquals(0, parked.awaitSpinNanos(), "a parked device's await parks at once");
    DeviceConfig spinless = DeviceConfig.builder().pollMode(PollMode.BUSY_POLL)
        .awaitSpin(Duration.ZERO).build();
    assertEquals(0, spinless.awaitSpinNanos());
    DeviceConfig longer = DeviceConfig.builder().pollMode(PollMode.BUSY_POLL)
        .awaitSpin(Duration.ofMillis(3)).build();
    assertEquals(3_000_000, longer.awaitSpinNanos());
    // The spin applies in BUSY_POLL only.
    assertEquals(0, DeviceConfig.builder().awaitSpin(Duration.ofMillis(3)).build()
        .awaitSpinNanos());
    assertThrows(IllegalArgumentException.class,
        () -> DeviceConfig.builder().awaitSpin(Duration.ofSeconds(2)));
    assertThrows(IllegalArgumentException.class,
        () -> DeviceConfig.builder().awaitSpin(Duration.ofNanos(-1)));
    try (RdmaDevice device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build())) {
      assertEquals(0, device.createCompletionQueue(4).spinNanos());
    }
  }

  private static List<WorkCompletion> take(CompletionQueue cq, int n) throws Exception {
    WorkCompletion[] out = QpHarness.newCompletions(n);
    List<WorkCompletion> all = new ArrayList<>();
    while (all.size() < n) {
      int k = cq.await(out, n - all.size(), T, TimeUnit.SECONDS);
      assertTrue(k > 0, "no completion within " + T + " s after " + all);
      for (int i = 0; i < k; i++) {
        assertTrue(out[i].isSuccess(), out[i].toString());
        all.add(new WorkCompletion().copyFrom(out[i]));
      }
    }
    all.sort((x, y) -> Long.compare(x.wrId(), y.wrId()));
    return all;
  }

  private static List<Long> wrIds(List<WorkCompletion> wcs) {
    return wcs.stream().map(WorkCompletion::wrId).toList();
  }

  private static List<Thread> loopThreads(String prefix) {
    List<Thread> found = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(prefix)) {
        found.add(t);
      }
    }
    return found;
  }

  /**
   * Returns once the queue pair's loop has run every task queued on it before this call: a
   * drain still queued or running would make the next post find it and hand off nothing.
   */
  private static void loopIdle(QueuePair qp) throws Exception {
    CompletableFuture<Void> ran = new CompletableFuture<>();
    qp.loop().execute(() -> ran.complete(null));
    ran.get(T, TimeUnit.SECONDS);
  }
}
