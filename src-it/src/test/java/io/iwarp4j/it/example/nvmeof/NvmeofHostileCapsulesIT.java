package io.iwarp4j.it.example.nvmeof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.examples.nvmeof.server.NvmeTarget;
import io.iwarp4j.examples.nvmeof.server.TargetConfig;
import io.iwarp4j.examples.nvmeof.wire.CmPrivateData;
import io.iwarp4j.examples.nvmeof.wire.ConnectData;
import io.iwarp4j.examples.nvmeof.wire.Cqe;
import io.iwarp4j.examples.nvmeof.wire.NvmeStatus;
import io.iwarp4j.examples.nvmeof.wire.Opcodes;
import io.iwarp4j.examples.nvmeof.wire.Sgl;
import io.iwarp4j.examples.nvmeof.wire.Sqe;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The target against a hand-driven admin queue built from raw verbs: capsules a correct host
 * never sends get an NVMe status and leave the queue working (a short capsule, a command before
 * Connect, a Connect whose data length or subsystem is wrong, an unknown opcode), and then a
 * correct Connect succeeds on the same queue.
 */
@Timeout(60)
class NvmeofHostileCapsulesIT {
  private static final String NQN = "nqn.2026-11.io.iwarp4j:hostile";
  private static final int RESPONSE = 0;
  private static final int COMMAND = 256;
  private static final int DATA = 1024;

  private final WorkCompletion[] wc = {new WorkCompletion()};
  private ByteBuffer memory;
  private MemoryRegion region;
  private QueuePair qp;
  private CompletionQueue cq;

  @Test
  void badCapsulesGetStatusesAndTheQueueStaysUsable() throws Exception {
    try (NvmeTarget target = NvmeTarget.start(DeviceConfig.defaults(),
        new InetSocketAddress("127.0.0.1", 0), TargetConfig.of(NQN, 1L << 20));
        RdmaDevice device = RdmaDevice.open(DeviceConfig.defaults())) {
      ProtectionDomain pd = device.allocateProtectionDomain();
      cq = device.createCompletionQueue(16);
      qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).build());
      memory = ByteBuffer.allocateDirect(8192).order(ByteOrder.LITTLE_ENDIAN);
      region = pd.register(memory, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
          | AccessFlags.REMOTE_WRITE);
      qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(region, RESPONSE, Cqe.SIZE));
      device.connect(qp, target.address(), ConnectParams.builder()
          .privateData(CmPrivateData.request(0, 32, 31)).ird(16).build())
          .get(10, TimeUnit.SECONDS);

      // 10 octets: not a command.
      assertEquals(NvmeStatus.INVALID_FIELD | NvmeStatus.DNR, exchange(10).status());

      // Identify before Fabrics Connect.
      command().opcode(Opcodes.ADMIN_IDENTIFY).commandId(7).cdw(10, Opcodes.CNS_CONTROLLER);
      Sgl.putKeyed(memory, COMMAND + Sqe.DPTR, region.address() + DATA, 4096, region.stag(),
          false);
      Cqe r = exchange(Sqe.SIZE);
      assertEquals(7, r.commandId());
      assertEquals(NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DNR, r.status());

      // Connect whose data is not 1024 octets.
      connect(100, NQN);
      assertEquals(NvmeStatus.SGL_INVALID_DATA_LENGTH | NvmeStatus.DNR, exchange(Sqe.SIZE).status());
      // Connect to another subsystem.
      connect(ConnectData.SIZE, "nqn.2026-11.io.iwarp4j:other");
      assertEquals(NvmeStatus.CONNECT_INVALID_PARAMETERS | NvmeStatus.DNR,
          exchange(Sqe.SIZE).status());
      assertEquals(0, target.controllerCount());

      // The queue still works: a correct Connect, then an unknown admin opcode.
      connect(ConnectData.SIZE, NQN);
      Cqe ok = exchange(Sqe.SIZE);
      assertEquals(NvmeStatus.SUCCESS, ok.status());
      assertTrue((ok.result() & 0xFFFF) > 0, "a CNTLID");
      assertEquals(1, target.controllerCount());
      command().opcode(0xC5).commandId(9);
      assertEquals(NvmeStatus.INVALID_OPCODE | NvmeStatus.DNR, exchange(Sqe.SIZE).status());
      qp.close();
      cq.close();
    }
  }

  private Sqe command() {
    return new Sqe().wrap(memory, COMMAND).clear().flags(Sqe.FLAG_SGL);
  }

  private void connect(int length, String subNqn) {
    command().opcode(Opcodes.FABRICS).fctype(Opcodes.FCTYPE_CONNECT).commandId(3)
        .connect(0, 31, 0);
    ConnectData.write(memory, DATA, UUID.randomUUID(), ConnectData.ANY_CONTROLLER, subNqn,
        "nqn.2026-11.io.iwarp4j:hostile-host");
    Sgl.putKeyed(memory, COMMAND + Sqe.DPTR, region.address() + DATA, length, region.stag(),
        false);
  }

  // Sends the first {@code length} octets at COMMAND; returns the response.
  private Cqe exchange(int length) throws InterruptedException {
    qp.postSend(new SendWorkRequest(1).opcode(WorkRequestOpcode.SEND).flags(SendFlags.SIGNALED)
        .wrId(2).addSge(region, COMMAND, length));
    boolean sent = false;
    boolean answered = false;
    while (!sent || !answered) {
      assertEquals(1, cq.await(wc, 10, TimeUnit.SECONDS), "a completion within 10 s");
      assertTrue(wc[0].isSuccess(), wc[0].toString());
      if (wc[0].opcode() == WcOpcode.RECV) {
        answered = true;
      } else {
        sent = true;
      }
    }
    ByteBuffer copy = ByteBuffer.allocate(Cqe.SIZE);
    copy.put(0, memory, RESPONSE, Cqe.SIZE);
    qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(region, RESPONSE, Cqe.SIZE));
    return new Cqe().wrap(copy, 0);
  }
}
