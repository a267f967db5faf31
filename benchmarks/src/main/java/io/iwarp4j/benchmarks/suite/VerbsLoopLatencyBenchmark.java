package io.iwarp4j.benchmarks.suite;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.PollMode;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link VerbsLatencyBenchmark}'s SEND ping-pong run to completion on the event loops: the
 * client's receive completion listener, on its event loop, reposts the receive and posts the
 * next Send, as the server's ({@link VerbsLatencyBenchmark.Echo}) answers; neither end hands a
 * thread anything per message. One JMH invocation is {@value #BATCH} round trips (the benchmark
 * thread posts the first Send and parks until the listener has taken the last answer), so the
 * reported figures are per round trip, each sample the mean of one batch (the median is that of
 * the batch means, not of single round trips). With {@code pollMode=BUSY_POLL} the two devices'
 * event loops are the only spinning threads.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", NettyTuning.RECYCLER_BATCH,
    NettyTuning.LEAK_SAMPLING})
@Timeout(time = 60)
public class VerbsLoopLatencyBenchmark {
  /** Round trips per invocation. */
  public static final int BATCH = 100;
  private static final int ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
  private static final int RECVS = 8;

  /** Message size in octets (at least 8). */
  @Param({"8", "4096"})
  public int size;

  /** MPA CRC32c on both sides, or off on both. */
  @Param({"true", "false"})
  public boolean crc;

  /** {@code PARKED} or {@code BUSY_POLL}: both devices' event loops (two spinners). */
  @Param({"PARKED", "BUSY_POLL"})
  public String pollMode;

  private VerbsPair pair;
  private Driver driver;

  /** Connects the two sides and prepares the memory (once per fork). */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    if (size < 8) {
      throw new IllegalArgumentException("size must be at least 8, not " + size);
    }
    VerbsLatencyBenchmark.Echo echo = new VerbsLatencyBenchmark.Echo();
    driver = new Driver();
    pair = new VerbsPair(1, crc, 16, 2 * RECVS, 1, echo, driver, 0, PollMode.valueOf(pollMode),
        false);
    MemoryRegion serverBuf = pair.serverPd.allocate(size, ACCESS);
    echo.start(pair, serverBuf, size);
    driver.start(pair.clientQps[0], pair.clientPd.allocate(size, ACCESS),
        pair.clientPd.allocate(size, ACCESS), size, pair.clientCq);
  }

  /** {@value #BATCH} round trips, played by the client's listener (see the class description). */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long roundTrips() {
    return driver.batch(BATCH);
  }

  /** Closes everything. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (pair != null) {
      pair.close();
    }
  }

  /** The client side: each answer's completion reposts the receive and sends the next ping. */
  static final class Driver extends DrainingListener {
    private final RecvWorkRequest recv = new RecvWorkRequest(1);
    private final SendWorkRequest send = new SendWorkRequest(1);
    private QueuePair qp;
    private MemoryRegion ping;
    private MemoryRegion pong;
    private int size;
    /** Answers still to come in this batch; the loop counts down, 0 = done. */
    private volatile int remaining;
    private volatile Thread waiter;
    private volatile String failure;
    private long seq;

    void start(QueuePair qp, MemoryRegion ping, MemoryRegion pong, int size,
        CompletionQueue cq) {
      this.qp = qp;
      this.ping = ping;
      this.pong = pong;
      this.size = size;
      for (int k = 0; k < RECVS; k++) {
        qp.postRecv(recv.reset().wrId(k).addSge(pong, 0, size));
      }
      cq.requestNotify(false);
    }

    /** Runs {@code n} round trips: the first Send from this thread, the rest from the loop. */
    long batch(int n) {
      waiter = Thread.currentThread();
      remaining = n;
      ping();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(VerbsPair.WAIT_SECONDS);
      while (remaining > 0) {
        if (failure != null) {
          throw new IllegalStateException(failure);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("loop ping-pong: " + remaining + " of " + n
              + " answers missing after " + VerbsPair.WAIT_SECONDS + " s");
        }
        LockSupport.parkNanos(this, left);
      }
      return seq;
    }

    private void ping() {
      ping.putLong(size - 8, ++seq);
      qp.postSend(send.reset().opcode(WorkRequestOpcode.SEND).addSge(ping, 0, size));
    }

    Driver() {
      super(16);
    }

    @Override
    void handle(int n) {
      for (int k = 0; k < n; k++) {
        if (!wc[k].isSuccess()) {
          failure = "loop ping-pong: " + wc[k];
          LockSupport.unpark(waiter);
          return;
        }
        qp.postRecv(recv.reset().wrId(0).addSge(pong, 0, size));
        int left = remaining - 1; // only this loop writes it while a batch runs
        if (left > 0) {
          ping();
          remaining = left;
        } else {
          remaining = 0;
          LockSupport.unpark(waiter);
        }
      }
    }
  }
}
