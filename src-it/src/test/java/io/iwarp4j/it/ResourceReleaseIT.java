package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that makes a completion queue, a protection domain, a region and a queue pair per
 * connection, and closes them when the connection ends, must not grow (issue 15: every closed
 * {@link CompletionQueue} stayed referenced by its device, ~3.3 KB per connection). 10,000
 * connections one after the other; what is measured is what stays reachable, not time: a weak
 * reference to every closed object, cleared by the collector unless the library still holds it,
 * and the heap in use after a collection.
 */
@Timeout(600)
class ResourceReleaseIT {
  private static final int CONNECTIONS = Integer.getInteger("resourceRelease.connections",
      10_000);
  private static final long T = 20;

  @Test
  void aCompletionQueuePerConnectionIsReleasedWhenClosed() throws Exception {
    DeviceConfig cheap = DeviceConfig.builder().eventLoopThreads(1).build();
    try (RdmaDevice server = RdmaDevice.open(cheap); RdmaDevice client = RdmaDevice.open(cheap)) {
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      ProtectionDomain cpd = client.allocateProtectionDomain();
      List<WeakReference<Object>> closed = new ArrayList<>();
      long warmHeap = 0;
      try (RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add)) {
        for (int i = 0; i < CONNECTIONS; i++) {
          CompletionQueue ccq = client.createCompletionQueue(4);
          QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq)
              .maxSendWr(1).maxRecvWr(1).build());
          var cf = client.connect(cqp, listener.localAddress(),
              ConnectParams.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
          ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
          assertNotNull(request, "no connect request for connection " + i);
          CompletionQueue scq = server.createCompletionQueue(4);
          ProtectionDomain spd = server.allocateProtectionDomain();
          MemoryRegion mr = spd.allocate(64, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
          QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq)
              .maxSendWr(1).maxRecvWr(1).build());
          request.accept(sqp, AcceptParams.builder().privateData(mr.remote().toBytes()).build())
              .get(T, TimeUnit.SECONDS);
          cf.get(T, TimeUnit.SECONDS);

          cqp.close();
          ccq.close();
          sqp.close();
          mr.close();
          spd.close();
          scq.close();
          for (Object o : new Object[] {ccq, cqp, scq, sqp, mr, spd}) {
            closed.add(new WeakReference<>(o));
          }
          if (i == CONNECTIONS / 10) {
            warmHeap = heapAfterGc();
          }
        }
      }
      long endHeap = heapAfterGc();
      int retained = 0;
      StringBuilder examples = new StringBuilder();
      for (WeakReference<Object> ref : closed) {
        Object o = ref.get();
        if (o != null) {
          if (retained++ < 4) {
            examples.append(' ').append(o);
          }
        }
      }
      System.out.printf("ResourceReleaseIT: %d connections, heap after GC %.1f MiB at %d, %.1f"
          + " MiB at the end; %d of %d closed objects still reachable%n", CONNECTIONS,
          warmHeap / 1048576.0, CONNECTIONS / 10, endHeap / 1048576.0, retained, closed.size());
      assertEquals(0, retained, "closed objects still reachable:" + examples);
      assertTrue(endHeap - warmHeap < 16L << 20, "heap after GC grew from " + warmHeap + " to "
          + endHeap + " octets over " + CONNECTIONS + " connections");
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
