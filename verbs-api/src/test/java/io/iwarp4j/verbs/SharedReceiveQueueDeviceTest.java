package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Creating shared receive queues and attaching queue pairs through a device: its limits. */
class SharedReceiveQueueDeviceTest {
  private final RdmaDevice device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1)
      .maxSrqWr(64).maxSge(4).build());

  @AfterEach
  void tearDown() {
    device.close();
  }

  @Test
  void aSharedQueueOfAnotherDomainIsRefusedNamingBothDomains() {
    ProtectionDomain pd1 = device.allocateProtectionDomain();
    ProtectionDomain pd2 = device.allocateProtectionDomain();
    CompletionQueue cq = device.createCompletionQueue(16);
    SharedReceiveQueue srq = pd1.createSharedReceiveQueue(SharedReceiveQueueConfig.builder()
        .build());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> device.createQueuePair(pd2, QueuePairConfig.builder(cq, cq)
            .sharedReceiveQueue(srq).build()));
    assertTrue(e.getMessage().contains(pd1.toString()), e.getMessage());
    assertTrue(e.getMessage().contains(pd2.toString()), e.getMessage());
    assertTrue(pd2.toString().contains("queuePairs=0"), "no queue pair was made: " + pd2);
  }

  @Test
  void theDepthIsBoundedByTheDeviceAndTheQueuePairTakesTheSharedQueuesSges() {
    ProtectionDomain pd = device.allocateProtectionDomain();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder().maxWr(65).build()));
    assertTrue(e.getMessage().contains("65") && e.getMessage().contains("64")
        && e.getMessage().contains("maxSrqWr"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder().maxSge(5).build()));
    assertTrue(e.getMessage().contains("maxSge"), e.getMessage());
    SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder()
        .maxWr(64).maxSge(3).limit(2).build());
    assertEquals(new SharedReceiveQueueAttributes(64, 3, 2, 0), srq.query());
    CompletionQueue cq = device.createCompletionQueue(16);
    QueuePair qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).maxRecvSge(1)
        .sharedReceiveQueue(srq).build());
    assertEquals(3, qp.capabilities().maxRecvSge());
    assertEquals(RdmaDevice.SHARED_RECEIVES_HELD, qp.capabilities().maxRecvWr());
    IllegalStateException busy = assertThrows(IllegalStateException.class, srq::close);
    assertTrue(busy.getMessage().contains("queue pair " + qp.number()), busy.getMessage());
    qp.close();
    srq.close();
    IllegalStateException closed = assertThrows(IllegalStateException.class,
        () -> device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
            .sharedReceiveQueue(srq).build()));
    assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
  }

  @Test
  void closingTheDeviceClosesItsSharedQueues() {
    ProtectionDomain pd = device.allocateProtectionDomain();
    SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder()
        .build());
    CompletionQueue cq = device.createCompletionQueue(16);
    device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).sharedReceiveQueue(srq).build());
    MemoryRegion mr = pd.allocate(64, AccessFlags.LOCAL_WRITE);
    srq.postRecv(new RecvWorkRequest(1).wrId(1).addSge(mr, 0, 64));
    device.close();
    assertTrue(srq.isClosed());
  }
}
