package io.iwarp4j.benchmarks.suite;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * The raw-Netty baseline for {@link VerbsLatencyBenchmark}: one 2-octet-prefixed message of
 * {@code size} octets handed from the benchmark thread to the client's event loop, echoed by the
 * server's event loop from the buffer it was copied into, copied into the client's preallocated
 * buffer; one JMH operation is one round trip. The benchmark thread waits parked ({@code PARK},
 * the baseline for SEND, which parks in {@code CompletionQueue.await}) or spinning ({@code
 * SPIN}, the baseline for WRITE, whose client polls memory).
 *
 * <p>{@code echo=THREAD} ({@code -p echo=THREAD}; default {@code LOOP}) answers from a server
 * thread instead: parked until the server's event loop unparks it for each message, it posts
 * the answer back to that loop, as the client posts its ping. An application thread at both
 * ends, each woken by its loop and handing its message to it: the structure of {@code
 * iwarp-perf send_lat} parked (perftest's), against which the default row is the structure of
 * {@link VerbsLatencyBenchmark}'s SEND (the server answers on its loop).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", NettyTuning.RECYCLER_BATCH,
    NettyTuning.LEAK_SAMPLING})
@Timeout(time = 60)
public class NettyLatencyBenchmark {
  /** Message size in octets. */
  @Param({"8", "4096"})
  public int size;

  /** PARK or SPIN. */
  @Param({"PARK", "SPIN"})
  public String wait;

  /** LOOP (the server's event loop answers) or THREAD (a parked server thread answers). */
  @Param({"LOOP"})
  public String echo = "LOOP";

  private NettyPair pair;
  private BaselineSender sender;
  private ByteBuf source;
  private ByteBuf serverSink;
  private ByteBuf clientSink;
  private final AtomicLong pongs = new AtomicLong();
  private final SpinWait spin = new SpinWait();
  private volatile Thread waiter;
  private final AtomicLong pings = new AtomicLong();
  private BaselineSender answerer;
  private Thread echoThread;
  private volatile boolean stop;
  private boolean park;
  private long seq;

  /** Connects the two sides and prepares the memory (once per fork). */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    park = wait.equals("PARK");
    if (!park && !wait.equals("SPIN")) {
      throw new IllegalArgumentException("wait must be PARK or SPIN, not " + wait);
    }
    source = PooledByteBufAllocator.DEFAULT.directBuffer(size, size).writeZero(size);
    serverSink = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
    clientSink = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
    boolean onLoop = echo.equals("LOOP");
    if (!onLoop && !echo.equals("THREAD")) {
      throw new IllegalArgumentException("echo must be LOOP or THREAD, not " + echo);
    }
    pair = new NettyPair(1,
        i -> new FrameReceiver(serverSink, size, onLoop ? (ctx, message) -> {
          FrameReceiver.writeMessage(ctx.channel(), message, size, null);
          ctx.flush();
        } : this::onPing),
        i -> new FrameReceiver(clientSink, size, this::onPong));
    sender = new BaselineSender(pair.clients[0], source, size, false, false);
    if (!onLoop) {
      answerer = new BaselineSender(pair.servers[0], serverSink, size, false, false);
      echoThread = new Thread(this::answerPings, "netty-echo");
      echoThread.setDaemon(true);
      echoThread.start();
    }
  }

  private void onPong(ChannelHandlerContext ctx, ByteBuf message) {
    pongs.lazySet(pongs.get() + 1); // only this event loop writes it
    Thread t = waiter;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  private void onPing(ChannelHandlerContext ctx, ByteBuf message) {
    pings.lazySet(pings.get() + 1); // only the server's event loop writes it
    LockSupport.unpark(echoThread);
  }

  /** echo=THREAD: parks until the next ping has arrived, then posts the answer. */
  private void answerPings() {
    long answered = 0;
    while (!stop) {
      if (pings.get() == answered) {
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
        continue;
      }
      answered++;
      answerer.post();
    }
  }

  /** One operation (see the class description). */
  @Benchmark
  public long roundTrip() {
    long s = ++seq;
    sender.post();
    if (park) {
      if (pongs.get() != s) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(VerbsPair.WAIT_SECONDS);
        waiter = Thread.currentThread();
        try {
          while (pongs.get() != s) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
              throw new IllegalStateException("baseline pong " + s + ": none within "
                  + VerbsPair.WAIT_SECONDS + " s");
            }
            LockSupport.parkNanos(this, left);
          }
        } finally {
          waiter = null;
        }
      }
    } else {
      spin.reset();
      while (pongs.get() != s) {
        spin.spin("baseline ping-pong");
      }
    }
    return s;
  }

  /** Closes everything and releases every buffer. */
  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    stop = true;
    if (echoThread != null) {
      LockSupport.unpark(echoThread);
      echoThread.join(TimeUnit.SECONDS.toMillis(VerbsPair.WAIT_SECONDS));
    }
    if (pair != null) {
      pair.close();
    }
    if (sender != null) {
      sender.release();
    }
    if (answerer != null) {
      answerer.release();
    }
    source.release();
    serverSink.release();
    clientSink.release();
  }
}
