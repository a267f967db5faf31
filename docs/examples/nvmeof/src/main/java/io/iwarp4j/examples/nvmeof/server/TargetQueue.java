package io.iwarp4j.examples.nvmeof.server;

import io.iwarp4j.examples.nvmeof.wire.CmPrivateData;
import io.iwarp4j.examples.nvmeof.wire.ConnectData;
import io.iwarp4j.examples.nvmeof.wire.Cqe;
import io.iwarp4j.examples.nvmeof.wire.NvmeStatus;
import io.iwarp4j.examples.nvmeof.wire.Opcodes;
import io.iwarp4j.examples.nvmeof.wire.Properties;
import io.iwarp4j.examples.nvmeof.wire.Sgl;
import io.iwarp4j.examples.nvmeof.wire.Sqe;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionListener;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One NVMe/RDMA queue on the target: a queue pair whose receives take command capsules, and
 * the commands' execution. Everything after the accept runs on the connection's event loop
 * (the completion queue's listener), so the per-command state needs no locks.
 *
 * <p>A command lives in its receive slot {@code s} (command capsule {@code s}): its data moves
 * by RDMA Write from the namespace or a scratch buffer into the host's keyed SGL (Read,
 * Identify, Get Log Page), by RDMA Read from the host into the namespace or scratch (Write,
 * Connect data), or comes in the capsule itself (in-capsule Write). Then the receive is posted
 * again and the 16-octet response goes by Send, or by Send with Invalidate naming the host's key
 * when its SGL said so (subtype 0xF), as Linux nvmet-rdma answers. The Send follows the RDMA
 * Write on the same queue pair, so the host sees the data before the completion.
 */
final class TargetQueue implements CompletionListener {
  private static final System.Logger LOG = System.getLogger(TargetQueue.class.getName());
  private static final int SCRATCH = 4096;
  // wrId: kind in bits 63:32, slot or response buffer in 31:0.
  private static final long RECV = 0;
  private static final long RESPONSE = 1L << 32;
  private static final long READ_DATA = 2L << 32;
  private static final long WRITE_DATA = 3L << 32;
  // What a slot's RDMA Read was for.
  private static final int AFTER_READ_WRITE = 1;
  private static final int AFTER_READ_CONNECT = 2;

  private final NvmeTarget target;
  private final Namespace ns;
  private final int qid;
  private final int entries;
  private final int capsuleSize;
  private final CompletionQueue cq;
  private final QueuePair qp;
  private final ByteBuffer capsules;
  private final MemoryRegion capsuleRegion;
  private final ByteBuffer responses;
  private final MemoryRegion responseRegion;
  private final ByteBuffer scratch;
  private final MemoryRegion scratchRegion;
  private final Sqe sqe = new Sqe();
  private final Cqe cqe = new Cqe();
  private final SendWorkRequest wr = new SendWorkRequest(1);
  private final RecvWorkRequest recv = new RecvWorkRequest(1);
  private final WorkCompletion[] batch = new WorkCompletion[32];
  // Per slot: the response to send, and what its RDMA Read was for.
  private final int[] slotCid;
  private final int[] slotStatus;
  private final long[] slotResult;
  private final int[] slotInvalidate; // the key to invalidate, when slotHasInvalidate
  private final boolean[] slotHasInvalidate;
  private final int[] slotAfterRead;
  // Response buffers: twice the slots, so a response waits only if Send completions lag.
  private final int[] freeResponses;
  private int freeResponseCount;
  private final int[] waiting; // slots whose response waits for a buffer, a ring
  private int waitingHead;
  private int waitingCount;
  private int sqHead;
  private Controller controller;
  private volatile RdmaConnection connection;
  private volatile boolean disconnecting;

  TargetQueue(NvmeTarget target, int qid, int entries, int inCapsuleDataSize) {
    this.target = target;
    this.ns = target.namespace();
    this.qid = qid;
    this.entries = entries;
    this.capsuleSize = Sqe.SIZE + inCapsuleDataSize;
    int responseCount = 2 * entries;
    cq = target.device().createCompletionQueue(entries + 2 * entries + responseCount + 8);
    try {
      qp = target.device().createQueuePair(target.pd(), QueuePairConfig.builder(cq, cq)
          .maxRecvWr(entries).maxSendWr(2 * entries + 4).build());
    } catch (RuntimeException e) {
      cq.close();
      throw e;
    }
    capsules = ByteBuffer.allocateDirect(entries * capsuleSize).order(ByteOrder.LITTLE_ENDIAN);
    capsuleRegion = target.pd().register(capsules, AccessFlags.LOCAL_WRITE);
    responses = ByteBuffer.allocateDirect(responseCount * Cqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
    responseRegion = target.pd().register(responses, AccessFlags.LOCAL_WRITE);
    scratch = ByteBuffer.allocateDirect(entries * SCRATCH).order(ByteOrder.LITTLE_ENDIAN);
    scratchRegion = target.pd().register(scratch, AccessFlags.LOCAL_WRITE);
    slotCid = new int[entries];
    slotStatus = new int[entries];
    slotResult = new long[entries];
    slotInvalidate = new int[entries];
    slotHasInvalidate = new boolean[entries];
    slotAfterRead = new int[entries];
    freeResponses = new int[responseCount];
    for (int i = 0; i < responseCount; i++) {
      freeResponses[freeResponseCount++] = i;
    }
    waiting = new int[entries];
    for (int i = 0; i < batch.length; i++) {
      batch[i] = new WorkCompletion();
    }
  }

  /** Posts a receive for every command capsule, then accepts with CRQSIZE = the entries. */
  void accept(ConnectRequest request) {
    for (int s = 0; s < entries; s++) {
      postRecv(s);
    }
    cq.listener(this).requestNotify(false);
    // The target issues the RDMA Reads: as many as the host can take (its IRD), at most 16.
    int ord = Math.max(1, Math.min(16, request.peerIrd()));
    request.accept(qp, AcceptParams.builder().privateData(CmPrivateData.accept(entries))
        .ord(ord).build()).whenComplete((c, failure) -> {
          if (failure != null) {
            release();
          } else {
            connection = c;
            if (disconnecting) {
              c.disconnect();
            }
            c.closeFuture().whenComplete((ignored, error) -> onClosed());
          }
        });
  }

  /** Disconnects (keep-alive expiry, the admin queue going, the target closing). */
  void disconnect() {
    disconnecting = true;
    RdmaConnection c = connection;
    if (c != null) {
      c.disconnect();
    }
  }

  private void onClosed() {
    Controller c = controller;
    if (c != null && qid == 0) {
      target.tearDown(c); // the admin queue ends the association
    }
    release();
  }

  // Closing the queue pair flushes what is still posted before the regions go.
  private void release() {
    qp.close();
    cq.close();
    capsuleRegion.close();
    responseRegion.close();
    scratchRegion.close();
  }

  @Override
  public void onCompletion(CompletionQueue q) {
    drain();
    if (!q.isClosed()) {
      q.requestNotify(false);
      drain(); // one added between the drain and the arming
    }
  }

  private void drain() {
    for (int n; (n = cq.poll(batch)) > 0; ) {
      for (int i = 0; i < n; i++) {
        onWorkCompletion(batch[i]);
      }
    }
  }

  private void onWorkCompletion(WorkCompletion wc) {
    long kind = wc.wrId() & 0xFFFF_FFFF_0000_0000L;
    int index = (int) wc.wrId();
    if (!wc.isSuccess()) {
      // Flushed: the host left, the usual end of a queue.
      if (!disconnecting && wc.status() != WcStatus.WR_FLUSH_ERR) {
        LOG.log(System.Logger.Level.WARNING, "nvmeof target queue {0}: {1}", qid, wc);
        disconnect();
      }
      return;
    }
    if (kind == RECV && wc.opcode() == WcOpcode.RECV) {
      onCommand(index, (int) wc.byteLen());
    } else if (kind == RESPONSE) {
      freeResponses[freeResponseCount++] = index;
      if (waitingCount > 0) {
        int slot = waiting[waitingHead];
        waitingHead = (waitingHead + 1) % waiting.length;
        waitingCount--;
        sendResponse(slot);
      }
    } else if (kind == READ_DATA) {
      onHostDataRead(index);
    }
  }

  // ---- commands ----

  private void onCommand(int slot, int length) {
    int at = slot * capsuleSize;
    sqe.wrap(capsules, at);
    int cid = sqe.commandId();
    slotCid[slot] = cid;
    slotResult[slot] = 0;
    slotHasInvalidate[slot] = false;
    sqHead = (sqHead + 1) % entries;
    if (length < Sqe.SIZE) {
      complete(slot, NvmeStatus.INVALID_FIELD | NvmeStatus.DNR);
      return;
    }
    Controller c = controller;
    if (c != null) {
      c.touch();
    }
    int opcode = sqe.opcode();
    int sglId = Sgl.identifier(capsules, at + Sqe.DPTR);
    if (Sgl.isKeyed(capsules, at + Sqe.DPTR) && sglId == Sgl.KEYED_INVALIDATE) {
      slotHasInvalidate[slot] = true;
      slotInvalidate[slot] = Sgl.key(capsules, at + Sqe.DPTR);
    }
    if (opcode == Opcodes.FABRICS) {
      onFabrics(slot, at, length);
    } else if (c == null || c.isTornDown()) {
      complete(slot, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DNR);
    } else if (qid == 0) {
      onAdmin(slot, at, c);
    } else if (!c.isReady()) {
      complete(slot, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DNR);
    } else {
      onIo(slot, at, length);
    }
  }

  private void onFabrics(int slot, int at, int length) {
    switch (sqe.fctype()) {
      case Opcodes.FCTYPE_CONNECT -> {
        if (controller != null) {
          complete(slot, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DNR);
          return;
        }
        withHostData(slot, at, length, ConnectData.SIZE, AFTER_READ_CONNECT);
      }
      case Opcodes.FCTYPE_PROPERTY_GET -> {
        Controller c = controller;
        if (c == null || qid != 0) {
          complete(slot, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DNR);
          return;
        }
        long value;
        switch (sqe.propertyOffset()) {
          case Properties.CAP -> value = target.capability();
          case Properties.VS -> value = Properties.VERSION_1_3;
          case Properties.CC -> value = c.cc();
          case Properties.CSTS -> value = c.csts();
          default -> {
            complete(slot, NvmeStatus.INVALID_FIELD | NvmeStatus.DNR);
            return;
          }
        }
        slotResult[slot] = value;
        complete(slot, NvmeStatus.SUCCESS);
      }
      case Opcodes.FCTYPE_PROPERTY_SET -> {
        Controller c = controller;
        if (c == null || qid != 0) {
          complete(slot, NvmeStatus.COMMAND_SEQUENCE_ERROR | NvmeStatus.DNR);
        } else if (sqe.propertyOffset() != Properties.CC) {
          complete(slot, NvmeStatus.INVALID_FIELD | NvmeStatus.DNR);
        } else {
          c.writeCc((int) sqe.propertyValue());
          complete(slot, NvmeStatus.SUCCESS);
        }
      }
      default -> complete(slot, NvmeStatus.INVALID_OPCODE | NvmeStatus.DNR);
    }
  }

  /**
   * Gets a command's host-to-controller data into scratch slot {@code slot} (or the namespace
   * for Write, see {@link #onIo}), then continues with {@code after}: from the capsule at once,
   * or by an RDMA Read of the host's keyed SGL.
   */
  private void withHostData(int slot, int at, int length, int expected, int after) {
    int d = at + Sqe.DPTR;
    long len = Sgl.length(capsules, d);
    if (len != expected) {
      complete(slot, NvmeStatus.SGL_INVALID_DATA_LENGTH | NvmeStatus.DNR);
      return;
    }
    if (Sgl.identifier(capsules, d) == Sgl.INLINE_OFFSET) {
      long offset = Sgl.address(capsules, d);
      if (offset < 0 || Sqe.SIZE + offset + len > length) {
        complete(slot, NvmeStatus.SGL_INVALID_DATA_LENGTH | NvmeStatus.DNR);
        return;
      }
      scratch.put(slot * SCRATCH, capsules, at + Sqe.SIZE + (int) offset, (int) len);
      afterHostData(slot, after);
    } else if (Sgl.isKeyed(capsules, d)) {
      slotAfterRead[slot] = after;
      wr.reset().opcode(WorkRequestOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
          .wrId(READ_DATA | slot).remote(Sgl.key(capsules, d), Sgl.address(capsules, d))
          .addSge(scratchRegion, (long) slot * SCRATCH, len);
      post(slot);
    } else {
      complete(slot, NvmeStatus.SGL_INVALID_TYPE | NvmeStatus.DNR);
    }
  }

  private void onHostDataRead(int slot) {
    afterHostData(slot, slotAfterRead[slot]);
  }

  private void afterHostData(int slot, int after) {
    if (after == AFTER_READ_WRITE) {
      complete(slot, NvmeStatus.SUCCESS);
    } else {
      onConnect(slot);
    }
  }

  private void onConnect(int slot) {
    sqe.wrap(capsules, slot * capsuleSize);
    int data = slot * SCRATCH;
    String subNqn = ConnectData.subNqn(scratch, data);
    String hostNqn = ConnectData.hostNqn(scratch, data);
    int cntlid = ConnectData.cntlid(scratch, data);
    if (sqe.connectRecfmt() != 0) {
      complete(slot, NvmeStatus.CONNECT_INVALID_FORMAT | NvmeStatus.DNR);
      return;
    }
    if (!subNqn.equals(target.config().subNqn()) || sqe.connectQid() != qid
        || sqe.connectSqsize() + 1 > entries) {
      complete(slot, NvmeStatus.CONNECT_INVALID_PARAMETERS | NvmeStatus.DNR);
      return;
    }
    Controller c;
    if (qid == 0) {
      if (cntlid != ConnectData.ANY_CONTROLLER) {
        complete(slot, NvmeStatus.CONNECT_INVALID_PARAMETERS | NvmeStatus.DNR);
        return;
      }
      c = target.newController(ConnectData.hostId(scratch, data), hostNqn,
          sqe.connectKatoMillis());
    } else {
      c = target.controller(cntlid);
      if (c == null || !c.hostNqn.equals(hostNqn) || !c.isReady() || c.isTornDown()) {
        complete(slot, NvmeStatus.CONNECT_INVALID_PARAMETERS | NvmeStatus.DNR);
        return;
      }
    }
    controller = c;
    c.add(this);
    if (c.isTornDown()) {
      disconnect(); // torn down between the lookup and the add
    }
    c.touch();
    LOG.log(System.Logger.Level.DEBUG, "nvmeof target: {0} queue {1} of controller {2}",
        hostNqn, qid, c.cntlid);
    slotResult[slot] = c.cntlid;
    complete(slot, NvmeStatus.SUCCESS);
  }

  private void onAdmin(int slot, int at, Controller c) {
    switch (sqe.opcode()) {
      case Opcodes.ADMIN_KEEP_ALIVE -> complete(slot, NvmeStatus.SUCCESS);
      case Opcodes.ADMIN_IDENTIFY -> onIdentify(slot, at, c);
      case Opcodes.ADMIN_SET_FEATURES, Opcodes.ADMIN_GET_FEATURES -> onFeatures(slot, c);
      case Opcodes.ADMIN_GET_LOG_PAGE -> {
        long numd = ((sqe.cdw(11) & 0xFFFFL) << 16 | (sqe.cdw(10) >>> 16)) + 1;
        if (numd * 4 > SCRATCH) {
          complete(slot, NvmeStatus.INVALID_FIELD | NvmeStatus.DNR);
          return;
        }
        // No errors, no changed namespaces, no events: every log page this target has is empty.
        zero(slot * SCRATCH, SCRATCH);
        toHost(slot, at, slot * SCRATCH, (int) numd * 4);
      }
      // Held until the association ends: this target has no events to report.
      case Opcodes.ADMIN_ASYNC_EVENT -> { }
      default -> complete(slot, NvmeStatus.INVALID_OPCODE | NvmeStatus.DNR);
    }
  }

  private void onIdentify(int slot, int at, Controller c) {
    int from = slot * SCRATCH;
    switch (sqe.cns()) {
      case Opcodes.CNS_CONTROLLER -> target.identifyController(c.cntlid).write(scratch, from);
      case Opcodes.CNS_NAMESPACE -> {
        if (sqe.nsid() != Namespace.NSID) {
          complete(slot, NvmeStatus.INVALID_NAMESPACE | NvmeStatus.DNR);
          return;
        }
        target.identifyNamespace().write(scratch, from);
      }
      case Opcodes.CNS_ACTIVE_NAMESPACES -> {
        zero(from, SCRATCH);
        if (Integer.compareUnsigned(sqe.nsid(), Namespace.NSID) < 0) {
          scratch.putInt(from, Namespace.NSID);
        }
      }
      case Opcodes.CNS_NAMESPACE_DESCRIPTORS -> {
        if (sqe.nsid() != Namespace.NSID) {
          complete(slot, NvmeStatus.INVALID_NAMESPACE | NvmeStatus.DNR);
          return;
        }
        zero(from, SCRATCH);
        scratch.put(from, (byte) 3).put(from + 1, (byte) 16); // NIDT UUID, NIDL 16
        scratch.order(ByteOrder.BIG_ENDIAN)
            .putLong(from + 4, target.namespaceUuid().getMostSignificantBits())
            .putLong(from + 12, target.namespaceUuid().getLeastSignificantBits())
            .order(ByteOrder.LITTLE_ENDIAN);
      }
      default -> {
        complete(slot, NvmeStatus.INVALID_FIELD | NvmeStatus.DNR);
        return;
      }
    }
    toHost(slot, at, from, SCRATCH);
  }

  private void onFeatures(int slot, Controller c) {
    boolean set = sqe.opcode() == Opcodes.ADMIN_SET_FEATURES;
    int maxQueues = target.config().maxIoQueues() - 1;
    switch (sqe.cdw(10) & 0xFF) {
      case Opcodes.FEATURE_NUMBER_OF_QUEUES -> slotResult[slot] = maxQueues | maxQueues << 16;
      case Opcodes.FEATURE_KEEP_ALIVE_TIMER -> {
        if (set) {
          c.katoMillis(sqe.cdw(11));
        }
        slotResult[slot] = c.katoMillis();
      }
      case Opcodes.FEATURE_ASYNC_EVENT_CONFIG -> slotResult[slot] = 0;
      default -> {
        complete(slot, NvmeStatus.INVALID_FIELD | NvmeStatus.DNR);
        return;
      }
    }
    complete(slot, NvmeStatus.SUCCESS);
  }

  /** RDMA-Writes octets {@code [from, from + available)} of scratch to the host, as much as its SGL takes. */
  private void toHost(int slot, int at, int from, int available) {
    int d = at + Sqe.DPTR;
    if (!Sgl.isKeyed(capsules, d)) {
      complete(slot, NvmeStatus.SGL_INVALID_TYPE | NvmeStatus.DNR);
      return;
    }
    long len = Math.min(Sgl.length(capsules, d), available);
    if (len > 0) {
      wr.reset().opcode(WorkRequestOpcode.RDMA_WRITE).wrId(WRITE_DATA | slot)
          .remote(Sgl.key(capsules, d), Sgl.address(capsules, d))
          .addSge(scratchRegion, from, len);
      if (!post(slot)) {
        return;
      }
    }
    complete(slot, NvmeStatus.SUCCESS);
  }

  private void onIo(int slot, int at, int length) {
    int opcode = sqe.opcode();
    if (opcode == Opcodes.IO_FLUSH) {
      complete(slot, NvmeStatus.SUCCESS);
      return;
    }
    if (opcode != Opcodes.IO_READ && opcode != Opcodes.IO_WRITE
        && opcode != Opcodes.IO_WRITE_ZEROES) {
      complete(slot, NvmeStatus.INVALID_OPCODE | NvmeStatus.DNR);
      return;
    }
    if (sqe.nsid() != Namespace.NSID) {
      complete(slot, NvmeStatus.INVALID_NAMESPACE | NvmeStatus.DNR);
      return;
    }
    long slba = sqe.slba();
    int blocks = sqe.blocks();
    if (!ns.contains(slba, blocks)) {
      complete(slot, NvmeStatus.LBA_RANGE | NvmeStatus.DNR);
      return;
    }
    long offset = slba << ns.blockShift();
    long bytes = (long) blocks << ns.blockShift();
    if (opcode == Opcodes.IO_WRITE_ZEROES) {
      zeroNamespace(offset, bytes);
      complete(slot, NvmeStatus.SUCCESS);
      return;
    }
    if (bytes > target.config().maxTransferBytes()) {
      complete(slot, NvmeStatus.INVALID_FIELD | NvmeStatus.DNR);
      return;
    }
    int d = at + Sqe.DPTR;
    if (Sgl.length(capsules, d) != bytes) {
      complete(slot, NvmeStatus.SGL_INVALID_DATA_LENGTH | NvmeStatus.DNR);
      return;
    }
    int id = Sgl.identifier(capsules, d);
    if (opcode == Opcodes.IO_READ) {
      if (!Sgl.isKeyed(capsules, d)) {
        complete(slot, NvmeStatus.SGL_INVALID_TYPE | NvmeStatus.DNR);
        return;
      }
      wr.reset().opcode(WorkRequestOpcode.RDMA_WRITE).wrId(WRITE_DATA | slot)
          .remote(Sgl.key(capsules, d), Sgl.address(capsules, d))
          .addSge(ns.region(), offset, bytes);
      if (post(slot)) {
        complete(slot, NvmeStatus.SUCCESS);
      }
    } else if (id == Sgl.INLINE_OFFSET) {
      long from = Sgl.address(capsules, d);
      if (from < 0 || Sqe.SIZE + from + bytes > Math.min(length, capsuleSize)) {
        complete(slot, NvmeStatus.SGL_INVALID_DATA_LENGTH | NvmeStatus.DNR);
        return;
      }
      ns.data().put((int) offset, capsules, at + Sqe.SIZE + (int) from, (int) bytes);
      complete(slot, NvmeStatus.SUCCESS);
    } else if (Sgl.isKeyed(capsules, d)) {
      slotAfterRead[slot] = AFTER_READ_WRITE;
      wr.reset().opcode(WorkRequestOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
          .wrId(READ_DATA | slot).remote(Sgl.key(capsules, d), Sgl.address(capsules, d))
          .addSge(ns.region(), offset, bytes);
      post(slot);
    } else {
      complete(slot, NvmeStatus.SGL_INVALID_TYPE | NvmeStatus.DNR);
    }
  }

  // ---- responses ----

  /** Sets the slot's status and sends its response (the result was set before). */
  private void complete(int slot, int status) {
    slotStatus[slot] = status;
    if (freeResponseCount == 0) {
      waiting[(waitingHead + waitingCount) % waiting.length] = slot;
      waitingCount++;
      return;
    }
    sendResponse(slot);
  }

  private void sendResponse(int slot) {
    int r = freeResponses[--freeResponseCount];
    cqe.wrap(responses, r * Cqe.SIZE).set(slotResult[slot], sqHead, qid, slotCid[slot],
        slotStatus[slot]);
    // The command is done with its capsule: take the next one before the host can send it.
    postRecv(slot);
    wr.reset().wrId(RESPONSE | r).flags(SendFlags.SIGNALED)
        .addSge(responseRegion, (long) r * Cqe.SIZE, Cqe.SIZE);
    if (slotHasInvalidate[slot]) {
      wr.opcode(WorkRequestOpcode.SEND_WITH_INVALIDATE).invalidateStag(slotInvalidate[slot]);
    } else {
      wr.opcode(WorkRequestOpcode.SEND);
    }
    if (!post(slot)) {
      freeResponses[freeResponseCount++] = r;
    }
  }

  private void postRecv(int slot) {
    try {
      qp.postRecv(recv.reset().wrId(RECV | slot)
          .addSge(capsuleRegion, (long) slot * capsuleSize, capsuleSize));
    } catch (IllegalStateException closed) {
      // The queue is going: nobody will send into it.
    }
  }

  /** Posts {@link #wr}; false (and the queue disconnected) if the queue pair refused it. */
  private boolean post(int slot) {
    try {
      qp.postSend(wr);
      return true;
    } catch (RuntimeException e) {
      if (!disconnecting) {
        LOG.log(System.Logger.Level.WARNING, "nvmeof target queue {0}, slot {1}: {2}", qid, slot,
            e.toString());
        disconnect();
      }
      return false;
    }
  }

  private void zero(int from, int length) {
    for (int i = 0; i < length; i += 8) {
      scratch.putLong(from + i, 0);
    }
  }

  private void zeroNamespace(long offset, long bytes) {
    ByteBuffer data = ns.data();
    for (long i = 0; i < bytes; i += 8) {
      data.putLong((int) (offset + i), 0);
    }
  }
}
