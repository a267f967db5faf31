package io.iwarp4j.benchmarks.suite;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
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
 * The ceiling: a plain blocking NIO stream over 127.0.0.1, no framing, no event loop. One JMH
 * operation writes {@code size} octets from a direct buffer; a reader thread reads everything
 * into a preallocated direct buffer (one copy). Nothing above TCP can move octets faster here.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", NettyTuning.RECYCLER_BATCH,
    NettyTuning.LEAK_SAMPLING})
@Timeout(time = 60)
public class NioStreamBenchmark {
  /** Octets per write. */
  @Param({"64", "512", "4096", "65536", "1048576"})
  public int size;

  private ServerSocketChannel server;
  private SocketChannel writer;
  private SocketChannel reader;
  private Thread readerThread;
  private ByteBuffer out;

  /** Connects the two sides and prepares the memory (once per fork). */
  @Setup(Level.Trial)
  public void setUp() throws IOException {
    server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    writer = SocketChannel.open(server.getLocalAddress());
    writer.setOption(StandardSocketOptions.TCP_NODELAY, true);
    reader = server.accept();
    out = ByteBuffer.allocateDirect(size);
    readerThread = new Thread(() -> {
      ByteBuffer in = ByteBuffer.allocateDirect(1 << 20);
      try {
        while (reader.read(in.clear()) >= 0) {
          // Consumed: the copy out of the socket is the work.
        }
      } catch (IOException e) {
        // The benchmark closed the stream.
      }
    }, "nio-stream-reader");
    readerThread.setDaemon(true);
    readerThread.start();
  }

  /** One operation (see the class description). */
  @Benchmark
  public void message() throws IOException {
    out.clear();
    while (out.hasRemaining()) {
      writer.write(out);
    }
  }

  /** Closes everything and releases every buffer. */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    writer.close();
    readerThread.join(TimeUnit.SECONDS.toMillis(VerbsPair.WAIT_SECONDS));
    reader.close();
    server.close();
  }
}
