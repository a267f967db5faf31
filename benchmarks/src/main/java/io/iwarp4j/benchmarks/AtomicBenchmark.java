package io.iwarp4j.benchmarks;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
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
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * RFC 7306 FetchAdd through the whole stack (verbs, RDMAP, DDP, MPA with CRC, TCP on 127.0.0.1)
 * against its natural yardstick, an RDMA Read of 8 octets: both are one QN 1 request and one
 * response carrying 8 octets, share ORD/IRD, and complete on the response. Comparing the two in
 * the same run is what makes a number meaningful on a noisy machine.
 *
 * <p>Each invocation waits for exactly one completion and posts one more, keeping {@code depth}
 * operations outstanding: {@code depth = 1} measures the round trip (one per invocation, so the
 * throughput is the inverse of the latency; run with {@code -bm sample} for percentiles), a deep
 * queue the rate. ORD/IRD are {@code depth}. Completions are waited for with
 * {@link CompletionQueue#await} (the thread parks), as an application would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class AtomicBenchmark {
  /** FETCH_ADD (RFC 7306 Atomic) or READ8 (RDMA Read of 8 octets). */
  @Param({"FETCH_ADD", "READ8"})
  public String op;

  /** Operations kept outstanding. */
  @Param({"1", "16"})
  public int depth;

  private RdmaDevice server;
  private RdmaDevice client;
  private QueuePair qp;
  private CompletionQueue cq;
  private MemoryRegion counter;
  private MemoryRegion results;
  private final WorkCompletion[] wcs = {new WorkCompletion()};
  private SendWorkRequest wr;
  private int slot;

  /** Two devices with one event loop each, one connected queue pair. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    server = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    client = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    ProtectionDomain spd = server.allocateProtectionDomain();
    ProtectionDomain cpd = client.allocateProtectionDomain();
    counter = spd.allocate(64, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
        | AccessFlags.REMOTE_ATOMIC);
    results = cpd.allocate(8 * depth, AccessFlags.LOCAL_WRITE);
    CompletionQueue scq = server.createCompletionQueue(64);
    cq = client.createCompletionQueue(4 * depth + 16);
    QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq)
        .ird(depth).ord(depth).build());
    qp = client.createQueuePair(cpd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(2 * depth + 4).ird(depth).ord(depth).build());
    LinkedBlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    CompletableFuture<?> cf = client.connect(qp, listener.localAddress(),
        ConnectParams.builder().peerToPeer(true).ird(depth).ord(depth).build());
    ConnectRequest request = requests.poll(10, TimeUnit.SECONDS);
    if (request == null) {
      throw new IllegalStateException("no connect request");
    }
    request.accept(sqp, AcceptParams.builder().ird(depth).ord(depth).build());
    cf.get(10, TimeUnit.SECONDS);
    listener.close();
    wr = new SendWorkRequest(1);
    for (int i = 0; i < depth; i++) {
      post();
    }
  }

  private void post() {
    long at = 8L * (slot++ % depth);
    wr.reset().wrId(slot).flags(SendFlags.SIGNALED);
    if (op.equals("FETCH_ADD")) {
      wr.opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).addData(1)
          .remote(counter.stag(), counter.address()).localResult(results, at);
    } else {
      wr.opcode(WorkRequestOpcode.RDMA_READ).remote(counter.stag(), counter.address())
          .addSge(results, at, 8);
    }
    qp.postSend(wr);
  }

  /** One completion, then one more operation posted. */
  @Benchmark
  public long operation() throws InterruptedException {
    if (cq.await(wcs, 1, 10, TimeUnit.SECONDS) != 1 || !wcs[0].isSuccess()) {
      throw new IllegalStateException("no successful completion: " + wcs[0]);
    }
    post();
    return wcs[0].wrId();
  }

  /** Closes both devices (outstanding operations are flushed). */
  @TearDown(Level.Trial)
  public void tearDown() {
    client.close();
    server.close();
  }
}
