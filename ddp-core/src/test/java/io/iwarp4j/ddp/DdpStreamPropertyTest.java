package io.iwarp4j.ddp;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.RecordingStreamListener;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Tagged;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Untagged;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Acceptance 3: random messages of 0 B to 16 MiB with random gather lists of 1-4 pieces, random
 * MULPDU, CRC and Markers on or off, and random TCP chunking (down to 1-octet reads for small
 * batches), through MPA and DDP between two streams. Tagged messages are RDMA Writes / Read
 * Responses into fresh regions at random TOs (random base TOs, some near 2^64); untagged ones
 * are Sends into posted buffers that are scatter lists of 1-4 pieces with gaps. After each
 * batch: the deliveries are exactly the messages sent, in order, with their lengths; every
 * payload octet is where it belongs; every other octet of every buffer (slack, gaps, guards
 * around each region) is untouched; each payload octet was placed exactly once; every read
 * buffer was released, and every buffer the stack allocated was released too (counted exactly by
 * a private allocator's metric, instead of the PARANOID detector's stack traces, whose cost per
 * access would make this test take minutes; the bulk memory is plain NIO for the same reason).
 *
 * <p>Seeded: each run uses {@code seed + run}; a failure names the seed to replay with
 * {@code -Diwarp4j.test.seed=N}.
 */
class DdpStreamPropertyTest {
  private static final long SEED = Long.getLong("iwarp4j.test.seed", 0xDD95_7EA1L);
  private static final int RUNS = 12;
  private static final int MAX_MESSAGE = 16 << 20;
  private static final int GUARD = 16;
  /**
   * Per run, stop after this many payload octets or segments (run 0 also carries one 16 MiB
   * message): a run takes well under a second either way.
   */
  private static final long BUDGET = 3 << 20;
  private static final long SEGMENT_BUDGET = 3000;
  /** Buffers up to this size are kept until the end of the run and checked again then. */
  private static final int KEEP_LIMIT = 64 << 10;
  private static final int WRITE = 0x40;
  private static final int READ_RESPONSE = 0x42;

  static IntStream runs() {
    return IntStream.range(0, RUNS);
  }

  @ParameterizedTest(name = "run {0}")
  @MethodSource("runs")
  void everyOctetLandsWhereItShouldAndNowhereElse(int run) {
    long seed = SEED + run;
    try {
      new Run(run, seed).execute();
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("run " + run + " failed with seed " + seed + " (replay with"
          + " -Diwarp4j.test.seed=" + SEED + "): " + e.getMessage(), e);
    }
  }

  /** A target buffer: its expected content, and the message it is checked after. */
  private static final class Target {
    final ByteBuf memory;
    final byte[] expected;
    final MemoryRegion region;

    Target(ByteBuf memory, byte[] expected, MemoryRegion region) {
      this.memory = memory;
      this.expected = expected;
      this.region = region;
    }

    void check(String what) {
      byte[] actual = new byte[memory.capacity()];
      memory.getBytes(0, actual);
      if (!Arrays.equals(expected, actual)) {
        int i = Arrays.mismatch(expected, actual);
        throw new AssertionError(what + ": octet " + i + " of " + actual.length + " is "
            + actual[i] + ", expected " + expected[i]);
      }
    }

    void free() {
      if (region != null) {
        region.close();
      }
      memory.release();
    }
  }

  private static final class Run {
    final int run;
    final SplittableRandom rnd;
    final boolean crc;
    final boolean markers;
    final int mulpdu;
    final int maxMessage;
    final StagTable table;
    final ProtectionDomain pdA;
    final ProtectionDomain pdB;
    final List<Target> kept = new ArrayList<>();
    /** Counts every buffer the stack allocates; no leak tracking, hence no stack traces. */
    final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(true, true);
    MemoryRegion source;
    ByteBuf sourceMemory;
    byte[] sourceBytes;
    int nextMsn = 1;
    long nextId = 1;
    long untaggedPlaced;
    long segments;

    Run(int run, long seed) {
      this.run = run;
      this.rnd = new SplittableRandom(seed);
      this.crc = rnd.nextBoolean();
      this.markers = rnd.nextInt(3) == 0;
      int limit = markers ? FpduFramer.MAX_ULPDU_LENGTH_WITH_MARKERS : 0xFFFF;
      if (run == 0) {
        mulpdu = limit - rnd.nextInt(64);
      } else {
        mulpdu = switch (rnd.nextInt(3)) {
          case 0 -> 19 + rnd.nextInt(200);
          case 1 -> 220 + rnd.nextInt(4000);
          default -> 4000 + rnd.nextInt(limit - 4000 + 1);
        };
      }
      // Bound the segments per message so small MULPDUs stay fast.
      maxMessage = (int) Math.min(MAX_MESSAGE, 1000L * (mulpdu - UntaggedHeader.LENGTH));
      table = new StagTable(4096, new SplittableRandom(seed), Duration.ofSeconds(10));
      pdA = table.newProtectionDomain();
      pdB = table.newProtectionDomain();
    }

    void execute() {
      int poolSize = maxMessage + (64 << 10);
      sourceBytes = new byte[poolSize];
      rnd.nextBytes(sourceBytes);
      sourceMemory = untracked(poolSize);
      sourceMemory.setBytes(0, sourceBytes);
      source = pdA.register(sourceMemory, REMOTE_READ);
      try (StreamPair pair = new StreamPair(crc, markers, mulpdu, pdA, pdB, alloc)) {
        pair.b.stream.enableReceiveQueue(0, 8, 4);
        pair.b.stream.start();
        pair.a.stream.start();
        long sent = 0;
        if (run == 0) {
          sent += batch(pair, new int[] {MAX_MESSAGE});
        }
        while (sent < BUDGET && segments < SEGMENT_BUDGET) {
          int[] lengths = new int[1 + rnd.nextInt(5)];
          for (int i = 0; i < lengths.length; i++) {
            lengths[i] = messageLength();
          }
          sent += batch(pair, lengths);
        }
        for (Target t : kept) {
          t.check("a buffer of an earlier batch, at the end of the run");
        }
        assertEquals(untaggedPlaced, pair.b.stream.receiveQueue(0).placedOctets(),
            "each untagged payload octet copied exactly once");
      } finally {
        for (Target t : kept) {
          t.free();
        }
        source.close();
        sourceMemory.release();
        pdA.close();
        pdB.close();
      }
    }

    /** Mostly small, some medium, a few large. */
    int messageLength() {
      int p = rnd.nextInt(100);
      if (p < 5) {
        return 0;
      }
      if (p < 75) {
        return rnd.nextInt(Math.min(2048, maxMessage) + 1);
      }
      if (p < 95) {
        return rnd.nextInt(Math.min(256 << 10, maxMessage) + 1);
      }
      return rnd.nextInt(maxMessage + 1);
    }

    /** Sends one batch of messages, flushes once, moves it, checks everything. */
    long batch(StreamPair pair, int[] lengths) {
      List<Object> expectedDeliveries = new ArrayList<>();
      List<Target> targets = new ArrayList<>();
      List<long[]> tagged = new ArrayList<>(); // {length} per tagged target, for placedOctets
      long total = 0;
      GatherList gather = new GatherList();
      for (int length : lengths) {
        total += length;
        segments += 1 + length / (mulpdu - UntaggedHeader.LENGTH);
        int[] sourceOffsets = gather(gather, length);
        byte[] payload = payloadOf(sourceOffsets, gather);
        if (rnd.nextBoolean()) {
          Target t = taggedTarget(length, payload);
          int rsvdUlp = rnd.nextBoolean() ? WRITE : READ_RESPONSE;
          long to = t.region.baseTo() + lastSlackBefore;
          pair.a.stream.sendTagged(rsvdUlp, t.region.stag(), to, gather);
          expectedDeliveries.add(new Tagged(rsvdUlp, t.region.stag(), to, length));
          targets.add(t);
          tagged.add(new long[] {length});
        } else {
          long id = nextId++;
          GatherList scatter = new GatherList();
          Target t = untaggedTarget(length, payload, scatter);
          pair.b.stream.receiveQueue(0).post(scatter, id);
          long rsvdUlp = 0x43L << 32 | (rnd.nextLong() & 0xFFFF_FFFFL);
          int msn = pair.a.stream.sendUntagged(rsvdUlp, 0, null, gather);
          assertEquals(nextMsn, msn);
          expectedDeliveries.add(new Untagged(0, nextMsn++, rsvdUlp, length, id));
          targets.add(t);
          tagged.add(null);
          untaggedPlaced += length;
        }
        gather.clear();
      }
      pair.a.stream.flush();
      pair.chunker = chunker(total);
      pair.shuttle();

      RecordingStreamListener b = pair.b.listener;
      assertTrue(b.errors.isEmpty(), "errors: " + b.errors + describe());
      assertTrue(b.mpaErrors.isEmpty(), "MPA errors: " + b.mpaErrors + describe());
      assertEquals(expectedDeliveries, b.deliveries, "deliveries" + describe());
      b.deliveries.clear();
      for (int i = 0; i < targets.size(); i++) {
        Target t = targets.get(i);
        t.check("message " + i + " of the batch, " + lengths[i] + " octets" + describe());
        if (tagged.get(i) != null) {
          assertEquals(tagged.get(i)[0], t.region.placedOctets(),
              "each tagged payload octet copied exactly once");
        }
        if (t.memory.capacity() <= KEEP_LIMIT) {
          kept.add(t);
        } else {
          t.free();
        }
      }
      pair.a.assertReadsReleased();
      pair.b.assertReadsReleased();
      assertEquals(0, alloc.metric().usedDirectMemory(), "direct memory not released" + describe());
      assertEquals(0, alloc.metric().usedHeapMemory(), "heap buffers not released" + describe());
      return total;
    }

    private String describe() {
      return " (run " + run + ", crc " + crc + ", markers " + markers + ", MULPDU " + mulpdu + ")";
    }

    /** Fills {@code gather} with 1-4 pieces at random places of the source; returns them. */
    int[] gather(GatherList gather, int length) {
      int pieces = 1 + rnd.nextInt(4);
      int[] offsets = new int[pieces];
      int left = length;
      ByteBuf view = source.buffer();
      for (int i = 0; i < pieces; i++) {
        int n = i == pieces - 1 ? left : rnd.nextInt(left + 1);
        offsets[i] = rnd.nextInt(sourceBytes.length - n + 1);
        gather.add(view, offsets[i], n);
        left -= n;
      }
      return offsets;
    }

    byte[] payloadOf(int[] offsets, GatherList gather) {
      byte[] payload = new byte[(int) gather.totalLength()];
      int pos = 0;
      for (int i = 0; i < gather.size(); i++) {
        System.arraycopy(sourceBytes, offsets[i], payload, pos, gather.length(i));
        pos += gather.length(i);
      }
      return payload;
    }

    int lastSlackBefore;

    /** A fresh region for {@code length} octets with slack and guards; records the TO offset. */
    Target taggedTarget(int length, byte[] payload) {
      int before = rnd.nextInt(65);
      int after = rnd.nextInt(65) + (length == 0 && before == 0 ? 1 : 0);
      int size = before + length + after;
      ByteBuf memory = patterned(GUARD + size + GUARD);
      byte[] expected = new byte[memory.capacity()];
      memory.getBytes(0, expected);
      System.arraycopy(payload, 0, expected, GUARD + before, length);
      long base = rnd.nextInt(10) == 0
          ? -1L - size - rnd.nextInt(1000) // near the top of the TO space
          : rnd.nextLong() >>> 1;
      MemoryRegion region = pdB.register(memory, GUARD, size, LOCAL_WRITE | REMOTE_WRITE,
          RegionOptions.defaults().baseTo(base));
      lastSlackBefore = before;
      return new Target(memory, expected, region);
    }

    /** A posted buffer of 1-4 pieces with gaps between them, in one guarded buffer. */
    Target untaggedTarget(int length, byte[] payload, GatherList scatter) {
      int pieces = 1 + rnd.nextInt(4);
      int slack = rnd.nextInt(65);
      int[] sizes = new int[pieces];
      int left = length + slack;
      for (int i = 0; i < pieces; i++) {
        sizes[i] = i == pieces - 1 ? left : rnd.nextInt(left + 1);
        left -= sizes[i];
      }
      int[] gaps = new int[pieces];
      int capacity = 2 * GUARD;
      for (int i = 0; i < pieces; i++) {
        gaps[i] = rnd.nextInt(17);
        capacity += gaps[i] + sizes[i];
      }
      ByteBuf memory = patterned(capacity);
      byte[] expected = new byte[capacity];
      memory.getBytes(0, expected);
      int at = GUARD;
      int pos = 0;
      for (int i = 0; i < pieces; i++) {
        at += gaps[i];
        scatter.add(memory, at, sizes[i]);
        int n = Math.min(sizes[i], length - pos);
        System.arraycopy(payload, pos, expected, at, n);
        pos += n;
        at += sizes[i];
      }
      return new Target(memory, expected, null);
    }

    ByteBuf patterned(int capacity) {
      ByteBuf b = untracked(capacity);
      byte[] pattern = new byte[capacity];
      rnd.nextBytes(pattern);
      b.setBytes(0, pattern);
      return b;
    }

    /** Direct memory the leak detector does not track (it is reclaimed with its ByteBuffer). */
    static ByteBuf untracked(int capacity) {
      return Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(capacity)).clear();
    }

    /** The TCP chunking of one batch. */
    java.util.function.IntUnaryOperator chunker(long total) {
      if (total < 8192 && rnd.nextInt(4) == 0) {
        return left -> 1;
      }
      SplittableRandom r = rnd.split();
      return switch (rnd.nextInt(4)) {
        case 0 -> left -> left;
        case 1 -> left -> 1460;
        case 2 -> left -> 1 + r.nextInt(Math.max(1, 2 * mulpdu));
        default -> left -> 1 + r.nextInt(64 << 10);
      };
    }
  }
}
