package io.iwarp4j.rdmap;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.mpa.MpaError;
import io.iwarp4j.rdmap.RecordingEndpointListener.Disconnected;
import io.iwarp4j.rdmap.RecordingEndpointListener.ReadComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.TerminateSent;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.TerminateMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Read Responses with CRC on are snapshots: the source range is copied when the Read Request is
 * answered, so memory changed afterwards (a racing RDMA Write, a local store) changes neither
 * the octets sent nor their CRC, and the requester never sees a CRC error. With CRC off, or when
 * the device's copy budget cannot take the copy, the response stays zero-copy: it reads the
 * memory when the transport takes it. B is the Data Source; its transport is paused between the
 * response and the mutation, as a full socket would be. Every copy is charged to the budget until
 * the transport took the response, or the connection closed (the leak detector runs at PARANOID,
 * so a copy never released fails the build).
 */
class ReadResponseSnapshotTest {
  private static final int SIZE = 8192;
  private static final long INITIAL = 0x1122_3344_5566_7788L;

  private EndpointPair p;
  private final Regions mem = new Regions(5040);

  @AfterEach
  void tearDown() {
    if (p != null) {
      p.close();
    }
    mem.close();
    // The snapshots were cut from this thread's slabs (the channels run on the test thread).
    SnapshotSlabs.releaseCurrentThread();
  }

  /** B is the Data Source, CRC (and Markers) on both ends as given, B's copies in {@code budget}. */
  private EndpointPair pair(boolean crc, boolean markers, ReadResponseCopyBudget budget) {
    EndpointPair.Config a = new EndpointPair.Config();
    a.crc = crc;
    a.markers = markers;
    EndpointPair.Config b = new EndpointPair.Config();
    b.crc = crc;
    b.markers = markers;
    b.readResponseCopies = budget;
    p = new EndpointPair(5040, a, b, Duration.ofMillis(50));
    return p;
  }

  /** A reads {@code length} octets of B's {@code source} into its {@code sink}; B answers it. */
  private void readAndLetBRespond(int token, MemoryRegion sink, long sinkOffset,
      MemoryRegion source, int length) {
    p.a.endpoint.read(token, sink.stag(), sink.baseTo() + sinkOffset, length, source.stag(),
        source.baseTo());
    p.a.endpoint.flush();
    p.shuttle();
  }

  private long counter(EndpointPair.End end, int index) {
    return end.endpoint.counters().get(index);
  }

  @ParameterizedTest(name = "markers={0}")
  @ValueSource(booleans = {false, true})
  void withCrcTheResponseCarriesTheSourceAsItWasWhenAnswered(boolean markers) {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(1 << 20);
    pair(true, markers, budget).start();
    MemoryRegion sink = mem.allocate(p.a.pd, SIZE, Regions.ALL);
    MemoryRegion source = mem.allocate(p.b.pd, SIZE, Regions.ALL);
    mem.fill(source, 0, SIZE);
    byte[] answered = Regions.read(source, 0, SIZE);
    p.b.transport.pause();
    readAndLetBRespond(1, sink, 0, source, SIZE);
    assertTrue(p.b.transport.flushedNotTaken() > 0, "B's response waits for its socket");
    assertEquals(SIZE, budget.inUse(), "the snapshot is charged while the transport holds it");

    mem.fill(source, 0, SIZE); // a Write racing the Read, after the response was framed
    assertFalse(java.util.Arrays.equals(answered, Regions.read(source, 0, SIZE)));
    p.b.transport.resume();
    p.shuttle();

    assertEquals(List.of(new ReadComplete(1, SIZE)), p.a.events.events, "no CRC error, no end");
    assertArrayEquals(answered, Regions.read(sink, 0, SIZE), "the octets as answered");
    assertEquals(0, budget.inUse(), "the transport took it: the charge is given back");
    assertEquals(1, counter(p.b, RdmapCounters.READ_RESPONSE_SNAPSHOTS));
    assertEquals(0, counter(p.b, RdmapCounters.READ_RESPONSE_ZERO_COPY_FALLBACKS));
    assertEquals(0, p.b.endpoint.outstandingInboundReads());
  }

  @Test
  void aSnapshotHoldsNoPinOnTheSource() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(1 << 20);
    pair(true, false, budget).start();
    MemoryRegion sink = mem.allocate(p.a.pd, SIZE, Regions.ALL);
    MemoryRegion source = mem.allocate(p.b.pd, SIZE, Regions.ALL);
    mem.fill(source, 0, SIZE);
    byte[] answered = Regions.read(source, 0, SIZE);
    p.b.transport.pause();
    readAndLetBRespond(1, sink, 0, source, SIZE);
    assertEquals(1, p.b.endpoint.outstandingInboundReads(), "the response is in flight");

    source.close(); // returns at once: the copy is all the response reads
    assertTrue(source.isClosed());
    p.b.transport.resume();
    p.shuttle();
    assertEquals(List.of(new ReadComplete(1, SIZE)), p.a.events.events);
    assertArrayEquals(answered, Regions.read(sink, 0, SIZE));
    assertEquals(0, budget.inUse());
  }

  @Test
  void withCrcOffTheResponseStaysZeroCopy() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(1 << 20);
    pair(false, false, budget).start();
    MemoryRegion sink = mem.allocate(p.a.pd, SIZE, Regions.ALL);
    MemoryRegion source = mem.allocate(p.b.pd, SIZE, Regions.ALL);
    mem.fill(source, 0, SIZE);
    byte[] atFraming = Regions.read(source, 0, SIZE);
    p.b.transport.pause();
    readAndLetBRespond(1, sink, 0, source, SIZE);
    assertEquals(0, budget.inUse(), "nothing copied");
    mem.fill(source, 0, SIZE);
    byte[] sent = Regions.read(source, 0, SIZE);
    // A last segment of at most FpduFramer.INLINE_THRESHOLD octets was copied when framed.
    int tail = SIZE % (p.b.framer.maxUlpduLength() - 14);
    assertTrue(tail > 0 && tail <= io.iwarp4j.mpa.FpduFramer.INLINE_THRESHOLD, "tail " + tail);
    System.arraycopy(atFraming, SIZE - tail, sent, SIZE - tail, tail);
    IllegalStateException e = assertThrows(IllegalStateException.class, source::close);
    assertTrue(e.getMessage().contains("still in flight"), "pinned: " + e.getMessage());

    p.b.transport.resume();
    p.shuttle();
    assertEquals(List.of(new ReadComplete(1, SIZE)), p.a.events.events);
    assertArrayEquals(sent, Regions.read(sink, 0, SIZE),
        "the response read the memory when the transport took it: it shares the region's memory");
    assertEquals(0, counter(p.b, RdmapCounters.READ_RESPONSE_SNAPSHOTS));
    assertEquals(0, counter(p.b, RdmapCounters.READ_RESPONSE_ZERO_COPY_FALLBACKS));
    source.close();
    assertTrue(source.isClosed(), "unpinned once the transport took the response");
  }

  @Test
  void anExhaustedBudgetSendsZeroCopyAndTheRaceRemainsForThatResponse() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(SIZE - 1);
    pair(true, false, budget).start();
    MemoryRegion sink = mem.allocate(p.a.pd, SIZE, Regions.ALL);
    MemoryRegion source = mem.allocate(p.b.pd, SIZE, Regions.ALL);
    mem.fill(source, 0, SIZE);
    p.b.transport.pause();
    readAndLetBRespond(1, sink, 0, source, SIZE);
    assertEquals(0, budget.inUse(), "too large for the budget: not copied");
    assertEquals(1, counter(p.b, RdmapCounters.READ_RESPONSE_ZERO_COPY_FALLBACKS));
    assertEquals(0, counter(p.b, RdmapCounters.READ_RESPONSE_SNAPSHOTS));

    mem.fill(source, 0, SIZE); // the residual race: the octets change after their CRC
    p.b.transport.resume();
    p.shuttle();
    assertEquals(List.of(new TerminateSent(TerminateMessage.LAYER_LLP,
        TerminateMessage.ERROR_TYPE_MPA, MpaError.CRC_MISMATCH.code())),
        p.a.events.endEvents(), "exactly the defect a snapshot prevents");
    assertEquals(0, budget.inUse());
  }

  @Test
  void theBudgetIsChargedPerResponseAndGivenBackWhenTheTransportTookIt() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(SIZE + SIZE / 2);
    pair(true, false, budget).start();
    MemoryRegion sink = mem.allocate(p.a.pd, 3 * SIZE, Regions.ALL);
    MemoryRegion source = mem.allocate(p.b.pd, SIZE, Regions.ALL);
    mem.fill(source, 0, SIZE);
    byte[] expected = Regions.read(source, 0, SIZE);
    p.b.transport.pause();
    readAndLetBRespond(1, sink, 0, source, SIZE);
    readAndLetBRespond(2, sink, SIZE, source, SIZE);
    assertEquals(SIZE, budget.inUse(), "the first is a snapshot, the second did not fit");
    assertEquals(1, counter(p.b, RdmapCounters.READ_RESPONSE_SNAPSHOTS));
    assertEquals(1, counter(p.b, RdmapCounters.READ_RESPONSE_ZERO_COPY_FALLBACKS));

    p.b.transport.resume();
    p.shuttle();
    assertEquals(0, budget.inUse());
    readAndLetBRespond(3, sink, 2 * SIZE, source, SIZE);
    assertEquals(2, counter(p.b, RdmapCounters.READ_RESPONSE_SNAPSHOTS), "room again");
    assertEquals(0, budget.inUse());
    assertEquals(List.of(new ReadComplete(1, SIZE), new ReadComplete(2, SIZE),
        new ReadComplete(3, SIZE)), p.a.events.events);
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(expected, Regions.read(sink, i * SIZE, SIZE), "read " + (i + 1));
    }
  }

  @Test
  void aBudgetSharedByTwoStreamsCountsBoth() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(SIZE);
    pair(true, false, budget).start();
    EndpointPair first = p;
    MemoryRegion sink1 = mem.allocate(first.a.pd, SIZE, Regions.ALL);
    MemoryRegion source1 = mem.allocate(first.b.pd, SIZE, Regions.ALL);
    first.b.transport.pause();
    readAndLetBRespond(1, sink1, 0, source1, SIZE);
    assertEquals(SIZE, budget.inUse());
    try (EndpointPair second = pair(true, false, budget).start()) {
      MemoryRegion sink2 = mem.allocate(second.a.pd, SIZE, Regions.ALL);
      MemoryRegion source2 = mem.allocate(second.b.pd, SIZE, Regions.ALL);
      readAndLetBRespond(1, sink2, 0, source2, SIZE);
      assertEquals(1, counter(second.b, RdmapCounters.READ_RESPONSE_ZERO_COPY_FALLBACKS),
          "the first stream holds the whole budget");
      assertEquals(List.of(new ReadComplete(1, SIZE)), second.a.events.events);
    } finally {
      p = first;
    }
    first.b.transport.resume();
    first.shuttle();
    assertEquals(0, budget.inUse());
    assertEquals(List.of(new ReadComplete(1, SIZE)), first.a.events.events);
  }

  @Test
  void aConnectionResetGivesBackTheChargesOfResponsesNeverSent() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(1 << 20);
    pair(true, false, budget).start();
    MemoryRegion sink = mem.allocate(p.a.pd, 2 * SIZE, Regions.ALL);
    MemoryRegion source = mem.allocate(p.b.pd, SIZE, Regions.ALL);
    p.b.transport.pause();
    readAndLetBRespond(1, sink, 0, source, SIZE);
    readAndLetBRespond(2, sink, SIZE, source, SIZE);
    assertEquals(2L * SIZE, budget.inUse());
    // The connection dies with both responses queued: the close drops them (and their copies).
    p.b.channel.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
    p.shuttle();
    assertEquals(List.of(new Disconnected(false)), p.b.events.events);
    assertEquals(0, budget.inUse(), "no charge outlives the connection");
    assertEquals(0, p.b.endpoint.outstandingInboundReads());
  }

  @Test
  void aTerminateGivesBackTheChargesOnceTheChannelClosed() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(1 << 20);
    pair(true, false, budget).start();
    MemoryRegion sink = mem.allocate(p.a.pd, SIZE, Regions.ALL);
    MemoryRegion source = mem.allocate(p.b.pd, SIZE, Regions.ALL);
    p.b.transport.pause();
    readAndLetBRespond(1, sink, 0, source, SIZE);
    assertEquals(SIZE, budget.inUse());
    // A Terminate, then the close; the paused socket never sent the response.
    p.b.endpoint.abort(RdmapError.ETYPE_LOCAL_CATASTROPHIC, 0);
    p.shuttle();
    p.b.channel.close();
    p.shuttle();
    assertFalse(p.b.channel.isOpen());
    assertEquals(0, budget.inUse());
  }

  @Test
  void anAtomicNeedNotWaitForAnEarlierSnapshotYetTheReadSeesTheValueBeforeIt() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(1 << 20);
    pair(true, false, budget).start();
    MemoryRegion target = mem.allocate(p.b.pd, 64, LOCAL_WRITE | REMOTE_ATOMIC | REMOTE_READ);
    target.putLong(8, INITIAL);
    MemoryRegion result = mem.allocate(p.a.pd, 64, LOCAL_WRITE);
    p.b.transport.pause();
    p.a.endpoint.read(1, result.stag(), result.baseTo() + 32, 16, target.stag(),
        target.baseTo());
    p.a.endpoint.atomic(2, AtomicOpcode.FETCH_ADD, target.stag(), target.baseTo() + 8, 1, 0, 0,
        0, result.stag(), result.baseTo());
    p.a.endpoint.flush();
    p.shuttle();
    assertEquals(INITIAL + 1, target.getLong(8),
        "performed while the Read Response still waits for the socket");

    p.b.transport.resume();
    p.shuttle();
    assertEquals(List.of(new ReadComplete(1, 16), new ReadComplete(2, 8)), p.a.events.events);
    assertEquals(INITIAL, result.getLong(32 + 8), "the Read saw the value before the Atomic");
    assertEquals(INITIAL, result.getLong(0), "the Atomic's original value");
    assertEquals(0, budget.inUse());
  }

  @Test
  void anAtomicStillWaitsForAnEarlierZeroCopyResponse() {
    ReadResponseCopyBudget budget = new ReadResponseCopyBudget(0); // every response zero-copy
    pair(true, false, budget).start();
    MemoryRegion target = mem.allocate(p.b.pd, 64, LOCAL_WRITE | REMOTE_ATOMIC | REMOTE_READ);
    target.putLong(8, INITIAL);
    MemoryRegion result = mem.allocate(p.a.pd, 64, LOCAL_WRITE);
    p.b.transport.pause();
    p.a.endpoint.read(1, result.stag(), result.baseTo() + 32, 16, target.stag(),
        target.baseTo());
    p.a.endpoint.atomic(2, AtomicOpcode.FETCH_ADD, target.stag(), target.baseTo() + 8, 1, 0, 0,
        0, result.stag(), result.baseTo());
    p.a.endpoint.flush();
    p.shuttle();
    assertEquals(INITIAL, target.getLong(8), "the Atomic waits: the response reads the target");

    p.b.transport.resume();
    p.shuttle();
    assertEquals(List.of(new ReadComplete(1, 16), new ReadComplete(2, 8)), p.a.events.events);
    assertEquals(INITIAL, result.getLong(32 + 8));
    assertEquals(INITIAL + 1, target.getLong(8));
  }
}
