package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.FramedStream;
import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.PlatformDependent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Steady state allocates nothing per operation: RDMA Writes, Sends, RDMA Reads (requester and
 * responder) and receive posts, each message several segments, through the whole stack on both
 * ends (RDMAP, DDP, MPA framing and deframing), measured with the JVM's per-thread allocation
 * counter (test-support's {@link AllocationMeter}): octets, not time. After a warm-up,
 * windows of 1 000 rounds are measured until one allocates (almost) nothing: Netty's object
 * pools fill up during the first windows, but with an allocation per operation no window could
 * get there.
 *
 * <p>The conditions of the claim: the thread is a {@link FastThreadLocalThread}, as an event
 * loop is (Netty recycles buffer and slice objects only there); memory is pooled (registered
 * over {@link PooledByteBufAllocator} buffers, whose slices are recycled, and the channels
 * allocate headers from the same allocator); the leak detector is off while this test runs,
 * because under PARANOID it records a stack trace per buffer access; and MPA runs without CRC:
 * feeding the CRC from a pooled slice makes Netty create a ByteBuffer view per piece (MPA's
 * {@code Crc32c}, documented in {@code FpduFramer}), about 40 per round here, which is MPA's
 * to remove, not RDMAP's. The two ends are joined by a pipe that hands each written buffer to
 * the peer as an inbound read without copying, so the harness itself allocates nothing either.
 * It runs twice: with zero-copy Read Responses, and with the Read Response snapshots of CRC on
 * (a copy into a pooled direct buffer per Read Response: recycled, so no heap either).
 */
class RdmapAllocationTest {
  private static final int WARM_UP = 2_000;
  /** Rounds per measured window. */
  private static final int WINDOW = 1_000;
  private static final int MAX_WINDOWS = 12;
  /**
   * What a window may allocate: far below one object per operation (a window issues 4 000
   * operations; one 16-octet object each would be 64 000 octets).
   */
  private static final long QUIET = 2 * 1024;
  private static final int SIZE = 3000;

  /** Counts what the endpoint reports; allocates nothing. */
  private static final class Counting implements RdmapEndpointListener {
    long sendCompletions;
    long readCompletions;
    long received;
    long ends;

    @Override
    public void onSendComplete(long token) {
      sendCompletions++;
    }

    @Override
    public void onReadComplete(long token, long length) {
      readCompletions++;
    }

    @Override
    public void onReceive(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
      received += length;
    }

    @Override
    public void onImmediateData(long bufferId, RdmapOpcode opcode, long data) {
      received += Long.BYTES;
    }

    @Override
    public void onTerminateSent(int layer, int errorType, int errorCode) {
      ends++;
    }

    @Override
    public void onTerminateReceived(int layer, int errorType, int errorCode) {
      ends++;
    }

    @Override
    public void onDisconnected(boolean graceful) {
      ends++;
    }
  }

  /** The socket: on flush, queues what was written for the peer, buffers and all. */
  private static final class Pipe extends ChannelOutboundHandlerAdapter {
    final ArrayDeque<Object> written = new ArrayDeque<>();
    final ArrayDeque<Object> inFlight = new ArrayDeque<>();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      written.add(msg);
      promise.trySuccess();
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
      Object m;
      while ((m = written.poll()) != null) {
        inFlight.add(m);
      }
    }

    void releaseAll() {
      Object m;
      while ((m = written.poll()) != null) {
        ((ByteBuf) m).release();
      }
      while ((m = inFlight.poll()) != null) {
        ((ByteBuf) m).release();
      }
    }
  }

  /** One end. */
  private static final class End {
    final Pipe pipe = new Pipe();
    final EmbeddedChannel channel;
    final Counting events = new Counting();
    final RdmapEndpoint endpoint;

    /** @param snapshots null: CRC off, zero-copy Read Responses; else told CRC is on */
    End(ProtectionDomain pd, boolean initiator, ReadResponseCopyBudget snapshots) {
      FramedStream end = FramedStream.builder().allocator(PooledByteBufAllocator.DEFAULT)
          .before(pipe).build(initiator, pd, null);
      channel = end.channel;
      DdpStream stream = end.stream;
      // With a budget the endpoint is told CRC is on, so its Read Responses are snapshots (the
      // framer still computes no CRC, for the reason in the class comment).
      endpoint = snapshots == null ? new RdmapEndpoint(stream, events, 2, 2, 4, 2)
          : new RdmapEndpoint(stream, events, 2, 2, 4, 2, true, new RdmapCounters(), true,
              snapshots);
    }
  }

  @ParameterizedTest(name = "readResponseSnapshots={0}")
  @ValueSource(booleans = {false, true})
  void writesSendsReadsAtomicsImmediatesAndPostsAllocateNothingPerOperation(boolean snapshots)
      throws Throwable {
    AllocationMeter meter = AllocationMeter.create();
    if (!PlatformDependent.hasUnsafe()) {
      System.err.println("ALLOCATION CHECK SKIPPED: Netty runs without sun.misc.Unsafe on this JVM;"
          + " start it with --sun-misc-unsafe-memory-access=allow (JDK 24+)");
    }
    assumeTrue(PlatformDependent.hasUnsafe(), "Netty runs without sun.misc.Unsafe: its buffer"
        + " copies allocate");
    // Netty recycles buffer and slice objects on its own threads (FastThreadLocalThread), as
    // event loops are; on other threads every Recycler.get() creates a new object.
    Throwable[] failure = new Throwable[1];
    Thread loop = new FastThreadLocalThread(() -> {
      try {
        run(meter, snapshots ? new ReadResponseCopyBudget(ReadResponseCopyBudget.DEFAULT_CAPACITY)
            : null);
      } catch (Throwable t) {
        failure[0] = t;
      }
    }, "rdmap-allocation-test");
    loop.start();
    loop.join();
    if (failure[0] != null) {
      throw failure[0];
    }
  }

  /** Runs on the loop thread: {@code meter} counts what that thread allocates. */
  private static void run(AllocationMeter meter, ReadResponseCopyBudget snapshots) {
    ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    long seed = 97;
    System.out.println("RdmapAllocationTest seed=" + seed);
    StagTable table = new StagTable(16, new SplittableRandom(seed), Duration.ofSeconds(10));
    ProtectionDomain pdA = table.newProtectionDomain();
    ProtectionDomain pdB = table.newProtectionDomain();
    ByteBuf memA = PooledByteBufAllocator.DEFAULT.directBuffer(4 * SIZE, 4 * SIZE);
    ByteBuf memB = PooledByteBufAllocator.DEFAULT.directBuffer(4 * SIZE, 4 * SIZE);
    // Pooled memory comes back as the last user left it (this test runs twice): start at zero.
    memA.setZero(0, memA.capacity());
    memB.setZero(0, memB.capacity());
    End a = null;
    End b = null;
    try (MemoryRegion ra = pdA.register(memA, Regions.ALL);
        MemoryRegion rb = pdB.register(memB, Regions.ALL | io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC)) {
      byte[] pattern = new byte[4 * SIZE];
      new SplittableRandom(seed).nextBytes(pattern);
      memA.setBytes(0, pattern);
      memB.setBytes(SIZE, pattern, SIZE, SIZE);
      a = new End(pdA, true, snapshots);
      b = new End(pdB, false, snapshots);
      a.endpoint.start();
      b.endpoint.start();
      ByteBuf[] receive = {memB.slice(2 * SIZE, SIZE / 2), memB.slice(2 * SIZE + SIZE / 2,
          SIZE / 2)};
      GatherList twoPieces = new GatherList();
      GatherList onePiece = new GatherList();

      long windowStart = 0;
      long quietest = Long.MAX_VALUE;
      StringBuilder windows = new StringBuilder();
      int round = 0;
      for (; round < WARM_UP + MAX_WINDOWS * WINDOW; round++) {
        if (round >= WARM_UP && (round - WARM_UP) % WINDOW == 0) {
          long now = meter.allocatedBytes();
          if (round > WARM_UP) {
            long allocated = now - windowStart;
            windows.append(allocated).append(' ');
            quietest = Math.min(quietest, allocated);
            if (allocated < QUIET) {
              break; // Netty's object pools have filled: the steady state is reached
            }
          }
          windowStart = meter.allocatedBytes();
        }
        b.endpoint.postReceive(round, receive, 2);
        twoPieces.clear();
        twoPieces.add(memA, 0, SIZE / 3).add(memA, SIZE / 3, SIZE - SIZE / 3);
        a.endpoint.write(round, rb.stag(), rb.baseTo() + 3 * SIZE, twoPieces);
        onePiece.clear();
        onePiece.add(memA, SIZE, SIZE);
        a.endpoint.send(round, RdmapOpcode.SEND, 0, onePiece);
        a.endpoint.read(round, ra.stag(), ra.baseTo() + 2 * SIZE, SIZE, rb.stag(),
            rb.baseTo() + SIZE);
        // RFC 7306: a FetchAdd on memB[0, 8) (its original to memA[3 SIZE]) and Immediate Data,
        // which consumes a second receive without filling it.
        b.endpoint.postReceive(round, receive, 2);
        a.endpoint.atomic(round, AtomicOpcode.FETCH_ADD, rb.stag(), rb.baseTo(), 1, 0, 0, 0,
            ra.stag(), ra.baseTo() + 3 * SIZE);
        a.endpoint.immediate(round, round % 2 == 0, round);
        a.endpoint.flush();
        shuttle(a, b);
      }
      System.out.println("RdmapAllocationTest: octets allocated per window of " + WINDOW
          + " rounds: " + windows);
      long total = round;
      assertEquals(3 * total, a.events.sendCompletions);
      assertEquals(2 * total, a.events.readCompletions);
      assertEquals(total * (SIZE + Long.BYTES), b.events.received);
      assertEquals(total, rb.getLong(0), "one FetchAdd(+1) per round");
      assertEquals(total - 1, ra.getLong(3 * SIZE), "the last original value");
      assertEquals(0, a.events.ends + b.events.ends);
      assertEquals(snapshots == null ? 0 : total,
          b.endpoint.counters().get(RdmapCounters.READ_RESPONSE_SNAPSHOTS), "B's snapshots");
      assertEquals(0, snapshots == null ? 0 : snapshots.inUse(), "every charge given back");
      // Allocating per operation, no window could get below 16 octets x 4 000 operations.
      assertTrue(quietest < QUIET, "no window of " + WINDOW + " rounds (a Write, a Send, a Read, a FetchAdd, an Immediate"
          + " Data and two receive posts each, 8 segments each way) allocated less than " + QUIET
          + " octets: " + windows);
      byte[] expectedWrite = new byte[SIZE];
      System.arraycopy(pattern, 0, expectedWrite, 0, SIZE);
      byte[] written = new byte[SIZE];
      memB.getBytes(3 * SIZE, written);
      assertArrayEquals(expectedWrite, written);
      byte[] read = new byte[SIZE];
      memA.getBytes(2 * SIZE, read);
      byte[] expectedRead = new byte[SIZE];
      System.arraycopy(pattern, SIZE, expectedRead, 0, SIZE);
      assertArrayEquals(expectedRead, read);
      byte[] received = new byte[SIZE];
      memB.getBytes(2 * SIZE, received);
      assertArrayEquals(expectedRead, received, "the Send carried memA[SIZE, 2 SIZE)");
    } finally {
      if (a != null) {
        a.pipe.releaseAll();
        a.channel.finishAndReleaseAll();
      }
      if (b != null) {
        b.pipe.releaseAll();
        b.channel.finishAndReleaseAll();
      }
      memA.release();
      memB.release();
      pdA.close();
      pdB.close();
      ResourceLeakDetector.setLevel(level);
    }
  }

  /** Hands each end's flushed buffers to the other until both are quiet. */
  private static void shuttle(End a, End b) {
    boolean moved;
    do {
      a.channel.runPendingTasks();
      b.channel.runPendingTasks();
      moved = deliver(a, b) | deliver(b, a);
    } while (moved);
  }

  private static boolean deliver(End from, End to) {
    boolean moved = false;
    Object m;
    while ((m = from.pipe.inFlight.poll()) != null) {
      moved = true;
      to.channel.pipeline().fireChannelRead(m);
    }
    if (moved) {
      to.channel.pipeline().fireChannelReadComplete();
    }
    return moved;
  }
}
