package io.iwarp4j.benchmarks.suite;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
 * The raw framed Netty stream: what a Netty user gets for a stream of small messages, as
 * opposed to {@link NettyBandwidthBenchmark} (the completion-modelled baseline, which hands
 * every message from an application thread to the loop and completes it one by one).
 *
 * <p>The client's event loop itself produces the stream: it writes messages back to back and
 * flushes every {@link #BATCH} of them, for as long as the channel is writable (Netty's
 * back-pressure: it resumes on {@code channelWritabilityChanged}), and yields the loop after
 * {@link #BATCHES_PER_TURN} batches so the loop's I/O runs. Each message is 2-octet-length-
 * prefixed frames of at most 65535 octets, like the completion-modelled baseline's. Messages of
 * up to {@link #COPY_LIMIT} octets are encoded ({@code encode=BATCH}, the suite's default) back to
 * back into one pooled buffer per batch, or ({@code encode=FRAME}) each into a buffer of its own
 * (what a {@code MessageToByteEncoder} produces: one buffer and one outbound entry per message,
 * and on Netty 4.2 a fresh NIO view of each buffer when it is written, ~130 B of heap per 64-octet
 * message). A larger message goes out as a prefix buffer and a retained slice of one pooled
 * payload buffer per frame (what {@code LengthFieldPrepender} produces: zero copy). The server
 * decodes every frame and copies its payload once into a preallocated buffer
 * ({@link FrameReceiver}); nothing completes per message.
 *
 * <p>One JMH operation is one message decoded by the server: the benchmark thread counts up to
 * the server's decoded count and parks (woken once per socket read) when it has caught up, so
 * the score is the stream's rate. One connection over 127.0.0.1, one event loop per side.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", NettyTuning.RECYCLER_BATCH,
    NettyTuning.LEAK_SAMPLING})
@Timeout(time = 60)
public class NettyStreamBenchmark {
  /** Messages written per flush. */
  static final int BATCH = 64;
  /** Batches the writer writes before it gives the event loop back for I/O. */
  static final int BATCHES_PER_TURN = 16;
  /** Messages up to this size are copied with their prefix into one buffer. */
  static final int COPY_LIMIT = 1024;

  /** Message size in octets. */
  @Param({"64", "512", "4096", "65536", "1048576"})
  public int size;

  /** Small messages: BATCH (one buffer per batch) or FRAME (one buffer per message). */
  @Param({"BATCH", "FRAME"})
  public String encode = "BATCH";

  private NettyPair pair;
  private ByteBuf source;
  private ByteBuf sink;
  private StreamWriter writer;
  private Counter counter;
  private long consumed;

  /** Connects the two sides and starts the stream (once per fork). */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    source = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
    for (int i = 0; i < size; i++) {
      source.writeByte(i * 31 + 7);
    }
    sink = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
    counter = new Counter(sink, size);
    if (!encode.equals("BATCH") && !encode.equals("FRAME")) {
      throw new IllegalArgumentException("encode must be BATCH or FRAME, not " + encode);
    }
    writer = new StreamWriter(source, size, encode.equals("BATCH"));
    pair = new NettyPair(1, i -> counter, i -> writer);
    writer.start(pair.clients[0]);
  }

  /** Skips what was decoded between iterations, so an iteration counts only its own time. */
  @Setup(Level.Iteration)
  public void resync() {
    consumed = counter.decoded;
  }

  /** One operation (see the class description). */
  @Benchmark
  public void message() {
    long want = ++consumed;
    if (counter.decoded < want) {
      counter.awaitAtLeast(want);
    }
  }

  /** Stops the stream, closes everything and releases every buffer. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (writer != null) {
      writer.stopped = true;
    }
    if (pair != null) {
      pair.close();
    }
    if (sink != null) {
      sink.release();
    }
    if (source != null) {
      source.release();
    }
  }

  /** The server side: decodes every frame and publishes the count once per socket read. */
  private static final class Counter extends FrameReceiver {
    private long count;
    volatile long decoded;
    private volatile Thread waiter;

    Counter(ByteBuf sink, int size) {
      super(sink, size, null);
    }

    @Override
    void onMessage(ChannelHandlerContext ctx, ByteBuf message) {
      count++;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      super.channelRead(ctx, msg);
      decoded = count;
      Thread t = waiter;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }

    /** Parks (bounded) until {@code want} messages have been decoded. */
    void awaitAtLeast(long want) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(VerbsPair.WAIT_SECONDS);
      waiter = Thread.currentThread();
      try {
        while (decoded < want) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new IllegalStateException("stream: " + decoded + " messages decoded, waited "
                + VerbsPair.WAIT_SECONDS + " s for " + want);
          }
          LockSupport.parkNanos(this, left);
        }
      } finally {
        waiter = null;
      }
    }
  }

  /** The client side: the event loop writes the stream while the channel is writable. */
  private static final class StreamWriter extends ChannelInboundHandlerAdapter implements Runnable {
    private final ByteBuf source;
    /**
     * The payload as an array for the copy path: copying from the pooled direct source into a
     * buffer of the channel's (adaptive) allocator makes an NIO view per copy (JFR).
     */
    private final byte[] payload;
    private final int size;
    private final boolean batchBuffer;
    private Channel channel;
    private boolean scheduled;
    volatile boolean stopped;

    StreamWriter(ByteBuf source, int size, boolean batchBuffer) {
      this.source = source;
      this.payload = new byte[Math.min(size, COPY_LIMIT)];
      source.getBytes(0, payload);
      this.size = size;
      this.batchBuffer = batchBuffer;
    }

    void start(Channel ch) {
      channel = ch;
      ch.eventLoop().execute(this);
    }

    @Override
    public void run() {
      scheduled = false;
      Channel ch = channel;
      for (int b = 0; b < BATCHES_PER_TURN; b++) {
        if (stopped || !ch.isActive() || !ch.isWritable()) {
          return;
        }
        if (size > COPY_LIMIT) {
          for (int k = 0; k < BATCH; k++) {
            FrameReceiver.writeMessage(ch, source, size, null);
          }
        } else if (batchBuffer) {
          ByteBuf out = ch.alloc().ioBuffer(BATCH * (2 + size));
          for (int k = 0; k < BATCH; k++) {
            out.writeShort(size).writeBytes(payload);
          }
          ch.write(out, ch.voidPromise());
        } else {
          for (int k = 0; k < BATCH; k++) {
            ch.write(ch.alloc().ioBuffer(2 + size).writeShort(size).writeBytes(payload),
                ch.voidPromise());
          }
        }
        ch.flush();
      }
      schedule();
    }

    private void schedule() {
      if (!scheduled && !stopped) {
        scheduled = true;
        channel.eventLoop().execute(this);
      }
    }

    /**
     * Writes still queued when the benchmark closes the channel fail here, one per write (void
     * promises); any other failure closes the channel too, and the benchmark thread then gives
     * up waiting with an exception.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel().isWritable() && channel != null) {
        schedule();
      }
      ctx.fireChannelWritabilityChanged();
    }
  }
}
