package io.iwarp4j.benchmarks.suite;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.PollMode;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.lang.invoke.VarHandle;
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
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round-trip latency of iwarp4j between two devices over 127.0.0.1; one JMH operation is one
 * round trip, sampled (median, p99, p99.9 come from JMH's SampleTime histogram).
 *
 * <ul>
 *   <li>{@code SEND}: the client posts a Send of {@code size} octets and waits (parked, in
 *       {@code CompletionQueue.await}) for the receive completion of the answer; the server
 *       answers from its completion listener on its event loop, reposting the receive.
 *   <li>{@code WRITE}: the client RDMA Writes {@code size} octets ending in a sequence number
 *       into the server's region; a server thread polls the last 8 octets of that memory and
 *       Writes the octets back; the client polls its own region the same way. No completions
 *       are involved (the Writes are unsignaled), as in perftest's write latency test.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", NettyTuning.RECYCLER_BATCH,
    NettyTuning.LEAK_SAMPLING})
@Timeout(time = 60)
public class VerbsLatencyBenchmark {
  private static final int ACCESS =
      AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
  private static final int RECVS = 8;

  /** SEND or WRITE. */
  @Param({"SEND", "WRITE"})
  public String kind;

  /** Message size in octets (at least 8: the sequence number). */
  @Param({"8", "4096"})
  public int size;

  /** MPA CRC32c on both sides, or off on both. */
  @Param({"true", "false"})
  public boolean crc;

  /**
   * {@code PARKED} (default) or {@code BUSY_POLL} ({@code -p pollMode=BUSY_POLL}): both devices'
   * event loops busy-poll and the client's {@code await} spins before it parks (SEND): three
   * spinning threads, meaningful only with that many idle cores.
   */
  @Param({"PARKED"})
  public String pollMode = "PARKED";

  private VerbsPair pair;
  private boolean write;
  private MemoryRegion ping;
  private MemoryRegion pong;
  private MemoryRegion serverBuf;
  private RemoteBuffer serverRemote;
  private final SendWorkRequest wr = new SendWorkRequest(1);
  private final RecvWorkRequest recv = new RecvWorkRequest(1);
  private final WorkCompletion[] wc = VerbsPair.completions(1);
  private final SpinWait spin = new SpinWait();
  private long seq;
  private Thread poller;
  private volatile boolean stop;
  private volatile Throwable pollerFailure;

  /** Connects the two sides and prepares the memory (once per fork). */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    if (size < 8) {
      throw new IllegalArgumentException("size must be at least 8, not " + size);
    }
    write = kind.equals("WRITE");
    if (!write && !kind.equals("SEND")) {
      throw new IllegalArgumentException("kind must be SEND or WRITE, not " + kind);
    }
    Echo echo = write ? null : new Echo();
    pair = new VerbsPair(1, crc, 16, 2 * RECVS, 1, echo, 0, PollMode.valueOf(pollMode));
    ping = pair.clientPd.allocate(size, ACCESS);
    pong = pair.clientPd.allocate(size, ACCESS);
    serverBuf = pair.serverPd.allocate(size, ACCESS);
    serverRemote = serverBuf.remote();
    if (write) {
      startPoller(pong.remote());
    } else {
      echo.start(pair, serverBuf, size);
      for (int k = 0; k < RECVS; k++) {
        pair.clientQps[0].postRecv(recv.reset().wrId(k).addSge(pong, 0, size));
      }
    }
  }

  /** One operation (see the class description). */
  @Benchmark
  public long roundTrip() throws InterruptedException {
    long s = ++seq;
    ping.putLong(size - 8, s);
    if (write) {
      pair.clientQps[0].postSend(wr.reset().opcode(WorkRequestOpcode.RDMA_WRITE)
          .addSge(ping, 0, size).remote(serverRemote.stag(), serverRemote.address()));
      spin.reset();
      while (read(pong, size) != s) {
        spin.spin("WRITE ping-pong");
      }
    } else {
      pair.clientQps[0].postSend(wr.reset().opcode(WorkRequestOpcode.SEND)
          .addSge(ping, 0, size));
      CompletionQueue cq = pair.clientCq;
      int n = cq.poll(wc);
      if (n == 0 && cq.await(wc, VerbsPair.WAIT_SECONDS, TimeUnit.SECONDS) == 0) {
        throw new IllegalStateException("SEND pong " + s + ": none within "
            + VerbsPair.WAIT_SECONDS + " s");
      }
      VerbsPair.check(wc, 1, "SEND ping-pong");
      pair.clientQps[0].postRecv(recv.reset().wrId(0).addSge(pong, 0, size));
    }
    return s;
  }

  private static long read(MemoryRegion region, int size) {
    VarHandle.acquireFence(); // a fresh read every time round the polling loop
    return region.getLong(size - 8);
  }

  /** The server side of WRITE: polls its region and Writes each ping back. */
  private void startPoller(RemoteBuffer target) {
    poller = new Thread(() -> {
      SendWorkRequest back = new SendWorkRequest(1);
      long expect = 1;
      try {
        while (!stop) {
          if (read(serverBuf, size) != expect) {
            Thread.onSpinWait();
            Thread.yield();
            continue;
          }
          pair.serverQps[0].postSend(back.reset().opcode(WorkRequestOpcode.RDMA_WRITE)
              .addSge(serverBuf, 0, size).remote(target.stag(), target.address()));
          expect++;
        }
      } catch (Throwable t) {
        pollerFailure = t;
      }
    }, "write-pong");
    poller.setDaemon(true);
    poller.start();
  }

  /** Closes everything and releases every buffer. */
  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    stop = true;
    if (poller != null) {
      poller.join(TimeUnit.SECONDS.toMillis(VerbsPair.WAIT_SECONDS));
    }
    if (pair != null) {
      pair.close();
    }
    if (pollerFailure != null) {
      throw new IllegalStateException("the WRITE poller failed", pollerFailure);
    }
  }

  /** The server side of SEND: answers each receive with a Send from its event loop. */
  static final class Echo extends DrainingListener {
    private final RecvWorkRequest recv = new RecvWorkRequest(1);
    private final SendWorkRequest send = new SendWorkRequest(1);
    private VerbsPair pair;
    private MemoryRegion buf;
    private int size;

    void start(VerbsPair pair, MemoryRegion buf, int size) {
      this.pair = pair;
      this.buf = buf;
      this.size = size;
      for (int k = 0; k < RECVS; k++) {
        pair.serverQps[0].postRecv(recv.reset().wrId(k).addSge(buf, 0, size));
      }
      pair.serverCq.requestNotify(false);
    }

    Echo() {
      super(16);
    }

    @Override
    void handle(int n) {
      for (int k = 0; k < n; k++) {
        WorkCompletion c = wc[k];
        if (!c.isSuccess() || c.opcode() != WcOpcode.RECV) {
          continue; // a failure also fails the client's wait, which names it
        }
        pair.serverQps[0].postRecv(recv.reset().wrId(0).addSge(buf, 0, size));
        pair.serverQps[0].postSend(send.reset().opcode(WorkRequestOpcode.SEND)
            .addSge(buf, 0, size));
      }
    }
  }
}
