package io.iwarp4j.benchmarks;

import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * FPDU encode + decode (MPA framing with CRC on and off) against a plain 2-octet length-prefix
 * codec, in one run and one harness.
 *
 * <p>Each operation frames one ULPDU (an 18-octet header buffer plus a payload buffer, both
 * retained duplicates of pooled direct templates, as an upper layer would hand them down),
 * captures the gather list the codec writes, copies it into one "socket" buffer as the kernel
 * would (releasing each written buffer, which is what completes a send), and feeds that buffer
 * to the codec's decoder as one read; the listener reads the first header word and the length.
 * Both codecs go through exactly the same steps; the baseline just has no PAD, CRC or Markers.
 * {@code ulpduSize} is the whole ULPDU: 64 octets, or 65535 (the largest ULPDU_Length, "64 KiB").
 * {@code encode} and {@code decode} time the halves separately.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class FpduCodecBenchmark {
  /** An untagged DDP header's worth of filler octets in front of the payload. */
  private static final int HEADER = UntaggedHeader.LENGTH;

  /** ULPDU octets per FPDU, header included. */
  @Param({"64", "65535"})
  public int ulpduSize;

  /** {@code mpa-crc}, {@code mpa-nocrc}: iwarp4j's framer/deframer; {@code plain}: the baseline. */
  @Param({"mpa-crc", "mpa-nocrc", "plain"})
  public String codec;

  private EmbeddedChannel tx;
  private EmbeddedChannel rx;
  private Capture capture;
  private FpduFramer mpaFramer;
  private PlainLengthCodec.Framer plainFramer;
  private ByteBuf header;
  private ByteBuf payload;
  private ByteBuf socket;
  private ByteBuf encoded;
  private Sink sink;

  /** Keeps what the framer writes, in order, as a gather list. */
  private static final class Capture extends ChannelOutboundHandlerAdapter {
    final ByteBuf[] written = new ByteBuf[512];
    int count;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      written[count++] = (ByteBuf) msg;
    }

    /** Copies the gather list into {@code socket} and releases it, as a socket write does. */
    void sendTo(ByteBuf socket) {
      socket.clear();
      for (int i = 0; i < count; i++) {
        socket.writeBytes(written[i], written[i].readerIndex(), written[i].readableBytes());
        written[i].release();
        written[i] = null;
      }
      count = 0;
    }

    void discard() {
      for (int i = 0; i < count; i++) {
        written[i].release();
        written[i] = null;
      }
      count = 0;
    }
  }

  /** The upper layer: touches the ULPDU like DDP would look at its header. */
  private static final class Sink implements UlpduListener {
    Blackhole bh;

    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
      bh.consume(ulpdu.getInt(0));
      bh.consume(ulpdu.length());
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
      throw new IllegalStateException(error);
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    sink = new Sink();
    capture = new Capture();
    tx = new EmbeddedChannel(capture, new ChannelInboundHandlerAdapter());
    ChannelHandlerContext ctx = tx.pipeline().lastContext();
    ChannelHandler decoder;
    switch (codec) {
      case "mpa-crc" -> {
        mpaFramer = new FpduFramer(ctx, true, false, 65535);
        decoder = new FpduDeframer(true, false, sink);
      }
      case "mpa-nocrc" -> {
        mpaFramer = new FpduFramer(ctx, false, false, 65535);
        decoder = new FpduDeframer(false, false, sink);
      }
      case "plain" -> {
        plainFramer = new PlainLengthCodec.Framer(ctx);
        decoder = new PlainLengthCodec.Deframer(sink);
      }
      default -> throw new IllegalArgumentException("unknown codec " + codec);
    }
    rx = new EmbeddedChannel(decoder);
    header = tx.alloc().directBuffer(HEADER);
    for (int i = 0; i < HEADER; i++) {
      header.writeByte(0x41 + i);
    }
    payload = tx.alloc().directBuffer(ulpduSize - HEADER);
    for (int i = 0; i < ulpduSize - HEADER; i++) {
      payload.writeByte(i);
    }
    socket = tx.alloc().directBuffer(ulpduSize + 16);
    encode();
    capture.sendTo(socket);
    encoded = tx.alloc().directBuffer(socket.readableBytes()).writeBytes(socket);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    capture.discard();
    header.release();
    payload.release();
    socket.release();
    encoded.release();
    tx.finishAndReleaseAll();
    rx.finishAndReleaseAll();
  }

  /** Frames one ULPDU; its buffers end up in the capture. */
  private void encode() {
    if (mpaFramer != null) {
      mpaFramer.write(header.retainedDuplicate(), payload.retainedDuplicate());
    } else {
      plainFramer.write(header.retainedDuplicate(), payload.retainedDuplicate());
    }
  }

  /** Encode, hand the gather list to the "socket", decode it as one read. */
  @Benchmark
  public void roundTrip(Blackhole bh) {
    sink.bh = bh;
    encode();
    capture.sendTo(socket);
    rx.pipeline().fireChannelRead(socket.retain());
  }

  /** Encode only; the written buffers are released as a socket write would. */
  @Benchmark
  public void encodeOnly() {
    encode();
    capture.discard();
  }

  /** Decode only, one pre-encoded FPDU per read. */
  @Benchmark
  public void decodeOnly(Blackhole bh) {
    sink.bh = bh;
    rx.pipeline().fireChannelRead(encoded.retainedDuplicate());
  }
}
