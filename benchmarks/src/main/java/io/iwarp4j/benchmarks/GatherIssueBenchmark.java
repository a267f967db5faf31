package io.iwarp4j.benchmarks;

import io.iwarp4j.ddp.DdpSegmenter;
import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.SegmentWriter;
import io.iwarp4j.verbs.LocalBuffer;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.iwarp4j.verbs.engine.SendQueue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * The cost of handing a send work request's payload to DDP and cutting it into segments, without
 * the transport: DDP reading the send-queue entry's scatter/gather list in place
 * ({@code entryInPlace}: one send view set per SGE, the entry passed as DDP's {@code Gather})
 * against copying every SGE into a {@link GatherList} first ({@code gatherListCopy}, the issue
 * path before the entry became the {@code Gather}). Both run in one JVM, so the segmenter's
 * calls see both subclasses (bimorphic), as in a stack that also sends Read Responses. The
 * writer takes headers in place into one reused buffer and only sums the payload ranges, so
 * the score is the segmenter's and the hand-over's work.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class GatherIssueBenchmark {

  /** SGEs per work request. */
  @Param({"1", "4"})
  public int sges;

  /** Payload octets per SGE. */
  @Param({"64"})
  public int sgeLength;

  private ByteBuf memory;
  private ByteBuf view;
  private DdpSegmenter segmenter;
  private GatherList gather;
  private SendQueue.Entry entry;
  private final Writer writer = new Writer();

  /** Stands in for the framer: headers in place into one buffer, payload ranges summed. */
  static final class Writer implements SegmentWriter {
    final ByteBuf headers = Unpooled.buffer(64);
    long sum;

    @Override
    public ByteBuf beginSegmentInPlace(int headerLength, int payloadLength) {
      return headers.clear();
    }

    @Override
    public void beginSegment(ByteBuf header, int payloadLength) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void addPayload(ByteBuf piece) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void addPayload(ByteBuf source, int index, int length) {
      sum += index + length + source.capacity();
    }

    @Override
    public void endSegment() {
      sum++;
    }

    @Override
    public int maxUlpduLength() {
      return 32762;
    }
  }

  private record Memory(ByteBuf buffer) implements LocalBuffer {
    @Override
    public long length() {
      return buffer.capacity();
    }

    @Override
    public int stag() {
      return 0x100;
    }
  }

  @Setup
  public void setUp() {
    memory = Unpooled.directBuffer(sges * sgeLength, sges * sgeLength);
    view = memory.duplicate();
    segmenter = new DdpSegmenter(writer, ByteBufAllocator.DEFAULT);
    gather = new GatherList(sges);
    SendQueue sq = new SendQueue(4, sges, () -> { });
    SendWorkRequest wr = new SendWorkRequest(sges).opcode(WorkRequestOpcode.RDMA_WRITE);
    Memory m = new Memory(memory);
    for (int i = 0; i < sges; i++) {
      wr.addSge(m, (long) i * sgeLength, sgeLength);
    }
    sq.post(wr);
    sq.drain();
    entry = sq.nextUnissued();
  }

  @TearDown
  public void tearDown() {
    memory.release();
  }

  /** Before: every SGE copied into a GatherList, cut, the list cleared. */
  @Benchmark
  public long gatherListCopy() {
    for (int i = 0; i < sges; i++) {
      gather.add(view, i * sgeLength, sgeLength);
    }
    segmenter.sendTagged(0x40, 0x200, 0, gather);
    gather.clear();
    return writer.sum;
  }

  /** Now: a send view per SGE set in the entry, the entry cut in place, the views dropped. */
  @Benchmark
  public long entryInPlace() {
    for (int i = 0; i < sges; i++) {
      entry.sendView(i, view);
    }
    segmenter.sendTagged(0x40, 0x200, 0, entry);
    entry.dropSendViews();
    return writer.sum;
  }
}
