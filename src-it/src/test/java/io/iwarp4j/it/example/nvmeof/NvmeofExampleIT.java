package io.iwarp4j.it.example.nvmeof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.examples.nvmeof.host.HostOptions;
import io.iwarp4j.examples.nvmeof.host.HostQueue;
import io.iwarp4j.examples.nvmeof.host.NvmeHost;
import io.iwarp4j.examples.nvmeof.host.NvmeofException;
import io.iwarp4j.examples.nvmeof.server.NvmeTarget;
import io.iwarp4j.examples.nvmeof.server.TargetConfig;
import io.iwarp4j.examples.nvmeof.wire.CmPrivateData;
import io.iwarp4j.examples.nvmeof.wire.NvmeStatus;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaRejectedException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NVMe over Fabrics example of docs/examples/nvmeof, host and target in this JVM over
 * 127.0.0.1 (issue 21, acceptance 3): connect admin + I/O queues with the NVMe/RDMA private
 * data, Identify, 8 MiB of random data written at random LBAs and read back at queue depth 32,
 * keep-alive across an idle period, a silent host torn down by the target's KATO timer, NVMe
 * status codes for bad commands, NVMe/RDMA reject statuses for bad private data, and an orderly
 * disconnect in which every work request completes.
 */
@Timeout(180)
class NvmeofExampleIT {
  private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);
  private static final String NQN = "nqn.2026-11.io.iwarp4j:test";
  private static final long NS_BYTES = 32L << 20;

  private static NvmeTarget target(TargetConfig config) throws Exception {
    return NvmeTarget.start(DeviceConfig.defaults(), ANY_PORT, config);
  }

  private static NvmeHost host(NvmeTarget target, HostOptions options) {
    return NvmeHost.connect(DeviceConfig.defaults(), target.address(), options);
  }

  @Test
  void writeEightMibAtRandomLbasAndReadItBackAtQueueDepth32() throws Exception {
    try (NvmeTarget target = target(TargetConfig.of(NQN, NS_BYTES))) {
      NvmeHost host = host(target, HostOptions.of(NQN));
      assertEquals(NS_BYTES / 512, host.namespace().size(), "Identify Namespace NSZE");
      assertEquals(512, host.namespace().blockSize());
      assertEquals(1, host.controller().namespaces());
      assertEquals(NQN, host.controller().subNqn());
      assertEquals(4096, host.controller().inCapsuleDataSize());
      assertEquals(host.cntlid(), host.controller().cntlid());
      assertEquals(1, target.controllerCount());

      byte[] model = new byte[(int) NS_BYTES];
      Random random = new Random(21);
      long written = 0;
      int inCapsule = 0;
      while (written < 8 << 20) {
        int blocks = 1 + random.nextInt(host.maxIoBytes() / 512);
        long slba = random.nextInt((int) (NS_BYTES / 512) - blocks + 1);
        byte[] chunk = new byte[blocks * 512];
        random.nextBytes(chunk);
        host.write(slba, blocks, chunk, 0);
        System.arraycopy(chunk, 0, model, (int) slba * 512, chunk.length);
        written += chunk.length;
        inCapsule += chunk.length <= 4096 ? 1 : 0;
      }
      assertTrue(inCapsule > 0, "some writes small enough to go in the capsule");

      // Read the whole namespace back, 128 KiB at a time, 32 commands outstanding.
      HostQueue q = host.ioQueue(0);
      int chunkBlocks = host.maxIoBytes() / 512;
      int commands = (int) (NS_BYTES / host.maxIoBytes());
      AtomicLong mismatches = new AtomicLong();
      AtomicLong failures = new AtomicLong();
      CountDownLatch done = new CountDownLatch(commands);
      for (int i = 0; i < commands; i++) {
        int from = i * host.maxIoBytes();
        q.readAsync(1, (long) i * chunkBlocks, chunkBlocks, 512, (status, result, data) -> {
          if (status != 0) {
            failures.incrementAndGet();
          } else {
            for (int k = 0; k < host.maxIoBytes(); k++) {
              if (data.get(k) != model[from + k]) {
                mismatches.incrementAndGet();
              }
            }
          }
          done.countDown();
        });
      }
      assertTrue(done.await(60, TimeUnit.SECONDS), "every read completed");
      assertEquals(0, failures.get(), "failed reads");
      assertEquals(0, mismatches.get(), "mismatched octets");

      // Synchronous reads of odd ranges see the same.
      byte[] back = new byte[7 * 512];
      host.read(12345, 7, back, 0);
      assertTrue(Arrays.equals(back, 0, back.length, model, 12345 * 512, 12352 * 512));

      // Each keyed command's buffer was registered for it alone and the target's Send with
      // Invalidate ended the registration (in-capsule writes register nothing).
      assertTrue(q.registersPerIo());
      assertTrue(q.remoteInvalidations() >= commands, "remote invalidations "
          + q.remoteInvalidations());
      assertEquals(0, q.localInvalidations());
      assertEquals(0, q.unexpectedInvalidations());
      host.close();
      assertEquals(0, host.outstandingWorkRequests(), "every work request completed");
      awaitTrue(() -> target.controllerCount() == 0, "the target ends the association");
    }
  }

  @Test
  void fourIoQueuesWithFourKibBlocksKeyedWritesAndAPreRegisteredPool() throws Exception {
    try (NvmeTarget target = target(TargetConfig.of(NQN, 8L << 20).withBlockSize(4096));
        NvmeHost host = host(target, HostOptions.of(NQN).withIoQueues(4).withQueueEntries(64)
            .withInCapsuleWrites(false).withPerIoRegistration(false))) {
      assertEquals(2048, host.namespace().size());
      assertEquals(4096, host.namespace().blockSize());
      Random random = new Random(4);
      for (int qi = 0; qi < 4; qi++) {
        byte[] data = new byte[3 * 4096];
        random.nextBytes(data);
        host.ioQueue(qi).write(1, 100 * qi, 3, 4096, data, 0, false);
        byte[] back = new byte[data.length];
        host.ioQueue((qi + 1) % 4).read(1, 100 * qi, 3, 4096, back, 0);
        assertTrue(Arrays.equals(data, back), "queue " + qi);
      }
      for (int qi = 0; qi < 4; qi++) {
        assertFalse(host.ioQueue(qi).registersPerIo());
        assertEquals(0, host.ioQueue(qi).remoteInvalidations(), "the pool's key stays valid");
      }
    }
  }

  @Test
  void badCommandsGetTheirNvmeStatus() throws Exception {
    try (NvmeTarget target = target(TargetConfig.of(NQN, 1L << 20));
        NvmeHost host = host(target, HostOptions.of(NQN))) {
      long blocks = host.namespace().size();
      byte[] buf = new byte[8 * 512];
      NvmeofException past = assertThrows(NvmeofException.class,
          () -> host.read(blocks - 4, 8, buf, 0));
      assertEquals(NvmeStatus.LBA_RANGE | NvmeStatus.DNR, past.status());
      NvmeofException write = assertThrows(NvmeofException.class,
          () -> host.write(blocks, 1, buf, 0));
      assertEquals(NvmeStatus.LBA_RANGE | NvmeStatus.DNR, write.status());
      NvmeofException nsid = assertThrows(NvmeofException.class,
          () -> host.ioQueue(0).read(2, 0, 1, 512, buf, 0));
      assertEquals(NvmeStatus.INVALID_NAMESPACE | NvmeStatus.DNR, nsid.status());
      NvmeofException property = assertThrows(NvmeofException.class,
          () -> host.propertyGet(0x40, false));
      assertEquals(NvmeStatus.INVALID_FIELD | NvmeStatus.DNR, property.status());
      // The queue still works after the errors.
      host.read(blocks - 8, 8, buf, 0);
    }
  }

  @Test
  void connectionsWithBadPrivateDataAreRejectedWithTheNvmeRdmaStatus() throws Exception {
    try (NvmeTarget target = target(TargetConfig.of(NQN, 1L << 20));
        RdmaDevice device = RdmaDevice.open(DeviceConfig.defaults())) {
      byte[] badRecfmt = CmPrivateData.request(0, 32, 31);
      badRecfmt[0] = 1;
      assertEquals(CmPrivateData.REJECT_INVALID_RECFMT, rejectStatus(device, target, badRecfmt));
      assertEquals(CmPrivateData.REJECT_INVALID_QID,
          rejectStatus(device, target, CmPrivateData.request(9, 32, 31)));
      assertEquals(CmPrivateData.REJECT_INVALID_HSQSIZE,
          rejectStatus(device, target, CmPrivateData.request(0, 64, 63)));
      assertEquals(CmPrivateData.REJECT_INVALID_HSQSIZE,
          rejectStatus(device, target, CmPrivateData.request(1, 2048, 2047)));
      assertEquals(CmPrivateData.REJECT_INVALID_LENGTH,
          rejectStatus(device, target, new byte[4]));
      assertEquals(5, target.rejectedConnections());
      // The NVMe host reports the status too.
      NvmeofException e = assertThrows(NvmeofException.class,
          () -> host(target, HostOptions.of(NQN).withQueueEntries(1024)));
      assertTrue(e.getMessage().contains("reject status 4"), e.getMessage());
    }
  }

  private static int rejectStatus(RdmaDevice device, NvmeTarget target, byte[] privateData)
      throws Exception {
    var cq = device.createCompletionQueue(4);
    QueuePair qp = device.createQueuePair(device.allocateProtectionDomain(),
        QueuePairConfig.builder(cq, cq).build());
    try {
      ExecutionException e = assertThrows(ExecutionException.class, () -> device.connect(qp,
          target.address(), ConnectParams.builder().privateData(privateData).build())
          .get(10, TimeUnit.SECONDS));
      RdmaRejectedException rejected = assertInstanceOf(RdmaRejectedException.class, e.getCause());
      return CmPrivateData.rejectStatus(rejected.privateData());
    } finally {
      qp.close();
      cq.close();
    }
  }

  @Test
  void keepAliveKeepsAnIdleAssociation() throws Exception {
    try (NvmeTarget target = target(TargetConfig.of(NQN, 1L << 20));
        NvmeHost host = host(target, HostOptions.of(NQN).withKeepAlive(600, true))) {
      Thread.sleep(3000); // idle: five KATOs with no I/O
      assertEquals(0, target.keepAliveExpirations());
      assertTrue(host.keepAlivesCompleted() >= 4, "Keep Alives: " + host.keepAlivesCompleted());
      assertEquals(0, host.keepAlivesFailed());
      assertTrue(host.isConnected());
      byte[] buf = new byte[512];
      host.write(0, 1, buf, 0);
      host.read(0, 1, buf, 0);
    }
  }

  @Test
  void theTargetTearsDownASilentHostAfterKato() throws Exception {
    try (NvmeTarget target = target(TargetConfig.of(NQN, 1L << 20))) {
      // No quiet period after the MPA Reply (iwarp4j to iwarp4j needs none): the 500 ms KATO
      // runs from the admin Connect, and a slow first connection must not spend it.
      NvmeHost host = host(target, HostOptions.of(NQN).withKeepAlive(500, false)
          .withFirstFpduDelay(0));
      awaitTrue(() -> target.keepAliveExpirations() == 1, "the target's KATO expiry");
      awaitTrue(() -> !host.isConnected(), "the host sees its queues disconnected");
      assertEquals(0, target.controllerCount());
      byte[] buf = new byte[512];
      assertThrows(NvmeofException.class, () -> host.read(0, 1, buf, 0));
      host.close();
      assertEquals(0, host.outstandingWorkRequests(), "every work request completed or flushed");
    }
  }

  private static void awaitTrue(BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        assertFalse(true, "not within 20 s: " + what);
      }
      Thread.sleep(20);
    }
  }
}
