package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scale: 5,000 connections, that is 10,000 queue pairs, between two devices in this JVM over
 * 127.0.0.1 with the device defaults (no {@code maxConnections} set: the default must admit
 * them). Each client queue pair does one 8-octet RDMA Write into its own slot of one server
 * region and one Send into a receive its server queue pair posted; every completion is
 * checked, then both devices close. {@code -Diwarp4j.it.scale.connections=N} in the test JVM
 * changes the count (from Maven: {@code -Diwarp4j.test.jvm.extra=-Diwarp4j.it.scale.connections=N}).
 *
 * <p>Needs two file descriptors per connection (both ends are here) plus headroom: with a lower
 * limit ({@code ulimit -n}) it skips and says why on stderr.
 */
class ManyQueuePairsIT {
  private static final int CONNECTIONS = Integer.getInteger("iwarp4j.it.scale.connections", 5000);
  private static final int CONNECT_BATCH = 64;
  private static final long WAIT_SECONDS = 60;
  private static final int ACCESS =
      AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void tenThousandQueuePairsConnectWriteSendAndClose() throws Exception {
    int n = CONNECTIONS;
    long need = 2L * n + 512;
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean os) {
      long max = os.getMaxFileDescriptorCount();
      long open = os.getOpenFileDescriptorCount();
      if (max - open < need) {
        String why = "ManyQueuePairsIT SKIPPED: " + n + " connections need " + need
            + " file descriptors; the limit is " + max + " with " + open + " open (raise"
            + " `ulimit -n` or lower -Diwarp4j.it.scale.connections)";
        System.err.println(why);
        Assumptions.abort(why);
      }
    }
    DeviceConfig config = DeviceConfig.builder().maxQueuePairs(n).build();
    assertTrue(config.maxConnections() >= n, "default maxConnections " + config.maxConnections()
        + " admits fewer than " + n);
    try (RdmaDevice server = RdmaDevice.open(config); RdmaDevice client = RdmaDevice.open(config)) {
      ProtectionDomain spd = server.allocateProtectionDomain();
      ProtectionDomain cpd = client.allocateProtectionDomain();
      CompletionQueue scq = server.createCompletionQueue(2 * n);
      CompletionQueue ccq = client.createCompletionQueue(2 * n);
      MemoryRegion target = spd.allocate(8 * n, ACCESS);
      MemoryRegion received = spd.allocate(8 * n, ACCESS);
      MemoryRegion source = cpd.allocate(8 * n, ACCESS);
      QueuePair[] clientQps = new QueuePair[n];
      QueuePair[] serverQps = new QueuePair[n];
      ConcurrentLinkedQueue<QueuePair> acceptWith = new ConcurrentLinkedQueue<>();
      RecvWorkRequest recv = new RecvWorkRequest(1);
      for (int i = 0; i < n; i++) {
        clientQps[i] = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq)
            .maxSendWr(2).maxRecvWr(1).maxSendSge(1).maxRecvSge(1).signalAllSends(true)
            .build());
        serverQps[i] = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq)
            .maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1).build());
        serverQps[i].postRecv(recv.reset().wrId(i).addSge(received, 8L * i, 8));
        acceptWith.add(serverQps[i]);
      }
      RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
          (ConnectRequest request) -> {
            QueuePair qp = acceptWith.poll();
            if (qp == null) {
              request.reject(new byte[0]);
            } else {
              request.accept(qp);
            }
          });
      ConnectParams params = ConnectParams.builder().peerToPeer(true).build();
      for (int from = 0; from < n; from += CONNECT_BATCH) {
        List<CompletableFuture<RdmaConnection>> pending = new ArrayList<>();
        for (int i = from; i < Math.min(n, from + CONNECT_BATCH); i++) {
          pending.add(client.connect(clientQps[i], listener.localAddress(), params));
        }
        for (CompletableFuture<RdmaConnection> f : pending) {
          f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      for (QueuePair qp : serverQps) {
        while (qp.state() != QpState.RTS) {
          assertTrue(System.nanoTime() < deadline, "server queue pair " + qp.state());
          Thread.sleep(1);
        }
      }

      RemoteBuffer remote = target.remote();
      SendWorkRequest wr = new SendWorkRequest(1);
      for (int i = 0; i < n; i++) {
        source.putLong(8L * i, 0x5CA1E00000000000L | i);
        clientQps[i].postSend(wr.reset().wrId(i).opcode(WorkRequestOpcode.RDMA_WRITE)
            .addSge(source, 8L * i, 8).remote(remote.stag(), remote.address() + 8L * i));
        clientQps[i].postSend(wr.reset().wrId(n + i).opcode(WorkRequestOpcode.SEND)
            .addSge(source, 8L * i, 8));
      }
      boolean[] clientDone = new boolean[2 * n];
      drain(ccq, 2 * n, wc -> {
        assertTrue(wc.isSuccess(), wc.toString());
        int id = (int) wc.wrId();
        assertEquals(id < n ? WcOpcode.RDMA_WRITE : WcOpcode.SEND, wc.opcode(), wc.toString());
        assertTrue(!clientDone[id], "completed twice: " + wc);
        clientDone[id] = true;
      });
      boolean[] serverDone = new boolean[n];
      drain(scq, n, wc -> {
        assertTrue(wc.isSuccess(), wc.toString());
        assertEquals(WcOpcode.RECV, wc.opcode(), wc.toString());
        assertTrue(!serverDone[(int) wc.wrId()], "completed twice: " + wc);
        serverDone[(int) wc.wrId()] = true;
      });
      // Writes land in the client's own slot; each server queue pair received one Send, from
      // whichever client it was accepted for, so the Sends' values are a permutation.
      boolean[] sent = new boolean[n];
      for (int i = 0; i < n; i++) {
        assertEquals(0x5CA1E00000000000L | i, target.getLong(8L * i), "written by queue pair " + i);
        long v = received.getLong(8L * i);
        int from = (int) (v & 0xFFFF_FFFFL);
        assertTrue((v & ~0xFFFF_FFFFL) == 0x5CA1E00000000000L && from < n && !sent[from],
            "server queue pair " + i + " received " + Long.toHexString(v));
        sent[from] = true;
      }
      listener.close();
    }
  }

  /** Takes {@code count} completions from {@code cq}, each handed to {@code check}. */
  private static void drain(CompletionQueue cq, int count,
      java.util.function.Consumer<WorkCompletion> check) throws InterruptedException {
    WorkCompletion[] wc = new WorkCompletion[256];
    for (int i = 0; i < wc.length; i++) {
      wc[i] = new WorkCompletion();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    int taken = 0;
    while (taken < count) {
      long left = deadline - System.nanoTime();
      assertTrue(left > 0, taken + " of " + count + " completions within " + WAIT_SECONDS + " s");
      int got = cq.await(wc, left, TimeUnit.NANOSECONDS);
      for (int k = 0; k < got; k++) {
        check.accept(wc[k]);
      }
      taken += got;
    }
  }
}
