package io.iwarp4j.ddp;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Tagged;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Untagged;
import io.iwarp4j.wire.TaggedHeader;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Acceptance 5, copies: a send payload is never copied (what reaches the transport are slices
 * at the registered region's own memory addresses), and a received payload is copied exactly
 * once (the regions' and queues' placed-octet counters equal the payload, and MPA never
 * consolidated an FPDU).
 */
class DdpStreamCopyTest {
  private static final int MULPDU = 1024;
  private static final int LENGTH = 10_000;

  private StagTable table;
  private ProtectionDomain pdA;
  private ProtectionDomain pdB;
  private MemoryRegion source;
  private MemoryRegion sink;
  private StreamPair pair;
  private byte[] sourceBytes;

  @BeforeEach
  void setUp() {
    table = new StagTable(8, new SplittableRandom(5), Duration.ofSeconds(10));
    pdA = table.newProtectionDomain();
    pdB = table.newProtectionDomain();
    source = pdA.allocate(3 * LENGTH, LOCAL_WRITE | REMOTE_READ);
    sourceBytes = new byte[3 * LENGTH];
    new SplittableRandom(7).nextBytes(sourceBytes);
    source.buffer().setBytes(0, sourceBytes);
    sink = pdB.allocate(LENGTH, LOCAL_WRITE | REMOTE_WRITE, RegionOptions.defaults().zeroBased());
    pair = new StreamPair(true, false, MULPDU, pdA, pdB);
    pair.b.stream.enableReceiveQueue(0, 2, 3);
    pair.b.stream.start();
    pair.a.stream.start();
  }

  @AfterEach
  void tearDown() {
    pair.close();
    source.close();
    sink.close();
    pdA.close();
    pdB.close();
  }

  /** Three pieces of the source region, out of order: [2L, 2L+3000), [100, 4100), [L, L+3000). */
  private GatherList gather() {
    ByteBuf view = source.buffer();
    return new GatherList().add(view, 2 * LENGTH, 3000).add(view, 100, 4000)
        .add(view, LENGTH, 3000);
  }

  private byte[] expectedPayload() {
    byte[] p = new byte[LENGTH];
    System.arraycopy(sourceBytes, 2 * LENGTH, p, 0, 3000);
    System.arraycopy(sourceBytes, 100, p, 3000, 4000);
    System.arraycopy(sourceBytes, LENGTH, p, 7000, 3000);
    return p;
  }

  @Test
  void sendPayloadsLeaveAsSlicesOfTheRegisteredMemory() {
    ByteBuf view = source.buffer();
    assumeTrue(view.hasMemoryAddress(), "Netty cannot tell memory addresses here");
    long base = view.memoryAddress();
    pair.a.stream.sendTagged(0x40, sink.stag(), 0, gather());
    pair.a.stream.flush();

    // The payload addresses the segmenter must hand down, segment by segment.
    List<long[]> expected = new ArrayList<>();
    long[][] pieces = {{2 * LENGTH, 3000}, {100, 4000}, {LENGTH, 3000}};
    int room = MULPDU - TaggedHeader.LENGTH;
    int piece = 0;
    long pieceOffset = 0;
    for (int left = LENGTH; left > 0; ) {
      int segment = Math.min(room, left);
      left -= segment;
      while (segment > 0) {
        long n = Math.min(segment, pieces[piece][1] - pieceOffset);
        expected.add(new long[] {base + pieces[piece][0] + pieceOffset, n});
        segment -= n;
        pieceOffset += n;
        if (pieceOffset == pieces[piece][1]) {
          piece++;
          pieceOffset = 0;
        }
      }
    }

    List<long[]> actual = new ArrayList<>();
    long other = 0;
    for (Object m : pair.a.channel.outboundMessages()) {
      ByteBuf b = (ByteBuf) m;
      long address = b.hasMemoryAddress() ? b.memoryAddress() + b.readerIndex() : 0;
      if (address >= base && address < base + 3 * LENGTH) {
        actual.add(new long[] {address, b.readableBytes()});
      } else {
        // At most one FPDU's PAD and CRC and the next one's ULPDU_Length and header.
        assertTrue(b.readableBytes() <= 3 + 4 + 2 + TaggedHeader.LENGTH,
            "a " + b.readableBytes() + "-octet buffer that is not region memory");
        other += b.readableBytes();
      }
    }
    assertEquals(expected.size(), actual.size(), "payload buffers handed to the transport");
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i), actual.get(i), "payload buffer " + i
          + ": (address, length) must be the region's own memory");
    }
    long framing = 0;
    for (int left = LENGTH; left > 0; left -= room) {
      int ulpdu = TaggedHeader.LENGTH + Math.min(room, left);
      framing += 2 + TaggedHeader.LENGTH + ((-(ulpdu + 2)) & 3) + 4;
    }
    assertEquals(framing, other,
        "besides the payload only ULPDU_Length, DDP header, PAD and CRC octets left");

    pair.shuttle();
    assertEquals(List.of(new Tagged(0x40, sink.stag(), 0, LENGTH)), pair.b.listener.deliveries);
    byte[] placed = new byte[LENGTH];
    sink.buffer().getBytes(0, placed);
    assertArrayEquals(expectedPayload(), placed);
  }

  @ParameterizedTest(name = "reads of {0} octets")
  @ValueSource(ints = {Integer.MAX_VALUE, 1460, 100})
  void receivedPayloadsAreCopiedExactlyOnce(int readSize) {
    pair.chunker = left -> readSize;
    MemoryRegion receiveBuffer = pdB.allocate(LENGTH, LOCAL_WRITE);
    ByteBuf posted = receiveBuffer.buffer();
    try {
      pair.b.stream.receiveQueue(0).post(new GatherList().add(posted, 0, 4000)
          .add(posted, 5000, 5000).add(posted, 4000, 1000), 1);
      pair.a.stream.sendTagged(0x40, sink.stag(), 0, gather());
      pair.a.stream.sendUntagged(0x43L << 32, 0, null, gather());
      pair.a.stream.flush();
      pair.shuttle();

      assertEquals(List.of(new Tagged(0x40, sink.stag(), 0, LENGTH),
          new Untagged(0, 1, 0x43L << 32, LENGTH, 1)), pair.b.listener.deliveries);
      assertEquals(LENGTH, sink.placedOctets(), "tagged: every payload octet placed once");
      assertEquals(LENGTH, pair.b.stream.receiveQueue(0).placedOctets(),
          "untagged: every payload octet placed once");
      assertEquals(0, pair.b.deframer.consolidations(), "MPA never staged an FPDU");
      byte[] expected = expectedPayload();
      byte[] placed = new byte[LENGTH];
      sink.buffer().getBytes(0, placed);
      assertArrayEquals(expected, placed);
      byte[] scattered = new byte[LENGTH];
      posted.getBytes(0, scattered, 0, 4000);
      posted.getBytes(5000, scattered, 4000, 5000);
      posted.getBytes(4000, scattered, 9000, 1000);
      assertArrayEquals(expected, scattered);
      pair.b.assertReadsReleased();
    } finally {
      receiveBuffer.close();
    }
  }
}
