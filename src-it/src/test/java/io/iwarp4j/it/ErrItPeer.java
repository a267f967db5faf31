package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.Transport;
import io.iwarp4j.verbs.WorkCompletion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Test harness for the error ITs: one side of a connection, a device with one protection
 * domain, one completion queue for sends and receives, and the connection events it heard.
 * Every wait is bounded by {@link #TIMEOUT_SECONDS}.
 */
final class ErrItPeer implements AutoCloseable {
  static final long TIMEOUT_SECONDS = 10;

  final RdmaDevice device;
  final ProtectionDomain pd;
  final CompletionQueue cq;
  final BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
  private final WorkCompletion[] out = {new WorkCompletion()};

  ErrItPeer() {
    device = RdmaDevice.open(DeviceConfig.builder().transport(Transport.AUTO)
        .eventLoopThreads(1).build());
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(256);
  }

  /** A queue pair with room for 16 work requests each way and the given IRD/ORD (-1: default). */
  QueuePair newQp(int ird, int ord) {
    QueuePairConfig.Builder b = QueuePairConfig.builder(cq, cq)
        .maxSendWr(16).maxRecvWr(16).maxSendSge(2).maxRecvSge(2);
    if (ird >= 0) {
      b.ird(ird);
    }
    if (ord >= 0) {
      b.ord(ord);
    }
    return device.createQueuePair(pd, b.build());
  }

  /** A region of this peer's domain with local write and both remote rights. */
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

  /** The next {@code n} completions, in the order polled. */
  List<WorkCompletion> nextCompletions(int n) throws InterruptedException {
    List<WorkCompletion> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(nextCompletion());
    }
    return all;
  }

  /** Asserts that no completion is queued now. */
  void assertNoCompletion() {
    int n = cq.poll(out);
    assertEquals(0, n, () -> "unexpected completion " + out[0]);
  }

  /** The next event, which must be of {@code type}. */
  ConnectionEvent nextEvent(ConnectionEventType type) throws InterruptedException {
    ConnectionEvent e = events.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertNotNull(e, "no " + type + " event within " + TIMEOUT_SECONDS + " s");
    assertEquals(type, e.type(), e.toString());
    return e;
  }

  /** Every event up to and including DISCONNECTED. */
  List<ConnectionEvent> eventsUntilDisconnected() throws InterruptedException {
    List<ConnectionEvent> all = new ArrayList<>();
    while (true) {
      ConnectionEvent e = events.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertNotNull(e, "no DISCONNECTED within " + TIMEOUT_SECONDS + " s after " + all);
      all.add(e);
      if (e.type() == ConnectionEventType.DISCONNECTED) {
        return all;
      }
    }
  }

  @Override
  public void close() {
    device.close();
  }
}
