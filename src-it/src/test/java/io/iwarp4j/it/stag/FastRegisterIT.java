package io.iwarp4j.it.stag;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.FastRegisterRegion;
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
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fast-register regions end to end over TCP on 127.0.0.1, used the way NVMe-oF and iSER use them:
 * the host registers each I/O's buffer with a REG_MR work request and advertises the new STag in
 * a Send posted right behind it (no wait: the send queue executes them in order); the target
 * RDMA-Reads half of the buffer, RDMA-Writes the other half and answers with a Send with
 * Invalidate naming the STag. The host's receive reports the invalidated STag, the region is
 * INVALID, and the next I/O registers other memory under a new key. A Write or Read to an STag the
 * host invalidated (remotely, or by LOCAL_INV) draws the RFC's Terminate and changes no octet.
 */
@Timeout(90)
class FastRegisterIT {
  private static final long WAIT = 30;
  private static final int IO = 4096;
  private static final int HALF = IO / 2;
  private static final int ROUNDS = 50;
  private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ;

  private RdmaDevice hostDevice;
  private RdmaDevice targetDevice;
  private CompletionQueue hostSendCq;
  private CompletionQueue hostRecvCq;
  private CompletionQueue targetSendCq;
  private CompletionQueue targetRecvCq;
  private QueuePair host;
  private QueuePair target;
  private MemoryRegion hostMsgs;
  private MemoryRegion targetMsgs;
  private MemoryRegion targetData;
  private FastRegisterRegion fr;
  /** The host's I/O memory: never registered as a region, only fast-registered. */
  private ByteBuf hostMemory;
  private final BlockingQueue<ConnectionEvent> targetEvents = new LinkedBlockingQueue<>();
  private final WorkCompletion[] out = {new WorkCompletion()};

  @BeforeEach
  void setUp() throws Exception {
    targetDevice = RdmaDevice.open();
    hostDevice = RdmaDevice.open();
    ProtectionDomain tpd = targetDevice.allocateProtectionDomain();
    targetSendCq = targetDevice.createCompletionQueue(64);
    targetRecvCq = targetDevice.createCompletionQueue(64);
    target = targetDevice.createQueuePair(tpd,
        QueuePairConfig.builder(targetSendCq, targetRecvCq).build());
    targetMsgs = tpd.allocate(256, AccessFlags.LOCAL_WRITE);
    targetData = tpd.allocate(2 * IO, AccessFlags.LOCAL_WRITE);
    ProtectionDomain hpd = hostDevice.allocateProtectionDomain();
    hostSendCq = hostDevice.createCompletionQueue(64);
    hostRecvCq = hostDevice.createCompletionQueue(64);
    host = hostDevice.createQueuePair(hpd, QueuePairConfig.builder(hostSendCq, hostRecvCq).build());
    hostMsgs = hpd.allocate(256, AccessFlags.LOCAL_WRITE);
    fr = hpd.allocateFastRegisterRegion(IO);
    hostMemory = PooledByteBufAllocator.DEFAULT.directBuffer(16 * IO, 16 * IO);
    hostMemory.setZero(0, hostMemory.capacity());

    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = targetDevice.listen(new InetSocketAddress("127.0.0.1", 0),
        requests::add);
    var connected = hostDevice.connect(host, listener.localAddress(),
        ConnectParams.builder().peerToPeer(true).build());
    ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    request.accept(target, AcceptParams.builder().eventListener(targetEvents::add).build())
        .get(WAIT, TimeUnit.SECONDS);
    connected.get(WAIT, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() {
    try {
      hostDevice.close();
      targetDevice.close();
    } finally {
      assertEquals(1, hostMemory.refCnt(), "a registration kept the host memory");
      hostMemory.release();
    }
  }

  /** Host side of one I/O: REG_MR, then at once the Send that advertises the new STag. */
  private RemoteBuffer registerAndAdvertise(int offset, long wrId) throws Exception {
    int stag = fr.nextStag();
    host.postSend(new SendWorkRequest(1).wrId(wrId).opcode(WorkRequestOpcode.REG_MR)
        .flags(SendFlags.SIGNALED).fastRegister(fr, stag, hostMemory, offset, IO, ALL));
    RemoteBuffer advert = new RemoteBuffer(stag, hostMemory.memoryAddress() + offset, IO);
    hostMsgs.buffer().setBytes(0, advert.toBytes());
    host.postSend(new SendWorkRequest(1).wrId(wrId + 1).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(hostMsgs, 0, RemoteBuffer.ENCODED_LENGTH));
    expect(hostSendCq, wrId, WcOpcode.REG_MR);
    expect(hostSendCq, wrId + 1, WcOpcode.SEND);
    assertTrue(fr.isValid());
    assertEquals(advert, fr.remote());
    return advert;
  }

  /** Target side: receive the advertisement. */
  private RemoteBuffer receiveAdvert(long wrId) throws Exception {
    expect(targetRecvCq, wrId, WcOpcode.RECV);
    byte[] ad = new byte[RemoteBuffer.ENCODED_LENGTH];
    targetMsgs.buffer().getBytes(0, ad);
    return RemoteBuffer.fromBytes(ad, 0);
  }

  @Test
  void registerPerIoAndThePeerInvalidatesWithSendWithInvalidate() throws Exception {
    Set<Integer> stags = new HashSet<>();
    RemoteBuffer last = null;
    for (int round = 0; round < ROUNDS; round++) {
      int offset = (round % 8) * IO + round; // other memory, odd addresses too
      byte[] hostHalf = pattern(round, HALF);
      byte[] targetHalf = pattern(1000 + round, HALF);
      hostMemory.setBytes(offset, hostHalf);
      targetData.buffer().setBytes(IO, targetHalf);
      target.postRecv(new RecvWorkRequest(1).wrId(round).addSge(targetMsgs, 0, 64));
      host.postRecv(new RecvWorkRequest(1).wrId(round).addSge(hostMsgs, 128, 64));

      RemoteBuffer io = registerAndAdvertise(offset, round * 10L);
      assertTrue(stags.add(io.stag()), "STag repeated: 0x" + Integer.toHexString(io.stag()));
      assertEquals(io, receiveAdvert(round));

      // The target: Read the first half, Write the second, answer with Send with Invalidate.
      target.postSend(new SendWorkRequest(1).wrId(round * 10L + 5)
          .opcode(WorkRequestOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
          .remote(io.stag(), io.address()).addSge(targetData, 0, HALF));
      target.postSend(new SendWorkRequest(1).wrId(round * 10L + 6)
          .opcode(WorkRequestOpcode.RDMA_WRITE).remote(io.stag(), io.address() + HALF)
          .addSge(targetData, IO, HALF));
      target.postSend(new SendWorkRequest(1).wrId(round * 10L + 7)
          .opcode(WorkRequestOpcode.SEND_WITH_INVALIDATE).flags(SendFlags.SIGNALED)
          .invalidateStag(io.stag()).addSge(targetMsgs, 64, 8));
      expect(targetSendCq, round * 10L + 5, WcOpcode.RDMA_READ);
      expect(targetSendCq, round * 10L + 7, WcOpcode.SEND);

      WorkCompletion response = expect(hostRecvCq, round, WcOpcode.RECV);
      assertTrue(response.hasInvalidatedStag(), response.toString());
      assertEquals(io.stag(), response.invalidatedStag());
      assertFalse(fr.isValid(), "the Send with Invalidate left the region valid");

      byte[] read = new byte[HALF];
      targetData.buffer().getBytes(0, read);
      assertArrayEquals(hostHalf, read, "round " + round + ": RDMA Read from the registration");
      byte[] written = new byte[HALF];
      hostMemory.getBytes(offset + HALF, written);
      assertArrayEquals(targetHalf, written, "round " + round + ": RDMA Write into it");
      last = io;
    }
    assertEquals(ROUNDS, stags.size());

    // A Write to the invalidated key: DDP Terminate 1/1/0x00, not one octet placed.
    byte[] before = new byte[hostMemory.capacity()];
    hostMemory.getBytes(0, before);
    target.postSend(new SendWorkRequest(1).wrId(999).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(last.stag(), last.address()).addSge(targetData, 0, 64));
    assertEquals(new TerminateInfo(1, 1, 0x00, true), terminateAtTarget());
    byte[] after = new byte[hostMemory.capacity()];
    hostMemory.getBytes(0, after);
    assertArrayEquals(before, after, "memory written through an invalidated fast-register STag");
  }

  @Test
  void localInvalidateEndsTheRegistrationForTheTarget() throws Exception {
    hostMemory.setBytes(IO, pattern(7, IO));
    target.postRecv(new RecvWorkRequest(1).wrId(1).addSge(targetMsgs, 0, 64));
    target.postRecv(new RecvWorkRequest(1).wrId(2).addSge(targetMsgs, 0, 64));
    host.postRecv(new RecvWorkRequest(1).wrId(1).addSge(hostMsgs, 128, 64));
    RemoteBuffer io = registerAndAdvertise(IO, 10);
    assertEquals(io, receiveAdvert(1));
    target.postSend(new SendWorkRequest(1).wrId(5).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(io.stag(), io.address()).addSge(targetData, 0, 64));
    target.postSend(new SendWorkRequest(1).wrId(6).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(targetMsgs, 64, 8));
    expect(targetSendCq, 6, WcOpcode.SEND);
    WorkCompletion done = expect(hostRecvCq, 1, WcOpcode.RECV);
    assertFalse(done.hasInvalidatedStag());
    assertTrue(fr.isValid(), "a plain Send invalidates nothing");

    host.postSend(new SendWorkRequest(1).wrId(20).opcode(WorkRequestOpcode.LOCAL_INV)
        .flags(SendFlags.SIGNALED).invalidateStag(io.stag()));
    expect(hostSendCq, 20, WcOpcode.LOCAL_INV);
    assertFalse(fr.isValid());
    // The octets stay readable locally until the next registration.
    assertEquals(0, fr.buffer().getByte(0));

    // The target's Read of the invalidated STag: RDMAP Terminate 0/1/0x00 (invalid STag).
    byte[] before = new byte[hostMemory.capacity()];
    hostMemory.getBytes(0, before);
    target.postSend(new SendWorkRequest(1).wrId(7).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(io.stag(), io.address()).addSge(targetData, 0, 64));
    assertEquals(new TerminateInfo(0, 1, 0x00, true), terminateAtTarget());
    WorkCompletion failed = expect(targetSendCq, 7, WcOpcode.RDMA_READ, false);
    assertEquals(WcStatus.REM_ACCESS_ERR, failed.status(), failed.toString());
    byte[] after = new byte[hostMemory.capacity()];
    hostMemory.getBytes(0, after);
    assertArrayEquals(before, after);
    assertNotEquals(io.stag(), fr.nextStag());
  }

  private TerminateInfo terminateAtTarget() throws InterruptedException {
    while (true) {
      ConnectionEvent e = targetEvents.poll(WAIT, TimeUnit.SECONDS);
      assertNotNull(e, "no ERROR event at the target: the invalidated STag was not refused");
      if (e.type() == ConnectionEventType.ERROR) {
        assertNotNull(e.terminate(), "ERROR without a Terminate: " + e);
        return e.terminate();
      }
    }
  }

  private WorkCompletion expect(CompletionQueue cq, long wrId, WcOpcode opcode)
      throws InterruptedException {
    return expect(cq, wrId, opcode, true);
  }

  private WorkCompletion expect(CompletionQueue cq, long wrId, WcOpcode opcode, boolean success)
      throws InterruptedException {
    assertEquals(1, cq.await(out, 1, WAIT, TimeUnit.SECONDS), "no completion for wrId " + wrId);
    WorkCompletion wc = new WorkCompletion().copyFrom(out[0]);
    assertEquals(wrId, wc.wrId(), wc.toString());
    if (success) {
      assertTrue(wc.isSuccess(), wc.toString());
      assertEquals(opcode, wc.opcode(), wc.toString());
    }
    return wc;
  }

  private static byte[] pattern(long seed, int size) {
    byte[] b = new byte[size];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }
}
