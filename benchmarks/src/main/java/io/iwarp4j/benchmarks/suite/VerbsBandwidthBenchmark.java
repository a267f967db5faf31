package io.iwarp4j.benchmarks.suite;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.PollMode;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.SharedReceiveQueue;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Bandwidth of iwarp4j through the verbs API between two devices over 127.0.0.1: one JMH
 * operation is one message (RDMA Write, RDMA Read or Send) of {@code size} octets, with up to
 * {@code depth} messages outstanding on each of {@code qps} queue pairs, posted round-robin. A
 * message counts when it is posted; every iteration ends by waiting for all of them to complete,
 * so the rate is the completed rate. Octets per second = ops/s × size (the runner computes it).
 *
 * <p>Send needs receive buffers at the target, and iWARP has no receiver-not-ready retry: a
 * Send without a posted receive is a protocol error. So the target reposts each receive from its
 * completion listener and returns credits with an 8-octet RDMA Write into the sender's credit
 * region every quarter window, the way an application on iWARP must (the raw-Netty baseline gets
 * this flow control from TCP for free).
 *
 * <p>{@code srq} (SEND only): the target's queue pairs take their receives from one shared
 * receive queue of {@code qps × window} receives instead of a receive queue each; the listener
 * reposts each to the shared queue and credits the queue pair the completion names
 * ({@link WorkCompletion#qpNumber()}). Off by default, so the suite's matrix is unchanged:
 * {@code -p op=SEND -p srq=false,true} gives the plain and the shared-queue Send side by side.
 *
 * <p>{@code inline} (WRITE and SEND, up to the queue pair's {@code maxInlineData}, 80 octets by
 * default): every message is posted with {@link SendFlags#INLINE}, its octets copied at post time
 * instead of sent from the registered region. Off by default, as {@code srq}.
 *
 * <p>{@code cqMod} (WRITE and SEND): CQ moderation as perftest's {@code -Q} and iwarp-perf's
 * {@code --cq-mod}: one work request in {@code cqMod} per queue pair is signaled, the others are
 * not, and the signaled one's completion retires those posted before it (a send queue completes
 * in order). 1 (the default, the suite's matrix) signals every message; perftest's default is
 * 100. An iteration that ends with unsignaled messages outstanding posts one more signaled
 * message on that queue pair (not counted) so that every message has completed when it ends.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", NettyTuning.RECYCLER_BATCH,
    NettyTuning.LEAK_SAMPLING})
@Timeout(time = 60)
public class VerbsBandwidthBenchmark {
  private static final int ACCESS =
      AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
  /** Credit Writes each target queue pair may have in flight (one source slot each). */
  private static final int CREDIT_SLOTS = 8;

  /** WRITE, READ or SEND. */
  @Param({"WRITE", "READ", "SEND"})
  public String op;

  /** Message size in octets. */
  @Param({"64", "512", "4096", "65536", "1048576"})
  public int size;

  /** Outstanding messages per queue pair. */
  @Param({"1", "128"})
  public int depth;

  /** MPA CRC32c on both sides, or off on both. */
  @Param({"true", "false"})
  public boolean crc;

  /** Queue pairs the messages are spread over. */
  @Param({"1", "8"})
  public int qps;

  /** Whether the Send target's queue pairs share one shared receive queue (SEND only). */
  @Param({"false"})
  public boolean srq;

  /** Whether each message is posted with {@link SendFlags#INLINE} (WRITE and SEND). */
  @Param({"false"})
  public boolean inline;

  /** One signaled work request per this many on each queue pair (WRITE and SEND). */
  @Param({"1"})
  public int cqMod = 1; // as the @Param default, for callers that set fields by hand (BenchmarkSuiteIT)

  /**
   * Whether every connection runs over TLS 1.3 (ListenParams.tls / ConnectParams.tls, mutual
   * authentication): the cost of the iwarp4j TLS extension.
   */
  @Param({"false"})
  public boolean tls;

  private VerbsPair pair;
  private WorkRequestOpcode opcode;
  private QueuePair[] qp;
  private int[] outstanding;
  private long[] posted;
  /** Per queue pair, the target's credit as last read from the credit region (SEND only). */
  private long[] creditSeen;
  /** Per queue pair: unsignaled messages posted since its last signaled one. */
  private int[] unsignaled;
  private int next;
  private int window;
  private int flags;
  private WorkCompletion[] wc;
  private final SendWorkRequest wr = new SendWorkRequest(1);
  private MemoryRegion source;
  private RemoteBuffer remote;
  private MemoryRegion credits;
  private SendTarget target;

  /** Connects the two sides and prepares the memory (once per fork). */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    opcode = WorkRequestOpcode.valueOf(op.equals("WRITE") ? "RDMA_WRITE"
        : op.equals("READ") ? "RDMA_READ" : "SEND");
    if (inline && opcode == WorkRequestOpcode.RDMA_READ) {
      throw new IllegalArgumentException("inline: WRITE and SEND only (a Read has no payload)");
    }
    flags = inline ? SendFlags.INLINE : 0;
    if (cqMod < 1 || cqMod > Math.max(1, depth)) {
      throw new IllegalArgumentException("cqMod must be 1.." + Math.max(1, depth)
          + " (at most the depth, or the window would never complete), got " + cqMod);
    }
    if (cqMod > 1 && opcode == WorkRequestOpcode.RDMA_READ) {
      throw new IllegalArgumentException("cqMod > 1: WRITE and SEND only");
    }
    // A deep window keeps the sender from waiting on credits (all receives share one buffer).
    window = Math.min(16_000, Math.max(8 * depth, 1024));
    boolean send = opcode == WorkRequestOpcode.SEND;
    if (srq && !send) {
      throw new IllegalArgumentException("srq=true needs op=SEND, not " + op);
    }
    target = send ? new SendTarget(qps, window, size) : null;
    pair = new VerbsPair(qps, crc, Math.max(depth, CREDIT_SLOTS) + 1, send ? window : 1,
        Math.max(1, depth), target, srq ? qps * window : 0, PollMode.PARKED, tls);
    qp = pair.clientQps;
    outstanding = new int[qps];
    posted = new long[qps];
    creditSeen = new long[qps];
    unsignaled = new int[qps];
    wc = VerbsPair.completions(Math.max(64, Math.min(4096, qps * depth)));
    // Where the client's octets come from or go to; one region serves every queue pair (one
    // event loop sends from it, so one root is safe).
    source = pair.clientPd.allocate(size, ACCESS);
    for (int i = 0; i < size; i++) {
      source.buffer().setByte(i, i * 31 + 7);
    }
    MemoryRegion far = pair.serverPd.allocate(size, ACCESS);
    remote = far.remote();
    if (send) {
      credits = pair.clientPd.allocate(8 * qps, ACCESS);
      target.start(pair, far, credits.remote());
    }
  }

  /** One operation (see the class description). */
  @Benchmark
  public void message() throws InterruptedException {
    int i = next;
    while (outstanding[i] >= depth) {
      reap();
    }
    post(i, unsignaled[i] + 1 >= cqMod);
    next = i + 1 == qp.length ? 0 : i + 1;
  }

  /**
   * Posts one message on queue pair {@code i}. A signaled one's work request id carries the
   * queue pair in its low 32 bits and the messages its completion retires in the high 32.
   */
  private void post(int i, boolean signaled) throws InterruptedException {
    if (credits != null) {
      waitForCredit(i);
    }
    long covered = unsignaled[i] + 1L;
    wr.reset().wrId(covered << 32 | i).opcode(opcode)
        .flags(signaled ? flags | SendFlags.SIGNALED : flags).addSge(source, 0, size);
    if (opcode != WorkRequestOpcode.SEND) {
      wr.remote(remote.stag(), remote.address());
    }
    qp[i].postSend(wr);
    outstanding[i]++;
    posted[i]++;
    unsignaled[i] = signaled ? 0 : unsignaled[i] + 1;
  }

  /** Takes at least one completion, parking (bounded) when none is ready. */
  private void reap() throws InterruptedException {
    CompletionQueue cq = pair.clientCq;
    int n = cq.poll(wc);
    if (n == 0) {
      n = cq.await(wc, VerbsPair.WAIT_SECONDS, TimeUnit.SECONDS);
      if (n == 0) {
        throw new IllegalStateException(op + ": no completion within " + VerbsPair.WAIT_SECONDS
            + " s");
      }
    }
    VerbsPair.check(wc, n, op);
    for (int k = 0; k < n; k++) {
      long id = wc[k].wrId();
      outstanding[(int) id] -= (int) (id >>> 32);
    }
  }

  /** Blocks while the target has no free receive for the next Send on queue pair {@code i}. */
  private void waitForCredit(int i) {
    // Credits only grow, so the last one read is a safe lower bound: the credit region is read
    // only when it says the window is used up (as a work queue reads the loop's retired count
    // only when its cached view says full), not twice per message.
    if (posted[i] - creditSeen[i] < window) {
      return;
    }
    long deadline = 0;
    while (posted[i] - (creditSeen[i] = readCredit(i)) >= window) {
      if (deadline == 0) {
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(VerbsPair.WAIT_SECONDS);
      } else if (System.nanoTime() > deadline) {
        throw new IllegalStateException("SEND: no receive credit within "
            + VerbsPair.WAIT_SECONDS + " s" + target.failureText());
      }
      LockSupport.parkNanos(10_000);
    }
  }

  /** The receives the target has consumed on queue pair {@code i}, as its last credit said. */
  private long readCredit(int i) {
    // The fence keeps the JIT from hoisting the read out of the wait loop; reading twice until
    // equal guards against seeing a credit the placement has half-copied.
    for (;;) {
      VarHandle.acquireFence();
      long a = credits.getLong(8L * i);
      VarHandle.acquireFence();
      long b = credits.getLong(8L * i);
      if (a == b) {
        return a;
      }
    }
  }

  /** Waits (bounded) until everything posted has completed, so no work spills over. */
  @TearDown(Level.Iteration)
  public void drain() throws InterruptedException {
    for (int i = 0; i < qp.length; i++) {
      if (unsignaled[i] > 0) {
        while (outstanding[i] >= depth) {
          reap();
        }
        post(i, true);
      }
      while (outstanding[i] > 0) {
        reap();
      }
    }
  }

  /** Closes everything and releases every buffer. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (pair != null) {
      pair.close();
    }
  }

  /**
   * The target of Sends: reposts every receive from the completion listener on the server's
   * event loop and returns credits to the sender with small RDMA Writes.
   */
  static final class SendTarget extends DrainingListener {
    private final int window;
    private final int size;
    private final long[] received;
    private final long[] credited;
    private final int[] creditsInFlight;
    private final long[] creditsSent;
    private final boolean[] skipped;
    private final RecvWorkRequest recv = new RecvWorkRequest(1);
    private final SendWorkRequest creditWr = new SendWorkRequest(1);
    private QueuePair[] qps;
    /** The shared receive queue, or null; then {@link #indexOf} maps qp numbers to indexes. */
    private SharedReceiveQueue srq;
    private int[] indexOf;
    private MemoryRegion buffer;
    private MemoryRegion creditSource;
    private RemoteBuffer creditTarget;
    private volatile String failure;

    SendTarget(int n, int window, int size) {
      super(256);
      this.window = window;
      this.size = size;
      received = new long[n];
      credited = new long[n];
      creditsInFlight = new int[n];
      creditsSent = new long[n];
      skipped = new boolean[n];
    }

    /** Posts the first window of receives on every queue pair and arms the listener. */
    void start(VerbsPair pair, MemoryRegion buffer, RemoteBuffer creditTarget) {
      this.qps = pair.serverQps;
      this.buffer = buffer;
      this.creditTarget = creditTarget;
      creditSource = pair.serverPd.allocate(8 * CREDIT_SLOTS * qps.length, ACCESS);
      srq = pair.serverSrq;
      if (srq != null) {
        int max = 0;
        for (QueuePair qp : qps) {
          max = Math.max(max, qp.number());
        }
        indexOf = new int[max + 1];
        for (int i = 0; i < qps.length; i++) {
          indexOf[qps[i].number()] = i;
        }
        for (int k = 0; k < window * qps.length; k++) {
          srq.postRecv(recv.reset().addSge(buffer, 0, size));
        }
      } else {
        for (int i = 0; i < qps.length; i++) {
          for (int k = 0; k < window; k++) {
            qps[i].postRecv(recv.reset().wrId(i).addSge(buffer, 0, size));
          }
        }
      }
      pair.serverCq.requestNotify(false);
    }

    String failureText() {
      String f = failure;
      return f == null ? "" : " (target: " + f + ")";
    }

    @Override
    public void onCompletion(CompletionQueue cq) {
      try {
        drain(cq);
      } catch (RuntimeException e) {
        // Runs on the event loop: keep the cause for the sender's timeout message.
        failure = e.toString();
        throw e;
      }
    }

    @Override
    void handle(int n) {
      for (int k = 0; k < n; k++) {
        WorkCompletion c = wc[k];
        // A shared queue's receive names no queue pair: the completion's qp number does.
        int i = srq != null && c.opcode() == WcOpcode.RECV ? indexOf[c.qpNumber()]
            : (int) c.wrId();
        if (!c.isSuccess()) {
          if (failure == null) {
            failure = c.toString();
          }
          continue;
        }
        if (c.opcode() == WcOpcode.RDMA_WRITE) {
          creditsInFlight[i]--;
          // A credit skipped while every slot was busy goes out now, so a sender that used up
          // its window always hears about the receives reposted since.
          if (skipped[i]) {
            skipped[i] = false;
            credit(i, 1);
          }
          continue;
        }
        if (srq != null) {
          srq.postRecv(recv.reset().addSge(buffer, 0, size));
        } else {
          qps[i].postRecv(recv.reset().wrId(i).addSge(buffer, 0, size));
        }
        received[i]++;
        credit(i, window / 4);
      }
    }

    /** Returns credits on queue pair {@code i} once {@code threshold} receives are uncredited. */
    private void credit(int i, int threshold) {
      if (received[i] - credited[i] < threshold) {
        return;
      }
      if (creditsInFlight[i] == CREDIT_SLOTS) {
        skipped[i] = true;
        return;
      }
      // Each credit Write in flight has a slot of its own: the framer computes the CRC over
      // the slot's octets and the socket reads them later, so they must not change between.
      long slot = 8L * (i * CREDIT_SLOTS + creditsSent[i]++ % CREDIT_SLOTS);
      creditSource.putLong(slot, received[i]);
      qps[i].postSend(creditWr.reset().wrId(i).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.SIGNALED).addSge(creditSource, slot, 8)
          .remote(creditTarget.stag(), creditTarget.address() + 8L * i));
      creditsInFlight[i]++;
      credited[i] = received[i];
    }
  }
}
