package io.iwarp4j.benchmarks.suite;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
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
 * The raw-Netty baseline for {@link VerbsBandwidthBenchmark}, with the same shape: one JMH
 * operation is one message of {@code size} octets, up to {@code depth} outstanding on each of
 * {@code conns} TCP connections over 127.0.0.1, posted round-robin by the benchmark thread and
 * written by the connection's event loop (one thread per side, epoll). Framing: a 2-octet length
 * before every frame of at most 65535 octets (messages above 65535 octets are several frames;
 * iwarp4j's FPDUs on loopback carry at most ~32 KiB, so the baseline frames are never smaller).
 * The receiver copies every payload octet once into a preallocated direct buffer.
 *
 * <ul>
 *   <li>{@code PUSH} (the baseline for RDMA Write and Send): a message completes when the
 *       socket has taken it.
 *   <li>{@code PULL} (the baseline for RDMA Read): a message is a 6-octet request; the server
 *       answers with {@code size} octets and the message completes when they have all arrived.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", NettyTuning.RECYCLER_BATCH,
    NettyTuning.LEAK_SAMPLING})
@Timeout(time = 60)
public class NettyBandwidthBenchmark {
  /** PUSH or PULL. */
  @Param({"PUSH", "PULL"})
  public String mode;

  /** Message size in octets. */
  @Param({"64", "512", "4096", "65536", "1048576"})
  public int size;

  /** Outstanding messages per connection. */
  @Param({"1", "128"})
  public int depth;

  /** TCP connections the messages are spread over. */
  @Param({"1", "8"})
  public int conns;

  private NettyPair pair;
  private BaselineSender[] senders;
  private ByteBuf[] sinks;
  private ByteBuf source;
  private int next;

  /** Connects the two sides and prepares the memory (once per fork). */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    boolean pull = mode.equals("PULL");
    if (!pull && !mode.equals("PUSH")) {
      throw new IllegalArgumentException("mode must be PUSH or PULL, not " + mode);
    }
    source = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
    for (int i = 0; i < size; i++) {
      source.writeByte(i * 31 + 7);
    }
    senders = new BaselineSender[conns];
    sinks = new ByteBuf[2 * conns];
    for (int i = 0; i < sinks.length; i++) {
      sinks[i] = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
    }
    pair = new NettyPair(conns,
        i -> pull
            ? new FrameReceiver(sinks[conns + i], 4, (ctx, request) -> {
                FrameReceiver.writeMessage(ctx.channel(), source, request.getInt(0), null);
              }) {
              @Override
              public void channelReadComplete(io.netty.channel.ChannelHandlerContext ctx) {
                ctx.flush();
              }
            }
            : new FrameReceiver(sinks[conns + i], size, (ctx, message) -> { }),
        i -> new FrameReceiver(sinks[i], size, (ctx, message) -> senders[i].completeOne()));
    for (int i = 0; i < conns; i++) {
      senders[i] = new BaselineSender(pair.clients[i], source, size, pull, true);
    }
  }

  /** One operation (see the class description). */
  @Benchmark
  public void message() {
    int i = next;
    BaselineSender s = senders[i];
    s.awaitBelow(depth);
    s.post();
    next = i + 1 == senders.length ? 0 : i + 1;
  }

  /** Waits (bounded) until everything posted has completed, so no work spills over. */
  @TearDown(Level.Iteration)
  public void drain() {
    for (BaselineSender s : senders) {
      s.awaitBelow(1);
    }
  }

  /** Closes everything and releases every buffer. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (pair != null) {
      pair.close();
    }
    if (senders != null) {
      for (BaselineSender s : senders) {
        if (s != null) {
          s.release();
        }
      }
    }
    for (ByteBuf b : sinks) {
      b.release();
    }
    source.release();
  }
}
