package io.iwarp4j.it;

import io.iwarp4j.mpa.CopyCounters;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.MpaSettings;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs in a JVM of its own (started by {@link DataPathBudgetIT}): two devices over 127.0.0.1
 * stream RDMA Writes, RDMA Reads and Sends of 64 octets and 64 KiB, {@code depth} in flight, and
 * report per operation kind the payload copies ({@link CopyCounters}, when the JVM runs with
 * {@code -Diwarp4j.debug.copyCount=true}) and the octets allocated by every thread of the JVM
 * (the application thread, both devices' event loops) per operation in the steady state.
 *
 * <p>Arguments: {@code crc markers ops}. Output: one {@code RESULT} line per case, fields
 * {@code op size ops sendCopied receivePlaced receiveStaged controlCopied allocatedPerOp}; then
 * {@code DONE}. A failed completion or a timeout ends the JVM with status 1.
 */
final class DataPathProbe {
  static final int[] SIZES = {64, 65536};
  static final WorkRequestOpcode[] OPS = {
      WorkRequestOpcode.RDMA_WRITE, WorkRequestOpcode.RDMA_READ, WorkRequestOpcode.SEND};
  private static final int DEPTH = 64;
  private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);

  private final OpsItPeer a;
  private final OpsItPeer b;
  private QueuePair qa;
  private QueuePair qb;
  private MemoryRegion src;
  private MemoryRegion dst;
  private MemoryRegion recv;
  private final SendWorkRequest[] sends = new SendWorkRequest[DEPTH];
  private final RecvWorkRequest[] recvs = new RecvWorkRequest[DEPTH];
  private final WorkCompletion[] wcs = new WorkCompletion[DEPTH];
  private long deadline;

  /**
   * @param crc whether both devices want MPA CRC: the accepting device's own setting counts as
   *     much as the connect parameters (CRC is on when either side asks for it)
   */
  private DataPathProbe(boolean crc) {
    DeviceConfig config = DeviceConfig.builder().eventLoopThreads(1)
        .mpaSettings(MpaSettings.builder().crc(crc).build()).build();
    a = new OpsItPeer(config, 4 * DEPTH);
    b = new OpsItPeer(config, 4 * DEPTH);
    for (int i = 0; i < DEPTH; i++) {
      sends[i] = new SendWorkRequest(1);
      recvs[i] = new RecvWorkRequest(1);
      wcs[i] = new WorkCompletion();
    }
  }

  public static void main(String[] args) throws Exception {
    boolean crc = Boolean.parseBoolean(args[0]);
    boolean markers = Boolean.parseBoolean(args[1]);
    int ops = Integer.parseInt(args[2]);
    DataPathProbe probe = new DataPathProbe(crc);
    try {
      probe.connect(crc, markers);
      for (WorkRequestOpcode op : OPS) {
        for (int size : SIZES) {
          probe.measure(op, size, ops);
        }
      }
      System.out.println("DONE");
    } catch (Throwable t) {
      t.printStackTrace(System.out);
      System.out.flush();
      System.exit(1);
    } finally {
      probe.a.close();
      probe.b.close();
    }
  }

  private void connect(boolean crc, boolean markers) throws Exception {
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = b.device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    // Room beyond the window: a slot's credit comes back just after its completion is queued.
    qa = a.newQp(2 * DEPTH, 2 * DEPTH, 1);
    qb = b.newQp(2 * DEPTH, 2 * DEPTH, 1);
    CompletableFuture<RdmaConnection> cf = a.device.connect(qa, listener.localAddress(),
        ConnectParams.builder().peerToPeer(true)
            .firstFpduDelay(Duration.ZERO).crc(crc).markers(markers).build());
    ConnectRequest request = requests.poll(30, TimeUnit.SECONDS);
    if (request == null) {
      throw new IllegalStateException("no connect request within 30 s");
    }
    request.accept(qb, AcceptParams.builder().build()).get(30, TimeUnit.SECONDS);
    RdmaConnection connection = cf.get(30, TimeUnit.SECONDS);
    if (connection.mpaInfo().crc() != crc) {
      throw new IllegalStateException("asked for crc=" + crc + ", negotiated "
          + connection.mpaInfo().crc());
    }
    listener.close();
    int length = SIZES[SIZES.length - 1];
    src = a.region(length);
    dst = b.region(length);
    recv = b.region(length);
  }

  /** A warm-up run, then a measured one; prints the RESULT line. */
  private void measure(WorkRequestOpcode op, int size, int ops) throws InterruptedException {
    deadline = System.nanoTime() + TIMEOUT_NANOS;
    run(op, size, Math.max(ops, 2_000));
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long[] ids = mx.getAllThreadIds();
    long[] before = mx.getThreadAllocatedBytes(ids);
    CopyCounters.reset();
    run(op, size, ops);
    long[] after = mx.getThreadAllocatedBytes(ids);
    long allocated = 0;
    for (int i = 0; i < ids.length; i++) {
      if (before[i] >= 0 && after[i] >= 0) {
        allocated += after[i] - before[i];
      }
    }
    System.out.println("RESULT " + op + " " + size + " " + ops + " " + CopyCounters.sendCopied()
        + " " + CopyCounters.receivePlaced() + " " + CopyCounters.receiveStaged() + " "
        + CopyCounters.controlCopied() + " " + (double) allocated / ops + " "
        + CopyCounters.sendInlined());
  }

  /** Posts {@code ops} operations, at most DEPTH outstanding, and waits for all completions. */
  private void run(WorkRequestOpcode op, int size, int ops) throws InterruptedException {
    boolean send = op == WorkRequestOpcode.SEND;
    int posted = 0;
    int completed = 0;
    int received = 0;
    while (completed < ops || (send && received < ops)) {
      while (posted < ops && posted - completed < DEPTH && (!send || posted - received < DEPTH)) {
        int slot = posted % DEPTH;
        if (send) {
          qb.postRecv(recvs[slot].reset().wrId(posted).addSge(recv, 0, size));
        }
        SendWorkRequest wr = sends[slot].reset().wrId(posted).opcode(op)
            .flags(SendFlags.SIGNALED);
        if (op == WorkRequestOpcode.RDMA_READ) {
          wr.remote(dst.stag(), dst.address()).addSge(src, 0, size);
        } else if (op == WorkRequestOpcode.RDMA_WRITE) {
          wr.remote(dst.stag(), dst.address()).addSge(src, 0, size);
        } else {
          wr.addSge(src, 0, size);
        }
        qa.postSend(wr);
        posted++;
      }
      completed += take(a, op);
      if (send) {
        received += take(b, op);
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(op + " of " + size + ": " + completed + " of " + ops
            + " completed, " + received + " received within the time limit");
      }
    }
    fence();
  }

  /**
   * A zero-length Send behind everything posted so far: a Write completes once the transport took
   * it, and only the Send's arrival proves it was placed (RFC 5040 §5.5 ordering).
   */
  private void fence() throws InterruptedException {
    qb.postRecv(recvs[0].reset().wrId(-1));
    qa.postSend(sends[0].reset().wrId(-1).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED));
    int got = 0;
    while (got < 2) {
      got += take(a, WorkRequestOpcode.SEND) + take(b, WorkRequestOpcode.SEND);
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the fence did not complete within the time limit");
      }
    }
  }

  private int take(OpsItPeer peer, WorkRequestOpcode op) throws InterruptedException {
    // poll + parkNanos rather than await: await allocates a waiter each time it parks.
    int n = peer.cq.poll(wcs, DEPTH);
    if (n == 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(20_000);
    }
    for (int i = 0; i < n; i++) {
      if (wcs[i].status() != WcStatus.SUCCESS) {
        throw new IllegalStateException(op + ": " + wcs[i]);
      }
    }
    return n;
  }
}
