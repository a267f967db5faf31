package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** One side of an end-to-end test: a device with one PD, one CQ and its connection events. */
final class Peer implements AutoCloseable {
  static final long TIMEOUT_SECONDS = 5;

  final RdmaDevice device;
  final ProtectionDomain pd;
  final CompletionQueue cq;
  final BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
  private final WorkCompletion[] out = QpHarness.newCompletions(1);

  Peer(Transport transport) {
    this(DeviceConfig.builder().transport(transport).eventLoopThreads(1).build());
  }

  Peer(DeviceConfig config) {
    device = RdmaDevice.open(config);
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(256);
  }

  QueuePair newQp() {
    return device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(16).maxRecvWr(16).maxSendSge(2).maxRecvSge(2).build());
  }

  MemoryRegion region(int length) {
    return pd.allocate(length,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
  }

  /** The next completion, waiting a bounded time. */
  WorkCompletion nextCompletion() throws InterruptedException {
    int n = cq.await(out, TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (n == 0) {
      fail("no completion within " + TIMEOUT_SECONDS + " s");
    }
    return new WorkCompletion().copyFrom(out[0]);
  }

  /** The next {@code n} completions. */
  List<WorkCompletion> nextCompletions(int n) throws InterruptedException {
    List<WorkCompletion> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(nextCompletion());
    }
    return all;
  }

  /** Asserts no completion is queued now. */
  void assertNoCompletion() {
    assertEquals(0, cq.poll(out), "unexpected completion");
  }

  /** The next event, which must be of {@code type}. */
  ConnectionEvent nextEvent(ConnectionEventType type) throws InterruptedException {
    ConnectionEvent e = events.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertNotNull(e, "no " + type + " event within " + TIMEOUT_SECONDS + " s");
    assertEquals(type, e.type(), e.toString());
    return e;
  }

  @Override
  public void close() {
    device.close();
  }
}
