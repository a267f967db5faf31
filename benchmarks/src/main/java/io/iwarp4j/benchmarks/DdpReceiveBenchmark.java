package io.iwarp4j.benchmarks;

import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Mulpdu;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.TaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
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
 * The DDP receive path: one tagged segment (an RDMA Write, L=1) per operation, from pre-built
 * FPDU octets through the MPA deframer (CRC check) and {@link DdpStream} (validation against the
 * STag table, one copy into a registered region, delivery). Run with {@code -prof gc}: the
 * steady state should allocate nothing ({@code gc.alloc.rate.norm} about 0 B/op).
 *
 * <p>{@code payload}: 4096 octets ("4 KiB"), or 65460 ("64 KiB": the largest tagged payload for
 * an EMSS of 65483, whose MULPDU is {@code Mulpdu.of(65483, false)} = 65474 = 14 + 65460).
 * {@code reads}: the FPDU arrives as 1 read, or as 4 reads that the stream places piece by piece
 * (the deframer holds the earlier reads until the CRC is checked). Sixteen FPDUs target sixteen
 * consecutive TOs of a 16-segment region, so the copies do not all hit the same cache lines.
 * The read buffers are direct and reused (retained per read, as the deframer releases each).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class DdpReceiveBenchmark {
  /** The EMSS the 64 KiB case is sized for. */
  public static final int EMSS = 65483;
  private static final int SEGMENTS = 16;

  /** Tagged payload octets per segment. */
  @Param({"4096", "65460"})
  public int payload;

  /** Whether MPA CRCs are checked. */
  @Param({"true", "false"})
  public boolean crc;

  /** Reads each FPDU arrives in. */
  @Param({"1", "4"})
  public int reads;

  private EmbeddedChannel channel;
  private FpduDeframer deframer;
  private ChannelHandlerContext ctx;
  private StagTable table;
  private ProtectionDomain pd;
  private MemoryRegion region;
  private Counter counter;
  /** [segment][read]. */
  private ByteBuf[][] wire;
  private int next;

  /** The upper layer: RDMA Writes only; counts what was delivered. */
  private static final class Counter implements DdpStreamListener {
    long octets;
    long errors;

    @Override
    public boolean acceptTagged(int rsvdUlp, Ulpdu segment) {
      return true;
    }

    @Override
    public void onTaggedMessage(int rsvdUlp, int stag, long to, long length) {
      octets += length;
    }

    @Override
    public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
    }

    @Override
    public void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message) {
    }

    @Override
    public void onDdpError(DdpError error, Ulpdu segment, int headerLength) {
      errors++;
    }

    @Override
    public void onMpaError(MpaException error) {
      errors++;
    }

    @Override
    public void onInputClosed() {
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    if (payload + TaggedHeader.LENGTH > Mulpdu.MAX_ULPDU_LENGTH) {
      throw new IllegalArgumentException("payload " + payload + " does not fit one FPDU");
    }
    table = new StagTable(16);
    pd = table.newProtectionDomain();
    region = pd.register(ByteBuffer.allocateDirect(SEGMENTS * payload),
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, RegionOptions.defaults().zeroBased());
    deframer = new FpduDeframer(crc, false, new Unstarted());
    channel = new EmbeddedChannel(deframer);
    ctx = channel.pipeline().context(deframer);
    FpduFramer framer = new FpduFramer(ctx, crc, false, Mulpdu.of(EMSS, false));
    counter = new Counter();
    DdpStream stream = new DdpStream(channel, framer, deframer, null, false, pd, counter);
    stream.start();
    wire = new ByteBuf[SEGMENTS][];
    for (int s = 0; s < SEGMENTS; s++) {
      wire[s] = split(fpdu(s * (long) payload));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (counter.errors != 0 || counter.octets == 0 || counter.octets != region.placedOctets()) {
      throw new IllegalStateException("the receive path misbehaved: " + counter.errors
          + " errors, " + counter.octets + " octets delivered, " + region.placedOctets()
          + " placed");
    }
    channel.finishAndReleaseAll();
    for (ByteBuf[] segment : wire) {
      for (ByteBuf b : segment) {
        b.release();
      }
    }
    region.close();
    pd.close();
  }

  /** The FPDU octets of one RDMA Write segment to {@code to}, framed by the real framer. */
  private byte[] fpdu(long to) {
    EmbeddedChannel tx = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    try {
      FpduFramer framer = new FpduFramer(tx.pipeline().firstContext(), crc, false,
          Mulpdu.MAX_ULPDU_LENGTH);
      ByteBuf segment = Unpooled.buffer(TaggedHeader.LENGTH + payload);
      TaggedHeader.write(segment, true, RdmapControl.encode(RdmapOpcode.RDMA_WRITE), region.stag(),
          to);
      for (int i = 0; i < payload; i++) {
        segment.writeByte(i * 31);
      }
      framer.write(segment, null);
      framer.flush();
      ByteBuf all = Unpooled.buffer();
      for (ByteBuf b; (b = tx.readOutbound()) != null; ) {
        all.writeBytes(b);
        b.release();
      }
      byte[] out = new byte[all.readableBytes()];
      all.readBytes(out);
      all.release();
      return out;
    } finally {
      tx.finishAndReleaseAll();
    }
  }

  /** {@code reads} direct buffers holding consecutive parts of the FPDU. */
  private ByteBuf[] split(byte[] fpdu) {
    ByteBuf[] parts = new ByteBuf[reads];
    int from = 0;
    for (int i = 0; i < reads; i++) {
      int to = (int) ((long) fpdu.length * (i + 1) / reads);
      parts[i] = Unpooled.directBuffer(to - from).writeBytes(fpdu, from, to - from);
      from = to;
    }
    return parts;
  }

  /** One segment: its reads handed to the deframer as the channel would hand them. */
  @Benchmark
  public long receiveTaggedSegment() {
    ByteBuf[] segment = wire[next];
    next = (next + 1) & (SEGMENTS - 1);
    for (ByteBuf read : segment) {
      deframer.channelRead(ctx, read.retain().readerIndex(0));
    }
    return counter.octets;
  }

  /** The deframer's listener until the stream starts; never called. */
  private static final class Unstarted implements UlpduListener {
    @Override
    public void onUlpdu(ChannelHandlerContext c, Ulpdu ulpdu) {
      throw new IllegalStateException("the DDP stream was not started");
    }

    @Override
    public void onMpaError(ChannelHandlerContext c, MpaException error) {
      throw new IllegalStateException(error);
    }

    @Override
    public void onInputClosed(ChannelHandlerContext c) {
    }
  }
}
