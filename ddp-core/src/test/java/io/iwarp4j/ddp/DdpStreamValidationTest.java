package io.iwarp4j.ddp;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.RecordingStreamListener;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Control;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Error;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Tagged;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Untagged;
import io.iwarp4j.mpa.MpaError;
import io.iwarp4j.testing.Outbound;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Acceptance 2, the validation matrix: one crafted segment per DDP error code (RFC 5041 §7.1,
 * §7.2), sent from end A's framer through MPA into end B's {@link DdpStream}. Each case checks
 * the exact Layer / Error Type / code, the echoed DDP header and segment length, that no octet
 * of any target (regions, posted buffers, the guard octets around them) changed, that later
 * segments are dropped, the DDP-layer Terminate B sends back (RFC 5040 §4.8, M=1 D=1), and that
 * every read buffer was released (the PARANOID leak detector watches the rest).
 */
class DdpStreamValidationTest {
  private static final int GUARD = 16;
  private static final int SIZE = 64;
  private static final long BASE = 0x1000;
  /** RDMAP control octets: RV 1 with opcode Write (0), Read Response (2), Send (3), Terminate. */
  private static final int WRITE = 0x40;
  private static final int READ_RESPONSE = 0x42;
  private static final int SEND = 0x43;
  private static final long RSVD_SEND = (long) SEND << 32;

  private StagTable table;
  private ProtectionDomain pd;
  private ProtectionDomain otherPd;
  private ProtectionDomain pdA;
  private final List<ByteBuf> memory = new ArrayList<>();
  private final List<MemoryRegion> regions = new ArrayList<>();
  private MemoryRegion writable;
  private ByteBuf writableMemory;
  private MemoryRegion foreign;
  private MemoryRegion localOnly;
  private MemoryRegion invalidated;
  private int staleStag;
  private ByteBuf posted;
  private StreamPair pair;
  private List<byte[]> before;

  @BeforeEach
  void setUp() {
    table = new StagTable(6, new SplittableRandom(0x5EED), Duration.ofSeconds(10));
    pd = table.newProtectionDomain();
    otherPd = table.newProtectionDomain();
    pdA = table.newProtectionDomain();
    writable = region(pd, LOCAL_WRITE | REMOTE_WRITE);
    writableMemory = memory.get(memory.size() - 1);
    foreign = region(otherPd, LOCAL_WRITE | REMOTE_WRITE);
    localOnly = region(pd, LOCAL_WRITE);
    invalidated = region(pd, LOCAL_WRITE | REMOTE_WRITE);
    invalidated.invalidate();
    MemoryRegion old = region(pd, LOCAL_WRITE | REMOTE_WRITE);
    region(pd, LOCAL_WRITE | REMOTE_WRITE); // the last fresh slot
    staleStag = old.stag();
    old.close();
    regions.remove(old);
    MemoryRegion reused = region(pd, LOCAL_WRITE | REMOTE_WRITE);
    assertEquals(StagTable.slotOf(staleStag, table.capacity()),
        StagTable.slotOf(reused.stag(), table.capacity()), "the freed slot came back");

    posted = Unpooled.directBuffer(GUARD + 32 + GUARD);
    fill(posted);
    memory.add(posted);

    pair = new StreamPair(true, false, 1024, pdA, pd);
    DdpStream b = pair.b.stream;
    b.enableReceiveQueue(0, 4, 1).post(posted, GUARD, 32, 99);
    b.enableControlQueue(1, 28);
    b.enableControlQueue(2, 52);
    b.enableReceiveQueue(3, 1, 1); // enabled, nothing posted
    b.start();
    pair.a.stream.enableControlQueue(2, 52);
    pair.a.stream.start();
    before = snapshot();
  }

  @AfterEach
  void tearDown() {
    pair.close();
    for (MemoryRegion r : regions) {
      r.close();
    }
    for (ByteBuf m : memory) {
      m.release();
    }
    pd.close();
    otherPd.close();
    pdA.close();
  }

  /** A region of SIZE octets at base TO BASE, between GUARD patterned octets on each side. */
  private MemoryRegion region(ProtectionDomain owner, int access) {
    ByteBuf buf = Unpooled.directBuffer(GUARD + SIZE + GUARD);
    fill(buf);
    memory.add(buf);
    MemoryRegion r = owner.register(buf, GUARD, SIZE, access,
        RegionOptions.defaults().baseTo(BASE));
    regions.add(r);
    return r;
  }

  private static void fill(ByteBuf buf) {
    for (int i = 0; i < buf.capacity(); i++) {
      buf.setByte(i, 0xA0 | (i & 0x0F));
    }
  }

  private List<byte[]> snapshot() {
    List<byte[]> s = new ArrayList<>();
    for (ByteBuf m : memory) {
      byte[] b = new byte[m.capacity()];
      m.getBytes(0, b);
      s.add(b);
    }
    return s;
  }

  private void assertMemoryUnchanged(String what) {
    List<byte[]> now = snapshot();
    for (int i = 0; i < now.size(); i++) {
      assertArrayEquals(before.get(i), now.get(i), what + ": buffer " + i + " changed");
    }
  }

  // ---- crafted segments ----

  static ByteBuf tagged(int control, int rsvdUlp, int stag, long to, int payload) {
    ByteBuf b = Unpooled.buffer(TaggedHeader.LENGTH + payload);
    TaggedHeader.write(b, true, rsvdUlp, stag, to);
    b.setByte(0, control);
    for (int i = 0; i < payload; i++) {
      b.writeByte(0x50 + i);
    }
    return b;
  }

  static ByteBuf untagged(int control, long rsvdUlp, int qn, int msn, int mo, int payload) {
    ByteBuf b = Unpooled.buffer(UntaggedHeader.LENGTH + payload);
    UntaggedHeader.write(b, true, rsvdUlp, qn, msn, mo);
    b.setByte(0, control);
    for (int i = 0; i < payload; i++) {
      b.writeByte(0x50 + i);
    }
    return b;
  }

  /** Frames the crafted ULPDU on A and moves it to B. */
  private void send(ByteBuf ulpdu) {
    pair.a.framer.write(ulpdu, null);
    pair.a.framer.flush();
    pair.shuttle();
  }

  static Stream<Arguments> matrix() {
    return Stream.of(
        // Tagged Buffer errors, EType 1.
        row("T1 unknown STag", 1, 0x00, t -> tagged(0xC1, WRITE, 0x00777701, BASE, 8)),
        row("T1 STag index 0", 1, 0x00, t -> tagged(0xC1, WRITE, 0x000000AB, BASE, 8)),
        row("T1 invalidated STag", 1, 0x00,
            t -> tagged(0xC1, WRITE, t.invalidated.stag(), BASE, 8)),
        row("T1 stale key", 1, 0x00, t -> tagged(0xC1, WRITE, t.staleStag, BASE, 8)),
        row("T3 no REMOTE_WRITE for a Write", 1, 0x00,
            t -> tagged(0xC1, WRITE, t.localOnly.stag(), BASE, 8)),
        row("T4 TO below base", 1, 0x01, t -> tagged(0xC1, WRITE, t.writable.stag(), BASE - 1, 8)),
        row("T5 past the bound", 1, 0x01,
            t -> tagged(0xC1, WRITE, t.writable.stag(), BASE + SIZE - 4, 8)),
        row("T2 other PD", 1, 0x02, t -> tagged(0xC1, WRITE, t.foreign.stag(), BASE, 8)),
        row("T6 TO wrap", 1, 0x03, t -> tagged(0xC1, WRITE, t.writable.stag(), -8L, 16)),
        row("T7 DV 2", 1, 0x04, t -> tagged(0xC2, WRITE, t.writable.stag(), BASE, 8)),
        row("T7 DV 0", 1, 0x04, t -> tagged(0xC0, WRITE, t.writable.stag(), BASE, 8)),
        row("T7 DV 3, zero length", 1, 0x04, t -> tagged(0xC3, WRITE, 0, 0, 0)),
        // Untagged Buffer errors, EType 2.
        row("U1 QN 5", 2, 0x01, t -> untagged(0x41, RSVD_SEND, 5, 1, 0, 8)),
        row("U1 QN -1", 2, 0x01, t -> untagged(0x41, RSVD_SEND, -1, 1, 0, 8)),
        row("U2 no buffer on QN 3", 2, 0x02, t -> untagged(0x41, RSVD_SEND, 3, 1, 0, 8)),
        row("U3 MSN 2 expected 1", 2, 0x03, t -> untagged(0x41, RSVD_SEND, 0, 2, 0, 8)),
        row("U4 MO 4 on a new message", 2, 0x04, t -> untagged(0x41, RSVD_SEND, 0, 1, 4, 8)),
        row("U5 33 octets into 32", 2, 0x05, t -> untagged(0x41, RSVD_SEND, 0, 1, 0, 33)),
        row("U5 29-octet Read Request", 2, 0x05,
            t -> untagged(0x41, 0x41L << 32, 1, 1, 0, 29)),
        row("U6 DV 2", 2, 0x06, t -> untagged(0x42, RSVD_SEND, 0, 1, 0, 8)),
        // Local Catastrophic, EType 0: no DDP code fits a segment too short for its header.
        row("empty ULPDU", 0, 0x00, t -> Unpooled.buffer(0)),
        row("10-octet tagged segment", 0, 0x00,
            t -> Unpooled.wrappedBuffer(new byte[] {(byte) 0xC1, 0x40, 0, 0, 1, 1, 0, 0, 0, 0})),
        row("10-octet untagged segment", 0, 0x00,
            t -> Unpooled.wrappedBuffer(new byte[] {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0})));
  }

  private static Arguments row(String name, int errorType, int code,
      Function<DdpStreamValidationTest, ByteBuf> segment) {
    return Arguments.of(name, errorType, code, segment);
  }

  @ParameterizedTest(name = "{0}: 1/{1}/{2}")
  @MethodSource("matrix")
  void eachErrorIsReportedOnceWithNothingPlacedAndATerminate(String name, int errorType,
      int code, Function<DdpStreamValidationTest, ByteBuf> craft) {
    ByteBuf seg = craft.apply(this);
    int length = seg.readableBytes();
    boolean taggedSeg = length > 0 && (seg.getUnsignedByte(0) & 0x80) != 0;
    int headerLength = Math.min(length, taggedSeg ? TaggedHeader.LENGTH : UntaggedHeader.LENGTH);
    String header = ByteBufUtil.hexDump(seg, 0, headerLength);
    send(seg);

    RecordingStreamListener b = pair.b.listener;
    assertEquals(1, b.errors.size(), name + ": exactly one error");
    Error e = b.errors.get(0);
    assertEquals(1, e.error().layer(), "Layer");
    assertEquals(errorType, e.error().errorType(), "Error Type");
    assertEquals(code, e.error().code(), "Error Code");
    assertEquals(e.error(), pair.b.stream.error());
    assertEquals(header, e.headerHex(), "the offending DDP header, for the Terminate");
    assertEquals(headerLength, e.headerLength());
    assertEquals(length, e.segmentLength(), "the DDP Segment Length, for the Terminate");
    assertTrue(b.deliveries.isEmpty());
    assertTrue(pair.b.stream.isErroneous());
    assertMemoryUnchanged(name);

    // Every later segment is dropped unread, valid or not.
    send(tagged(0xC1, WRITE, writable.stag(), BASE, 8));
    send(untagged(0x41, RSVD_SEND, 0, 1, 0, 8));
    send(untagged(0x41, RSVD_SEND, 7, 1, 0, 8));
    assertEquals(1, b.errors.size());
    assertTrue(b.deliveries.isEmpty());
    assertMemoryUnchanged(name + ", later segments");
    assertEquals(0, b.rejected);

    // The DDP-layer Terminate: QN 2, MSN 1, Layer 1 / EType / code, M=1 D=1, length, header.
    ChannelFuture closed = pair.b.stream.terminateForError();
    pair.shuttle();
    assertTrue(closed.isSuccess());
    assertFalse(pair.b.channel.isOpen());
    boolean full = headerLength == (taggedSeg ? 14 : 18);
    String terminate = String.format("%x%x%02x", 1, errorType, code)
        + (full ? String.format("c000%04x", length) + header : "0000");
    assertEquals(List.of(new Control(2, 1, 0x47L << 32, terminate)),
        pair.a.listener.deliveries, "the Terminate as A received it");
    assertTrue(pair.a.listener.errors.isEmpty());
    pair.a.assertReadsReleased();
    pair.b.assertReadsReleased();
  }

  // ---- what is not an error ----

  @Test
  void validSegmentsArePlacedAndDelivered() {
    send(tagged(0xC1, WRITE, writable.stag(), BASE + SIZE - 8, 8));
    send(tagged(0xC1, READ_RESPONSE, localOnly.stag(), BASE, 4)); // LOCAL_WRITE is enough
    send(untagged(0x41, RSVD_SEND, 0, 1, 0, 32));
    send(untagged(0x41, 0x41L << 32, 1, 1, 0, 28));
    RecordingStreamListener b = pair.b.listener;
    assertTrue(b.errors.isEmpty(), b.errors.toString());
    assertEquals(List.of(
        new Tagged(WRITE, writable.stag(), BASE + SIZE - 8, 8),
        new Tagged(READ_RESPONSE, localOnly.stag(), BASE, 4),
        new Untagged(0, 1, RSVD_SEND, 32, 99),
        new Control(1, 1, 0x41L << 32, "505152535455565758595a5b5c5d5e5f"
            + "606162636465666768696a6b")), b.deliveries);
    ByteBuf w = writableMemory;
    assertEquals(0x50, w.getUnsignedByte(GUARD + SIZE - 8));
    assertEquals(0x57, w.getUnsignedByte(GUARD + SIZE - 1));
    assertEquals(0xA0, w.getUnsignedByte(GUARD + SIZE), "the guard after the region");
    assertEquals(0x50 + 31, posted.getUnsignedByte(GUARD + 31));
    assertEquals(0xA0, posted.getUnsignedByte(GUARD + 32), "the guard after the posted buffer");
    assertEquals(8, writable.placedOctets());
    assertEquals(32, pair.b.stream.receiveQueue(0).placedOctets());
    assertFalse(pair.b.stream.isErroneous());
  }

  @Test
  void aZeroLengthTaggedSegmentsStagAndToAreNotChecked() {
    // RFC 5041 §5.2: nonsense STag and a TO that would wrap, but no payload: delivered.
    send(tagged(0xC1, WRITE, 0x00777701, -1L, 0));
    assertTrue(pair.b.listener.errors.isEmpty());
    assertEquals(List.of(new Tagged(WRITE, 0x00777701, -1L, 0)), pair.b.listener.deliveries);
    assertMemoryUnchanged("zero-length");
  }

  @Test
  void anOpcodeTheUpperLayerRejectsStopsThePlacementWithoutADdpError() {
    send(tagged(0xC1, SEND, writable.stag(), BASE, 8)); // a Send may not be tagged
    send(tagged(0xC1, WRITE, writable.stag(), BASE, 8));
    RecordingStreamListener b = pair.b.listener;
    assertEquals(1, b.rejected);
    assertTrue(b.errors.isEmpty());
    assertNull(pair.b.stream.error());
    assertTrue(pair.b.stream.isErroneous());
    assertTrue(b.deliveries.isEmpty());
    assertMemoryUnchanged("rejected");
    assertThrows(IllegalStateException.class, () -> pair.b.stream.terminateForError());
  }

  @Test
  void anUpperLayerAcceptingAnOpcodeWithNoTaggedRowIsABugThatStopsTheStream() {
    // The opcode table names no write right for a tagged Send: nothing may be placed.
    pair.b.listener.acceptOverride = true;
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> send(tagged(0xC1, SEND, writable.stag(), BASE, 8)));
    assertTrue(e.getMessage().contains("may not travel tagged"), e.getMessage());
    assertTrue(pair.b.stream.isErroneous());
    assertTrue(pair.b.listener.deliveries.isEmpty());
    assertMemoryUnchanged("no tagged row");
  }

  @Test
  void anErrorInALaterSegmentKeepsTheEarlierOnesPlacedAndDeliversNothing() {
    ByteBuf first = tagged(0x81, WRITE, writable.stag(), BASE, 8); // L=0
    send(first);
    assertEquals(1, pair.b.stream.taggedMessagesInProgress());
    byte[] afterFirst = snapshot().get(memory.indexOf(writableMemory));
    send(tagged(0xC1, WRITE, writable.stag(), BASE + SIZE - 4, 8)); // out of bounds
    assertEquals(DdpError.BASE_OR_BOUNDS_VIOLATION, pair.b.listener.errors.get(0).error());
    assertArrayEquals(afterFirst, snapshot().get(memory.indexOf(writableMemory)));
    assertTrue(pair.b.listener.deliveries.isEmpty());
  }

  @Test
  void aMpaCrcErrorIsPassedUpAndNothingIsPlaced() {
    pair.a.framer.write(tagged(0xC1, WRITE, writable.stag(), BASE, 8), null);
    pair.a.framer.flush();
    byte[] wire = Outbound.drain(pair.a.channel);
    wire[2 + TaggedHeader.LENGTH] ^= 1; // one payload bit
    pair.b.channel.writeInbound(Unpooled.wrappedBuffer(wire));
    assertEquals(1, pair.b.listener.mpaErrors.size());
    assertEquals(MpaError.CRC_MISMATCH, pair.b.listener.mpaErrors.get(0).error());
    assertTrue(pair.b.stream.isErroneous());
    assertTrue(pair.b.listener.deliveries.isEmpty());
    assertMemoryUnchanged("CRC error");
  }

  @Test
  void aCleanEndOfInputIsPassedUp() {
    pair.b.channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
    assertEquals(1, pair.b.listener.inputClosed);
    assertFalse(pair.b.stream.isErroneous());
  }

  @Test
  void moreInterleavedTaggedMessagesThanTrackedIsLocalCatastrophic() {
    List<MemoryRegion> targets = List.of(writable, localOnly);
    // Up to MAX_TAGGED_IN_PROGRESS messages may be open; STags only need to differ, so use
    // zero-length L=0 segments (not checked) for all but the last one.
    for (int i = 0; i < DdpStream.MAX_TAGGED_IN_PROGRESS; i++) {
      ByteBuf seg = tagged(0x81, WRITE, 0x100 + i, 0, 0);
      send(seg);
    }
    assertTrue(pair.b.listener.errors.isEmpty());
    send(tagged(0x81, WRITE, targets.get(0).stag(), BASE, 8));
    assertEquals(DdpError.LOCAL_CATASTROPHIC, pair.b.listener.errors.get(0).error());
    assertMemoryUnchanged("too many tagged messages");
  }
}
