package io.iwarp4j.verbs;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A convenience layer over a {@link QueuePair}: one {@link CompletableFuture} per operation.
 *
 * <p>It owns its queue pair and a private completion queue; connect or accept with
 * {@link #queuePair()}. Every work request it posts is signaled and gets a fresh wrId; the
 * future completes with a copy of the {@link WorkCompletion} on success, and fails with a
 * {@link WorkRequestFailedException} carrying it on error (flushes included). Posting errors
 * (wrong state, full queue, bad arguments) are thrown by the call, as by the queue pair.
 *
 * <p>It is built on the public API only and stays off the core path: the core queue pair does
 * not know it exists. It does allocate per operation (a future, a work request, a map entry);
 * use {@link QueuePair} directly where that matters.
 *
 * <p>Futures complete on the connection's event loop. Stages attached with {@code thenApply} and
 * the like run there too: keep them short and never block in them, or use the {@code *Async}
 * variants.
 */
public final class AsyncQueuePair implements AutoCloseable {
  private final QueuePair qp;
  private final CompletionQueue cq;
  private final int maxSge;
  private final AtomicLong nextWrId = new AtomicLong(1);
  private final Map<Long, CompletableFuture<WorkCompletion>> pending = new ConcurrentHashMap<>();
  private final WorkCompletion[] batch = newBatch(32);

  private AsyncQueuePair(RdmaDevice device, ProtectionDomain pd, int maxSendWr, int maxRecvWr) {
    this.maxSge = device.config().defaultSge();
    this.cq = device.createCompletionQueue(maxSendWr + maxRecvWr, new CompletionListener() {
      @Override
      public void onCompletion(CompletionQueue queue) {
        dispatch();
      }

      @Override
      public void onOverrun(CompletionQueue queue) {
        // Cannot happen: the queue holds a completion for every work request that fits.
      }
    });
    this.qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(maxSendWr).maxRecvWr(maxRecvWr).build());
    cq.requestNotify(false);
  }

  /**
   * Creates a queue pair with its own completion queue.
   *
   * @param device the device
   * @param pd the protection domain
   * @param maxSendWr the send queue depth
   * @param maxRecvWr the receive queue depth
   * @return the asynchronous queue pair, in INIT
   */
  public static AsyncQueuePair create(RdmaDevice device, ProtectionDomain pd, int maxSendWr,
      int maxRecvWr) {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(pd, "pd");
    return new AsyncQueuePair(device, pd, maxSendWr, maxRecvWr);
  }

  /**
   * The queue pair, for {@link RdmaDevice#connect} or {@link ConnectRequest#accept}.
   *
   * @return the queue pair
   */
  public QueuePair queuePair() {
    return qp;
  }

  /**
   * RDMA Write of {@code length} octets at {@code offset} of {@code source} to the peer's
   * {@code remoteStag}/{@code remoteAddress}.
   *
   * @param source registered local memory
   * @param offset the first octet within {@code source}
   * @param length the number of octets
   * @param remoteStag the peer's STag
   * @param remoteAddress the Tagged Offset within the peer's region
   * @return completes when the Write was handed to TCP
   */
  public CompletableFuture<WorkCompletion> write(LocalBuffer source, long offset, long length,
      int remoteStag, long remoteAddress) {
    return post(new SendWorkRequest(1).opcode(WorkRequestOpcode.RDMA_WRITE)
        .remote(remoteStag, remoteAddress).addSge(source, offset, length));
  }

  /**
   * RDMA Read of {@code length} octets from the peer's {@code remoteStag}/{@code remoteAddress}
   * into {@code sink} at {@code offset}.
   *
   * @param sink registered local memory with LOCAL_WRITE
   * @param offset the first octet within {@code sink}
   * @param length the number of octets
   * @param remoteStag the peer's STag
   * @param remoteAddress the Tagged Offset within the peer's region
   * @return completes when the data is placed in {@code sink}
   */
  public CompletableFuture<WorkCompletion> read(LocalBuffer sink, long offset, long length,
      int remoteStag, long remoteAddress) {
    return post(new SendWorkRequest(1).opcode(WorkRequestOpcode.RDMA_READ)
        .remote(remoteStag, remoteAddress).addSge(sink, offset, length));
  }

  /**
   * Send of {@code length} octets at {@code offset} of {@code source} into the peer's next
   * posted receive.
   *
   * @param source registered local memory
   * @param offset the first octet within {@code source}
   * @param length the number of octets
   * @return completes when the Send was handed to TCP
   */
  public CompletableFuture<WorkCompletion> send(LocalBuffer source, long offset, long length) {
    return post(new SendWorkRequest(1).opcode(WorkRequestOpcode.SEND)
        .addSge(source, offset, length));
  }

  /**
   * Posts a receive of at most {@code length} octets at {@code offset} of {@code target}.
   *
   * @param target registered local memory with LOCAL_WRITE
   * @param offset the first octet within {@code target}
   * @param length the most octets a Send may place
   * @return completes when a Send was placed there; {@link WorkCompletion#byteLen()} says how
   *     much
   */
  public CompletableFuture<WorkCompletion> receive(LocalBuffer target, long offset,
      long length) {
    return post(new RecvWorkRequest(1).addSge(target, offset, length));
  }

  /**
   * Posts a copy of any send work request, signaled, with a wrId of this layer's choosing.
   *
   * @param wr the request; not changed
   * @return its completion
   */
  public CompletableFuture<WorkCompletion> post(SendWorkRequest wr) {
    long id = nextWrId.getAndIncrement();
    SendWorkRequest copy = new SendWorkRequest(Math.max(maxSge, wr.sgl().count())).copyFrom(wr)
        .wrId(id).flags(wr.flags() | SendFlags.SIGNALED);
    CompletableFuture<WorkCompletion> f = register(id);
    try {
      qp.postSend(copy);
    } catch (RuntimeException e) {
      pending.remove(id);
      throw e;
    }
    return f;
  }

  /**
   * Posts a copy of any receive work request with a wrId of this layer's choosing.
   *
   * @param wr the request; not changed
   * @return its completion
   */
  public CompletableFuture<WorkCompletion> post(RecvWorkRequest wr) {
    long id = nextWrId.getAndIncrement();
    RecvWorkRequest copy = new RecvWorkRequest(Math.max(maxSge, wr.sgl().count())).copyFrom(wr)
        .wrId(id);
    CompletableFuture<WorkCompletion> f = register(id);
    try {
      qp.postRecv(copy);
    } catch (RuntimeException e) {
      pending.remove(id);
      throw e;
    }
    return f;
  }

  /**
   * Operations posted and not completed yet.
   *
   * @return the count
   */
  public int pendingOperations() {
    return pending.size();
  }

  /**
   * Closes the queue pair (pending operations fail with {@link WcStatus#WR_FLUSH_ERR}) and the
   * completion queue.
   */
  @Override
  public void close() {
    qp.close();
    dispatch();
    cq.close();
  }

  private CompletableFuture<WorkCompletion> register(long id) {
    CompletableFuture<WorkCompletion> f = new CompletableFuture<>();
    pending.put(id, f);
    return f;
  }

  /** Takes every completion, completes its future, re-arms (then looks once more). */
  private synchronized void dispatch() {
    drain();
    if (!cq.isClosed()) {
      try {
        cq.requestNotify(false);
      } catch (IllegalStateException closedMeanwhile) {
        return;
      }
      drain();
    }
  }

  private void drain() {
    int n;
    while ((n = cq.poll(batch)) > 0) {
      for (int i = 0; i < n; i++) {
        CompletableFuture<WorkCompletion> f = pending.remove(batch[i].wrId());
        if (f == null) {
          continue;
        }
        WorkCompletion wc = new WorkCompletion().copyFrom(batch[i]);
        if (wc.isSuccess()) {
          f.complete(wc);
        } else {
          f.completeExceptionally(new WorkRequestFailedException(wc));
        }
      }
    }
  }

  private static WorkCompletion[] newBatch(int n) {
    WorkCompletion[] a = new WorkCompletion[n];
    for (int i = 0; i < n; i++) {
      a[i] = new WorkCompletion();
    }
    return a;
  }

  @Override
  public String toString() {
    return "AsyncQueuePair{" + qp + ", pending=" + pending.size() + '}';
  }
}
