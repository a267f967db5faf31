package io.iwarp4j.examples.nvmeof.host;

import io.iwarp4j.examples.nvmeof.wire.CmPrivateData;
import io.iwarp4j.examples.nvmeof.wire.Cqe;
import io.iwarp4j.examples.nvmeof.wire.NvmeStatus;
import io.iwarp4j.examples.nvmeof.wire.Opcodes;
import io.iwarp4j.examples.nvmeof.wire.Sgl;
import io.iwarp4j.examples.nvmeof.wire.Sqe;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.FastRegisterRegion;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaRejectedException;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One NVMe/RDMA queue of the host (admin or I/O): a queue pair, {@code entries} command slots
 * and as many receives for responses.
 *
 * <p><b>Memory.</b> Slot {@code s} owns command capsule {@code s} and data buffer {@code s}: a
 * Read's keyed SGL names buffer {@code s} (the target RDMA-Writes into it), a Write's names it
 * too (the target RDMA-Reads from it), or, with in-capsule data, the buffer is the Send's second
 * SGE. Two ways to give the target the key:
 * <ul>
 *   <li><b>Per-I/O registration</b> (I/O queues, as Linux nvme-rdma does on iWARP): each slot
 *   has a fast-register region; a command's REG_MR binds just its buffer's range under a new key
 *   ahead of the command's Send, the SGL asks for invalidation (subtype 0xF), and the target's
 *   Send with Invalidate ends the registration with the response. If a response comes by plain
 *   Send, the host posts LOCAL_INV itself. Between commands the target can reach nothing.
 *   <li><b>A pre-registered pool</b> (the admin queue, or when asked): the buffers are one
 *   region registered for remote read and write, its STag in every SGL, subtype 0.
 * </ul>
 *
 * <p><b>Completion.</b> A command ends when both its Send has completed and its response has
 * arrived (either order), as Linux nvme-rdma does: only then may its capsule and buffer be used
 * again. The callback runs on the queue's event loop, then the slot is free. Submitting is
 * thread-safe; {@link #acquire} blocks while all slots are in use (the queue depth).
 */
public final class HostQueue implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(HostQueue.class.getName());
  private static final long SEND = 1L << 32;
  private static final long RECV = 2L << 32;
  /**
   * REG_MR and LOCAL_INV: posted unsignaled, so they complete only when flushed, and such a
   * completion is not the command's Send (counting it as one made outstandingWorkRequests() -1
   * when a command was posted into a queue pair the target had just disconnected).
   */
  private static final long MEMORY = 3L << 32;
  static final long TIMEOUT_SECONDS = 10;

  private final int qid;
  private final int entries;
  private final int slotBytes;
  private final CompletionQueue cq;
  private final QueuePair qp;
  private final ByteBuffer commands;
  private final MemoryRegion commandRegion;
  private final ByteBuffer responses;
  private final MemoryRegion responseRegion;
  private final ByteBuffer data;
  private final MemoryRegion dataRegion;
  private final ArrayBlockingQueue<Integer> free;
  private final IoCallback[] callbacks;
  private final boolean[] sent;
  private final boolean[] answered;
  private final int[] status;
  private final long[] result;
  private final Sqe[] sqes;
  private final ByteBuffer[] slotData;
  private final SendWorkRequest[] sendWrs;
  // Per-I/O registration: per slot a region, the REG_MR and LOCAL_INV requests, the live key.
  private final FastRegisterRegion[] regions;
  private final SendWorkRequest[] registerWrs;
  private final SendWorkRequest[] invalidateWrs;
  private final int[] liveKey;
  private final boolean[] registered;
  private final ByteBuf registrable;
  private final AtomicLong remoteInvalidations = new AtomicLong();
  private final AtomicLong localInvalidations = new AtomicLong();
  private final Cqe cqe = new Cqe();
  private final WorkCompletion[] batch = new WorkCompletion[32];
  private final RecvWorkRequest recv = new RecvWorkRequest(1);
  private final AtomicLong postedSends = new AtomicLong();
  private final AtomicLong completedSends = new AtomicLong();
  private final AtomicLong postedRecvs = new AtomicLong();
  private final AtomicLong flushedMemoryOperations = new AtomicLong();
  private final AtomicLong completedRecvs = new AtomicLong();
  private final AtomicLong keyMismatches = new AtomicLong();
  private volatile RdmaConnection connection;
  private volatile boolean lost;
  private int inCapsuleBytes;

  HostQueue(RdmaDevice device, ProtectionDomain pd, int qid, int entries, int slotBytes,
      boolean perIoRegistration) {
    this.qid = qid;
    this.entries = entries;
    this.slotBytes = slotBytes;
    cq = device.createCompletionQueue(3 * entries + 8);
    // Up to three send work requests per command: LOCAL_INV, REG_MR, Send.
    qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).maxSendWr(3 * entries + 1)
        .maxRecvWr(entries).maxSendSge(2).build());
    commands = ByteBuffer.allocateDirect(entries * Sqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
    commandRegion = pd.register(commands, AccessFlags.LOCAL_WRITE);
    responses = ByteBuffer.allocateDirect(entries * Cqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
    responseRegion = pd.register(responses, AccessFlags.LOCAL_WRITE);
    data = ByteBuffer.allocateDirect(entries * slotBytes).order(ByteOrder.LITTLE_ENDIAN);
    dataRegion = pd.register(data, perIoRegistration ? AccessFlags.LOCAL_WRITE
        : AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
    free = new ArrayBlockingQueue<>(entries);
    callbacks = new IoCallback[entries];
    sent = new boolean[entries];
    answered = new boolean[entries];
    status = new int[entries];
    result = new long[entries];
    sqes = new Sqe[entries];
    slotData = new ByteBuffer[entries];
    sendWrs = new SendWorkRequest[entries];
    regions = perIoRegistration ? new FastRegisterRegion[entries] : null;
    registerWrs = new SendWorkRequest[entries];
    invalidateWrs = new SendWorkRequest[entries];
    liveKey = new int[entries];
    registered = new boolean[entries];
    registrable = perIoRegistration ? Unpooled.wrappedBuffer(data) : null;
    for (int s = 0; s < entries; s++) {
      free.add(s);
      sqes[s] = new Sqe().wrap(commands.duplicate().order(ByteOrder.LITTLE_ENDIAN), s * Sqe.SIZE);
      sendWrs[s] = new SendWorkRequest(2);
      if (perIoRegistration) {
        regions[s] = pd.allocateFastRegisterRegion(slotBytes);
        registerWrs[s] = new SendWorkRequest(1);
        invalidateWrs[s] = new SendWorkRequest(1);
      }
      slotData[s] = data.slice(s * slotBytes, slotBytes).order(ByteOrder.LITTLE_ENDIAN);
    }
    for (int i = 0; i < batch.length; i++) {
      batch[i] = new WorkCompletion();
    }
  }

  /**
   * Connects with the NVMe/RDMA request private data; the target's CRQSIZE must fit. The
   * connection completes only after {@code firstFpduDelayMillis} of quiet after the MPA Reply
   * (HostOptions#firstFpduDelayMillis), so the Fabrics Connect cannot meet siw's accept race.
   */
  void connect(RdmaDevice device, InetSocketAddress target, int firstFpduDelayMillis) {
    for (int s = 0; s < entries; s++) {
      postRecv(s);
    }
    cq.listener(this::onCompletion).requestNotify(false);
    ConnectParams params = ConnectParams.builder()
        .privateData(CmPrivateData.request(qid, entries, entries - 1))
        .ird(16).connectTimeout(Duration.ofSeconds(TIMEOUT_SECONDS))
        .firstFpduDelay(Duration.ofMillis(firstFpduDelayMillis)).build();
    RdmaConnection c;
    try {
      c = device.connect(qp, target, params).get(TIMEOUT_SECONDS + 1, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RdmaRejectedException rejected) {
        throw new NvmeofException("queue " + qid + " refused by " + target
            + " with NVMe/RDMA reject status " + CmPrivateData.rejectStatus(rejected.privateData()),
            rejected);
      }
      throw new NvmeofException("queue " + qid + ": cannot connect to " + target, e.getCause());
    } catch (TimeoutException | InterruptedException e) {
      throw new NvmeofException("queue " + qid + ": no connection to " + target, e);
    }
    int crqsize = CmPrivateData.acceptCrqsize(c.peerPrivateData());
    if (crqsize < entries) {
      c.disconnect();
      throw new NvmeofException("queue " + qid + ": the target's CRQSIZE " + crqsize
          + " is below the " + entries + " entries asked for");
    }
    connection = c;
    c.closeFuture().whenComplete((ignored, error) -> lost = true);
  }

  public int qid() {
    return qid;
  }

  public int entries() {
    return entries;
  }

  /** The most octets one command's data buffer holds. */
  public int slotBytes() {
    return slotBytes;
  }

  void inCapsuleBytes(int n) {
    inCapsuleBytes = n;
  }

  public boolean isConnected() {
    return !lost;
  }

  /**
   * Takes a free command slot, waiting while all are in use.
   *
   * @return the slot
   * @throws NvmeofException if the queue is lost or no slot frees within the timeout
   */
  public int acquire() {
    Integer s;
    try {
      s = free.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NvmeofException("interrupted waiting for a slot of queue " + qid, e);
    }
    if (s == null) {
      throw new NvmeofException("queue " + qid + ": no command slot free within "
          + TIMEOUT_SECONDS + " s");
    }
    return s;
  }

  /** Gives back a slot taken by {@link #acquire()} and not submitted. */
  public void release(int slot) {
    free.add(slot);
  }

  /** The slot's command, cleared, with its CID (the slot) and SGL flag set. */
  public Sqe command(int slot) {
    return sqes[slot].clear().commandId(slot).flags(Sqe.FLAG_SGL);
  }

  /** The slot's data buffer, {@link #slotBytes()} octets. */
  public ByteBuffer data(int slot) {
    return slotData[slot];
  }

  /**
   * Points the slot's command at {@code length} octets of its data buffer (keyed SGL), or sends
   * them in the capsule when {@code inCapsule} and they fit.
   *
   * @return octets carried in the capsule (0 if keyed)
   */
  int describeData(int slot, int length, boolean inCapsule) {
    if (length > slotBytes) {
      throw new IllegalArgumentException(length + " octets exceed the " + slotBytes
          + " of a command's buffer");
    }
    if (inCapsule && length > 0 && length <= inCapsuleBytes) {
      registered[slot] = false;
      Sgl.putInline(commands, slot * Sqe.SIZE + Sqe.DPTR, length);
      return length;
    }
    long address = dataRegion.address() + (long) slot * slotBytes;
    if (regions != null && length > 0) {
      // The region's Tagged Offset is the memory's native address, as the pool's is.
      int key = regions[slot].nextStag();
      registerWrs[slot].reset().opcode(WorkRequestOpcode.REG_MR).wrId(MEMORY | slot)
          .fastRegister(regions[slot], key, registrable, slot * slotBytes, length,
              AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
      liveKey[slot] = key;
      registered[slot] = true;
      Sgl.putKeyed(commands, slot * Sqe.SIZE + Sqe.DPTR, address, length, key, true);
    } else {
      registered[slot] = false;
      Sgl.putKeyed(commands, slot * Sqe.SIZE + Sqe.DPTR, address, length,
          dataRegion.stag(), false);
    }
    return 0;
  }

  /**
   * Sends the slot's command; {@code callback} is told of its end on the event loop, then the
   * slot is free again.
   *
   * @param slot a slot from {@link #acquire()} whose command is built
   * @param inCapsule octets of the slot's data buffer to send in the capsule (0 for none)
   * @param callback told of the end
   */
  public void submit(int slot, int inCapsule, IoCallback callback) {
    if (lost) {
      free.add(slot);
      throw new NvmeofException("queue " + qid + " is disconnected");
    }
    sent[slot] = false;
    answered[slot] = false;
    callbacks[slot] = callback;
    SendWorkRequest wr = sendWrs[slot].reset().opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).wrId(SEND | slot)
        .addSge(commandRegion, (long) slot * Sqe.SIZE, Sqe.SIZE);
    if (inCapsule > 0) {
      wr.addSge(dataRegion, (long) slot * slotBytes, inCapsule);
    }
    try {
      postedSends.incrementAndGet();
      if (registered[slot]) {
        qp.postSend(registerWrs[slot]); // unsignaled: the Send after it cannot pass it
      }
      qp.postSend(wr);
    } catch (RuntimeException e) {
      postedSends.decrementAndGet();
      callbacks[slot] = null;
      free.add(slot);
      throw new NvmeofException("queue " + qid + ": cannot send a command", e);
    }
  }

  /** A command's outcome. */
  record Outcome(int status, long result) {
  }

  /**
   * Sends the slot's command and waits for its end.
   *
   * @param onData runs on the event loop with the data buffer before the slot is freed (null: none)
   * @return the outcome; the status may be an error
   */
  Outcome execute(int slot, int inCapsule, java.util.function.Consumer<ByteBuffer> onData) {
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    submit(slot, inCapsule, (st, res, buf) -> {
      if (st == 0 && onData != null) {
        onData.accept(buf);
      }
      done.complete(new Outcome(st, res));
    });
    try {
      return done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NvmeofException("interrupted waiting on queue " + qid, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new NvmeofException("queue " + qid + ": no completion within " + TIMEOUT_SECONDS
          + " s", e);
    }
  }

  /** Like {@link #execute}, and a status other than success is an exception. */
  long executeOk(String what, int slot, int inCapsule,
      java.util.function.Consumer<ByteBuffer> onData) {
    Outcome o = execute(slot, inCapsule, onData);
    if (o.status() < 0) {
      throw new NvmeofException(what + ": queue " + qid + " was lost");
    }
    if (o.status() != NvmeStatus.SUCCESS) {
      throw new NvmeofException(what, o.status());
    }
    return o.result();
  }

  // ---- I/O ----

  /**
   * Reads blocks into {@code dst} and waits.
   *
   * @throws NvmeofException with the NVMe status if the target refused
   */
  public void read(int nsid, long slba, int blocks, int blockSize, byte[] dst, int off) {
    int length = blocks * blockSize;
    int slot = acquire();
    command(slot).opcode(Opcodes.IO_READ).nsid(nsid).slba(slba).blocks(blocks);
    describeData(slot, length, false);
    executeOk("Read of " + blocks + " blocks at " + slba, slot, 0, b -> b.get(0, dst, off, length));
  }

  /**
   * Writes blocks from {@code src} and waits.
   *
   * @throws NvmeofException with the NVMe status if the target refused
   */
  public void write(int nsid, long slba, int blocks, int blockSize, byte[] src, int off,
      boolean inCapsule) {
    int length = blocks * blockSize;
    int slot = acquire();
    data(slot).put(0, src, off, length);
    command(slot).opcode(Opcodes.IO_WRITE).nsid(nsid).slba(slba).blocks(blocks);
    int carried = describeData(slot, length, inCapsule);
    executeOk("Write of " + blocks + " blocks at " + slba, slot, carried, null);
  }

  /** Starts a Read; the callback sees the data. Returns at once. */
  public void readAsync(int nsid, long slba, int blocks, int blockSize, IoCallback callback) {
    int slot = acquire();
    command(slot).opcode(Opcodes.IO_READ).nsid(nsid).slba(slba).blocks(blocks);
    describeData(slot, blocks * blockSize, false);
    submit(slot, 0, callback);
  }

  // ---- completions ----

  private void onCompletion(CompletionQueue q) {
    drain();
    if (!q.isClosed()) {
      q.requestNotify(false);
      drain();
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
    if (kind == SEND) {
      completedSends.incrementAndGet();
    } else if (kind == RECV) {
      completedRecvs.incrementAndGet();
    } else {
      flushedMemoryOperations.incrementAndGet();
    }
    if (!wc.isSuccess()) {
      if (!lost) {
        LOG.log(System.Logger.Level.DEBUG, "nvmeof host queue {0}: {1}", qid, wc);
      }
      lost = true;
      failOutstanding();
      return;
    }
    if (kind == SEND) {
      sent[index] = true;
      if (answered[index]) {
        finish(index);
      }
    } else if (wc.opcode() == WcOpcode.RECV) {
      onResponse(index, wc);
    }
  }

  private void onResponse(int r, WorkCompletion wc) {
    cqe.wrap(responses, r * Cqe.SIZE);
    int slot = cqe.commandId();
    int st = cqe.status();
    long res = cqe.result();
    postRecv(r); // the response is copied out: the buffer can take the next
    if (wc.byteLen() < Cqe.SIZE || slot >= entries || callbacks[slot] == null || answered[slot]) {
      LOG.log(System.Logger.Level.WARNING, "nvmeof host queue {0}: a response for no command"
          + " (CID {1}, {2} octets); disconnecting", qid, slot, wc.byteLen());
      RdmaConnection c = connection;
      if (c != null) {
        c.disconnect();
      }
      return;
    }
    if (wc.hasInvalidatedStag()) {
      if (registered[slot] && wc.invalidatedStag() == liveKey[slot]) {
        remoteInvalidations.incrementAndGet();
        registered[slot] = false;
      } else {
        keyMismatches.incrementAndGet();
      }
    }
    if (registered[slot]) {
      // Answered by plain Send: end the registration before the slot is used again.
      localInvalidations.incrementAndGet();
      registered[slot] = false;
      try {
        qp.postSend(invalidateWrs[slot].reset().opcode(WorkRequestOpcode.LOCAL_INV)
            .wrId(MEMORY | slot).invalidateStag(liveKey[slot]));
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "nvmeof host queue {0}: LOCAL_INV: {1}", qid, e);
      }
    }
    status[slot] = st;
    result[slot] = res;
    answered[slot] = true;
    if (sent[slot]) {
      finish(slot);
    }
  }

  private void finish(int slot) {
    IoCallback cb = callbacks[slot];
    callbacks[slot] = null;
    try {
      cb.onComplete(status[slot], result[slot], slotData[slot]);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "nvmeof host queue " + qid + ": a callback failed", e);
    }
    free.add(slot);
  }

  // Commands that will get no response: their callbacks hear -1 once the queue is lost.
  private void failOutstanding() {
    for (int s = 0; s < entries; s++) {
      IoCallback cb = callbacks[s];
      if (cb != null && !(answered[s] && sent[s])) {
        callbacks[s] = null;
        try {
          cb.onComplete(-1, 0, slotData[s]);
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "nvmeof host: a callback failed", e);
        }
        free.add(s);
      }
    }
  }

  private void postRecv(int r) {
    // Counted before it is posted: a receive posted into a queue pair in ERROR may be flushed on
    // the event loop before this thread gets on, and must never be seen completed but not posted.
    postedRecvs.incrementAndGet();
    try {
      qp.postRecv(recv.reset().wrId(RECV | r)
          .addSge(responseRegion, (long) r * Cqe.SIZE, Cqe.SIZE));
    } catch (IllegalStateException closed) {
      postedRecvs.decrementAndGet(); // the queue is going: nothing was posted
    }
  }

  /** Work requests posted and not yet completed (successfully or flushed). */
  public long outstandingWorkRequests() {
    return postedSends.get() - completedSends.get() + postedRecvs.get() - completedRecvs.get();
  }

  /** Unsignaled REG_MR and LOCAL_INV requests that completed because they were flushed. */
  public long flushedMemoryOperations() {
    return flushedMemoryOperations.get();
  }

  /** Responses by Send with Invalidate that named no key this queue had asked to invalidate. */
  public long unexpectedInvalidations() {
    return keyMismatches.get();
  }

  /** Per-I/O registrations the target ended with Send with Invalidate. */
  public long remoteInvalidations() {
    return remoteInvalidations.get();
  }

  /** Per-I/O registrations this host ended with LOCAL_INV (the response came by plain Send). */
  public long localInvalidations() {
    return localInvalidations.get();
  }

  /** Whether this queue registers each I/O's buffer (else: the pre-registered pool). */
  public boolean registersPerIo() {
    return regions != null;
  }

  /** Disconnects and waits for the connection to close and every work request to complete. */
  @Override
  public void close() {
    RdmaConnection c = connection;
    if (c != null) {
      try {
        c.disconnect().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        c.closeFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        LOG.log(System.Logger.Level.DEBUG, "nvmeof host queue {0}: disconnect: {1}", qid, e);
      }
    }
    lost = true;
    // Flushed receives complete as the queue pair leaves RTS; wait for them briefly.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (outstandingWorkRequests() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    qp.close();
    cq.close();
    if (regions != null) {
      for (FastRegisterRegion r : regions) {
        r.close();
      }
      registrable.release();
    }
    commandRegion.close();
    responseRegion.close();
    dataRegion.close();
  }
}
