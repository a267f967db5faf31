package io.iwarp4j.rdmap;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.rdmap.EndpointPair.End;
import io.iwarp4j.rdmap.RecordingEndpointListener.ReadComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.TerminateReceived;
import io.iwarp4j.rdmap.RecordingEndpointListener.TerminateSent;
import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every error RDMAP must turn into a Terminate (RFC 5040 §4.8, §7.1, §7.2), each with the exact
 * Terminate octets on the wire (its DDP header on QN 2, Layer/EType/code, the M/D/R bits, the
 * DDP Segment Length and terminated DDP header, the Read Request header for R=1), the end
 * events on both sides (exactly one each: Terminate sent at the detector, received at the peer)
 * and the memory the erroneous message targeted left unchanged. Segments the endpoint API cannot
 * produce (reserved opcodes, other versions, stray Read Responses) are written raw through the
 * sender's MPA framer.
 */
class RdmapTerminateTest {
  /** The Terminate's DDP header: untagged, last, RDMAP opcode 7, QN 2, MSN 1, MO 0. */
  private static final String TERMINATE = "41 47 00000000 00000002 00000001 00000000";

  private EndpointPair p;
  private Regions mem;
  private ProtectionDomain otherPd;

  @BeforeEach
  void setUp() {
    long seed = 77;
    EndpointPair.Config a = new EndpointPair.Config();
    a.ord = 2;
    EndpointPair.Config b = new EndpointPair.Config();
    b.ird = 1;
    p = new EndpointPair(seed, a, b);
    mem = new Regions(seed);
    otherPd = p.table.newProtectionDomain();
  }

  @AfterEach
  void tearDown() {
    p.close();
    mem.close();
    otherPd.close();
  }

  // ---- DDP errors on an RDMA Write (Layer 1, EType 1) ----

  @Test
  void writeToAnInvalidStag() {
    MemoryRegion src = source();
    p.start();
    p.a.endpoint.write(1, 0x00bad000, 0x1000, mem.gather(src, 0, 16, 1));
    p.a.endpoint.flush();
    expectTerminate(p.b, "11 00 c0 00 | 001e | c1 40 00bad000 0000000000001000", 1, 1, 0x00);
  }

  @Test
  void writeOutOfBounds() {
    MemoryRegion src = source();
    MemoryRegion target = mem.allocate(p.b.pd, 64, LOCAL_WRITE | REMOTE_WRITE);
    p.start();
    p.a.endpoint.write(1, target.stag(), target.baseTo() + 56, mem.gather(src, 0, 16, 2));
    p.a.endpoint.flush();
    expectTerminate(p.b, "11 01 c0 00 | 001e | c1 40 " + hex8(target.stag())
        + hex16(target.baseTo() + 56), 1, 1, 0x01);
    assertTrue(Regions.allZero(target), "target memory unchanged");
  }

  @Test
  void writeWithoutRemoteWriteAccess() {
    MemoryRegion src = source();
    MemoryRegion target = mem.allocate(p.b.pd, 64, LOCAL_WRITE | REMOTE_READ);
    p.start();
    p.a.endpoint.write(1, target.stag(), target.baseTo(), mem.gather(src, 0, 16, 1));
    p.a.endpoint.flush();
    // DDP has no access-rights code; the STag is not valid for a write (DdpError.forStagCheck).
    expectTerminate(p.b, "11 00 c0 00 | 001e | c1 40 " + hex8(target.stag())
        + hex16(target.baseTo()), 1, 1, 0x00);
    assertTrue(Regions.allZero(target), "target memory unchanged");
  }

  @Test
  void writeToAnStagOfAnotherProtectionDomain() {
    MemoryRegion src = source();
    MemoryRegion target = mem.allocate(otherPd, 64, Regions.ALL);
    p.start();
    p.a.endpoint.write(1, target.stag(), target.baseTo(), mem.gather(src, 0, 16, 1));
    p.a.endpoint.flush();
    expectTerminate(p.b, "11 02 c0 00 | 001e | c1 40 " + hex8(target.stag())
        + hex16(target.baseTo()), 1, 1, 0x02);
    assertTrue(Regions.allZero(target), "target memory unchanged");
  }

  // ---- DDP errors on a Send (Layer 1, EType 2) ----

  @Test
  void sendWithNoReceivePosted() {
    MemoryRegion src = source();
    p.start();
    p.a.endpoint.send(1, RdmapOpcode.SEND, 0, mem.gather(src, 0, 8, 1));
    p.a.endpoint.flush();
    expectTerminate(p.b, "12 02 c0 00 | 001a | 41 43 00000000 00000000 00000001 00000000", 1, 2,
        0x02);
  }

  @Test
  void sendLargerThanTheReceiveBuffer() {
    MemoryRegion src = source();
    MemoryRegion buffers = mem.allocate(p.b.pd, 64, Regions.ALL);
    p.b.endpoint.postReceive(5, mem.scatter(buffers, 0, 8, 2), 2);
    p.start();
    p.a.endpoint.send(1, RdmapOpcode.SEND_WITH_SE, 0, mem.gather(src, 0, 16, 1));
    p.a.endpoint.flush();
    expectTerminate(p.b, "12 05 c0 00 | 0022 | 41 45 00000000 00000000 00000001 00000000", 1, 2,
        0x05);
    assertTrue(Regions.allZero(buffers), "receive buffer unchanged");
  }

  // ---- Send with Invalidate (Layer 0, 0x09) ----

  @Test
  void sendWithInvalidateNamingAnStagOfAnotherProtectionDomain() {
    MemoryRegion foreign = mem.allocate(otherPd, 64, Regions.ALL,
        RegionOptions.defaults().allowRemoteInvalidation(true));
    sendWithInvalidate(RdmapOpcode.SEND_WITH_INVALIDATE, foreign.stag(), 1);
    assertTrue(foreign.isValid(), "a foreign STag is not invalidated");
  }

  @Test
  void sendWithSeAndInvalidateNamingAnStagThatCannotBeInvalidated() {
    MemoryRegion notOptedIn = mem.allocate(p.b.pd, 64, Regions.ALL);
    sendWithInvalidate(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, notOptedIn.stag(), 1);
    assertTrue(notOptedIn.isValid(), "the STag stays valid");
  }

  @Test
  void sendWithInvalidateNamingAnUnknownStag() {
    // No check could run on an STag that names nothing: Remote Operation, as siw reports it.
    sendWithInvalidate(RdmapOpcode.SEND_WITH_INVALIDATE, 0x00bad0ff, 2);
  }

  private void sendWithInvalidate(RdmapOpcode opcode, int stag, int errorType) {
    MemoryRegion src = source();
    MemoryRegion buffers = mem.allocate(p.b.pd, 64, Regions.ALL);
    p.b.endpoint.postReceive(5, mem.scatter(buffers, 0, 64, 1), 1);
    p.start();
    p.a.endpoint.send(1, opcode, stag, mem.gather(src, 0, 16, 1));
    p.a.endpoint.flush();
    expectTerminate(p.b, String.format("0%d 09 c0 00 | 0022 | 41 4%d %s 00000000 00000001 00000000",
        errorType, opcode.code(), hex8(stag)), 0, errorType, 0x09);
    assertTrue(Regions.allZero(buffers), "receive buffer unchanged");
  }

  // ---- Read Request with a bad source (Layer 0, EType 1, R=1) ----

  @ParameterizedTest(name = "code 0x0{0}")
  @ValueSource(ints = {0, 1, 2, 3, 4})
  void readRequestWithABadSource(int code) {
    MemoryRegion sink = mem.allocate(p.a.pd, 256, Regions.ALL);
    MemoryRegion good = mem.allocate(p.b.pd, 128, Regions.ALL);
    mem.fill(good, 0, 128);
    int srcStag;
    long srcTo;
    switch (code) {
      case 0 -> { // invalid STag
        srcStag = 0x00bad000;
        srcTo = 0;
      }
      case 1 -> { // base or bounds: 64 octets from offset 96 of 128
        srcStag = good.stag();
        srcTo = good.baseTo() + 96;
      }
      case 2 -> { // no REMOTE_READ
        MemoryRegion noRead = mem.allocate(p.b.pd, 128, LOCAL_WRITE | REMOTE_WRITE);
        srcStag = noRead.stag();
        srcTo = noRead.baseTo();
      }
      case 3 -> { // another Protection Domain
        MemoryRegion foreign = mem.allocate(otherPd, 128, Regions.ALL);
        srcStag = foreign.stag();
        srcTo = foreign.baseTo();
      }
      default -> { // TO + size wraps 2^64
        srcStag = good.stag();
        srcTo = 0xFFFF_FFFF_FFFF_FFF0L;
      }
    }
    p.start();
    p.a.endpoint.read(1, sink.stag(), sink.baseTo() + 8, 64, srcStag, srcTo);
    p.a.endpoint.flush();
    String readRequest = hex8(sink.stag()) + hex16(sink.baseTo() + 8) + "00000040" + hex8(srcStag)
        + hex16(srcTo);
    expectTerminate(p.b, "01 0" + code + " e0 00 | 002e | 41 41 00000000 00000001 00000001 00000000"
        + " | " + readRequest, 0, 1, code);
    assertTrue(Regions.allZero(sink), "nothing was read");
  }

  @Test
  void readRequestWhoseSinkRangeWrapsTheTagSpace() {
    MemoryRegion source = mem.allocate(p.b.pd, 128, Regions.ALL);
    p.start();
    // A valid source, but the response's TOs would wrap: it cannot be cut (0/1/0x04, R=1).
    String readRequest = "00001000 fffffffffffffff0 00000040 " + hex8(source.stag())
        + hex16(source.baseTo());
    inject(p.a, "41 41 00000000 00000001 00000001 00000000 | " + readRequest);
    expectTerminate(p.b, "01 04 e0 00 | 002e | 41 41 00000000 00000001 00000001 00000000 | "
        + readRequest, 0, 1, 0x04);
  }

  @Test
  void readRequestOfTheWrongLength() {
    p.start();
    inject(p.a, "41 41 00000000 00000001 00000001 00000000 | " + "00".repeat(20));
    expectTerminate(p.b, "02 ff c0 00 | 0026 | 41 41 00000000 00000001 00000001 00000000", 0, 2,
        0xFF);
  }

  @Test
  void moreReadRequestsThanIrd() {
    MemoryRegion sink = mem.allocate(p.a.pd, 256, Regions.ALL);
    MemoryRegion source = mem.allocate(p.b.pd, 256, Regions.ALL);
    mem.fill(source, 0, 256);
    p.start();
    // A's ORD 2 exceeds B's IRD 1 (as if the negotiation had been ignored).
    p.a.endpoint.read(1, sink.stag(), sink.baseTo(), 100, source.stag(), source.baseTo());
    p.a.endpoint.read(2, sink.stag(), sink.baseTo() + 100, 100, source.stag(), source.baseTo());
    p.a.endpoint.flush();
    // The second request finds no Read Request buffer: DDP's "no buffer available" (§5.2.2).
    expectTerminate(p.b, "12 02 c0 00 | 002e | 41 41 00000000 00000001 00000002 00000000", 1, 2,
        0x02, new ReadComplete(1, 100));
  }

  // ---- opcodes and versions (Layer 0, EType 2) ----

  @Test
  void reservedOpcodeOnTheSendQueue() {
    MemoryRegion buffers = postedBuffer();
    p.start();
    inject(p.a, "41 4c 00000000 00000000 00000001 00000000 | 0102030405060708");
    expectTerminate(p.b, "02 06 c0 00 | 001a | 41 4c 00000000 00000000 00000001 00000000", 0, 2,
        0x06);
    assertTrue(Regions.allZero(buffers), "receive buffer unchanged");
  }

  // RFC 7306 opcodes on a stream without RFC 7306: RdmapAtomicsTest#withoutRfc7306*.

  @Test
  void taggedOpcodeOnTheUntaggedPath() {
    MemoryRegion buffers = postedBuffer();
    p.start();
    inject(p.a, "41 40 00000000 00000000 00000001 00000000 | 0102030405060708");
    expectTerminate(p.b, "02 06 c0 00 | 001a | 41 40 00000000 00000000 00000001 00000000", 0, 2,
        0x06);
    assertTrue(Regions.allZero(buffers), "receive buffer unchanged");
  }

  @Test
  void untaggedOpcodeOnTheTaggedPath() {
    MemoryRegion target = mem.allocate(p.b.pd, 64, Regions.ALL);
    p.start();
    inject(p.a, "c1 43 " + hex8(target.stag()) + hex16(target.baseTo()) + " | 0102030405060708");
    expectTerminate(p.b, "02 06 c0 00 | 0016 | c1 43 " + hex8(target.stag())
        + hex16(target.baseTo()), 0, 2, 0x06);
    assertTrue(Regions.allZero(target), "target memory unchanged");
  }

  @Test
  void sendOpcodeOnTheReadRequestQueue() {
    p.start();
    inject(p.a, "41 43 00000000 00000001 00000001 00000000 | 0102030405060708");
    expectTerminate(p.b, "02 06 c0 00 | 001a | 41 43 00000000 00000001 00000001 00000000", 0, 2,
        0x06);
  }

  @Test
  void invalidRdmapVersionOnASend() {
    MemoryRegion buffers = postedBuffer();
    p.start();
    inject(p.a, "41 83 00000000 00000000 00000001 00000000 | 0102030405060708");
    expectTerminate(p.b, "02 05 c0 00 | 001a | 41 83 00000000 00000000 00000001 00000000", 0, 2,
        0x05);
    assertTrue(Regions.allZero(buffers), "receive buffer unchanged");
  }

  @Test
  void rdmaConsortiumVersionOnAWrite() {
    MemoryRegion target = mem.allocate(p.b.pd, 64, Regions.ALL);
    p.start();
    inject(p.a, "c1 00 " + hex8(target.stag()) + hex16(target.baseTo()) + " | 0102030405060708");
    expectTerminate(p.b, "02 05 c0 00 | 0016 | c1 00 " + hex8(target.stag())
        + hex16(target.baseTo()), 0, 2, 0x05);
    assertTrue(Regions.allZero(target), "target memory unchanged");
  }

  // ---- Read Responses that do not answer the oldest Read ----

  @Test
  void readResponseWithNoReadOutstanding() {
    MemoryRegion target = mem.allocate(p.b.pd, 64, Regions.ALL);
    p.start();
    inject(p.a, "c1 42 " + hex8(target.stag()) + hex16(target.baseTo()) + " | 0102030405060708");
    expectTerminate(p.b, "02 06 c0 00 | 0016 | c1 42 " + hex8(target.stag())
        + hex16(target.baseTo()), 0, 2, 0x06);
    assertTrue(Regions.allZero(target), "a LOCAL_WRITE region is not open to the peer");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"wrong STag", "wrong TO", "overrun", "short"})
  void readResponseThatDoesNotFitTheOldestRead(String how) {
    MemoryRegion sink = mem.allocate(p.b.pd, 256, Regions.ALL);
    MemoryRegion other = mem.allocate(p.b.pd, 256, Regions.ALL);
    MemoryRegion source = mem.allocate(p.a.pd, 256, Regions.ALL);
    p.start();
    // B reads 16 octets; the request never reaches A, which sends a bogus response instead.
    p.tap = (from, octets) -> from == p.b ? new byte[0] : octets;
    p.b.endpoint.read(9, sink.stag(), sink.baseTo() + 32, 16, source.stag(), source.baseTo());
    p.b.endpoint.flush();
    p.shuttle();
    p.tap = (from, octets) -> octets;
    int stag = how.equals("wrong STag") ? other.stag() : sink.stag();
    long to = sink.baseTo() + (how.equals("wrong TO") ? 33 : 32);
    String payload = how.equals("overrun") ? "00".repeat(17) : how.equals("short") ? "00".repeat(15)
        : "00".repeat(16);
    String header = "c1 42 " + hex8(stag) + hex16(to);
    inject(p.a, header + payload.replace("00", "ab"));
    int code = how.equals("wrong STag") ? 0x00 : 0x01;
    expectTerminate(p.b, String.format("11 0%d c0 00 | %04x | %s", code, 14 + payload.length() / 2,
        header), 1, 1, code);
    assertTrue(Regions.allZero(sink) && Regions.allZero(other), "sink memory unchanged");
  }

  // ---- Terminates received, MPA errors, abort ----

  @Test
  void abortSendsAnRdmapTerminateThePeerReceives() {
    p.start();
    p.a.endpoint.abort(2, 0x07);
    p.shuttle();
    assertEquals(Hex.compact(TERMINATE + "02 07 00 00"), Wire.lastUlpdu(p.a.wireBytes()));
    assertEquals(List.of(new TerminateSent(0, 2, 0x07)), p.a.events.events);
    assertEquals(List.of(new TerminateReceived(0, 2, 0x07)), p.b.events.events);
    assertEnded(p.a);
    assertEnded(p.b);
  }

  @Test
  void chelsioStyleMpaTerminateIsReportedAsReceived() {
    p.start();
    inject(p.a, TERMINATE + "23 02 00 00");
    p.shuttle();
    assertEquals(List.of(new TerminateReceived(2, 3, 0x02)), p.b.events.events);
    assertEquals(0, Wire.ulpdus(p.b.wireBytes()).size(), "B answers a Terminate with nothing");
    assertEnded(p.b);
  }

  @Test
  void mpaCrcErrorIsTerminatedAtTheLlpLayer() {
    MemoryRegion src = source();
    MemoryRegion target = mem.allocate(p.b.pd, 64, Regions.ALL);
    p.start();
    p.tap = (from, octets) -> {
      if (from == p.a && octets.length > 20) {
        octets[20] ^= 0x01; // a payload octet: the CRC no longer matches
      }
      return octets;
    };
    p.a.endpoint.write(1, target.stag(), target.baseTo(), mem.gather(src, 0, 16, 1));
    p.a.endpoint.flush();
    p.shuttle();
    assertEquals(Hex.compact(TERMINATE + "20 02 00 00"), Wire.lastUlpdu(p.b.wireBytes()));
    assertEquals(List.of(new TerminateSent(2, 0, 0x02)), p.b.events.events);
    assertEquals(List.of(new RecordingEndpointListener.SendComplete(1),
        new TerminateReceived(2, 0, 0x02)), p.a.events.events);
    assertTrue(Regions.allZero(target), "an FPDU that failed its CRC is not placed");
    assertEnded(p.a);
    assertEnded(p.b);
  }

  @Test
  void onlyTheFirstErrorIsReported() {
    MemoryRegion src = source();
    p.start();
    p.a.endpoint.write(1, 0x00bad000, 0, mem.gather(src, 0, 8, 1));
    p.a.endpoint.send(2, RdmapOpcode.SEND, 0, mem.gather(src, 0, 8, 1)); // no buffer either
    p.a.endpoint.flush();
    expectTerminate(p.b, "11 00 c0 00 | 0016 | c1 40 00bad000 0000000000000000", 1, 1, 0x00);
    assertEquals(1, countTerminates(p.b.wireBytes()), "exactly one Terminate");
  }

  // ---- helpers ----

  /** A source region of A with random contents. */
  private MemoryRegion source() {
    MemoryRegion src = mem.allocate(p.a.pd, 256, Regions.ALL);
    mem.fill(src, 0, 256);
    return src;
  }

  /** A 64-octet receive buffer posted at B. */
  private MemoryRegion postedBuffer() {
    MemoryRegion buffers = mem.allocate(p.b.pd, 64, Regions.ALL);
    p.b.endpoint.postReceive(5, mem.scatter(buffers, 0, 64, 1), 1);
    return buffers;
  }

  /** Runs the pair and checks the detector's Terminate and both sides' events and state. */
  private void expectTerminate(End detector, String terminateBody, int layer, int errorType,
      int errorCode, Object... peerEventsBefore) {
    p.shuttle();
    End peer = p.peer(detector);
    assertEquals(Hex.compact(TERMINATE + terminateBody), Wire.lastUlpdu(detector.wireBytes()),
        "the Terminate on the wire");
    assertEquals(1, countTerminates(detector.wireBytes()), "exactly one Terminate");
    assertEquals(List.of(new TerminateSent(layer, errorType, errorCode)), detector.events.events);
    List<Object> expectedPeer = new java.util.ArrayList<>(List.of(peerEventsBefore));
    expectedPeer.add(new TerminateReceived(layer, errorType, errorCode));
    List<Object> peerEvents = new java.util.ArrayList<>(peer.events.events);
    peerEvents.removeIf(e -> e instanceof RecordingEndpointListener.SendComplete);
    assertEquals(expectedPeer, peerEvents);
    assertEnded(detector);
    assertEnded(peer);
  }

  private static void assertEnded(End e) {
    assertTrue(e.endpoint.isEnded());
    assertFalse(e.channel.isOpen(), "the connection is closed");
    assertFalse(e.endpoint.canSend());
    assertFalse(e.endpoint.canIssueRead());
    IllegalStateException x = assertThrows(IllegalStateException.class,
        () -> e.endpoint.send(99, RdmapOpcode.SEND, 0, null));
    assertTrue(x.getMessage().contains("ended: Terminate"), x.getMessage());
    assertEquals(1, e.events.endEvents().size(), "exactly one end event");
  }

  private static int countTerminates(byte[] wire) {
    int n = 0;
    for (byte[] u : Wire.ulpdus(wire)) {
      if (u.length >= 2 && (u[0] & 0x80) == 0 && (u[1] & 0x0F) == 7) {
        n++;
      }
    }
    return n;
  }

  /** Writes one raw ULPDU through the end's MPA framer and flushes it. */
  private static void inject(End from, String hex) {
    ByteBuf ulpdu = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(Hex.compact(hex)));
    from.framer.write(ulpdu, null);
    from.framer.flush();
  }

  private static String hex8(int v) {
    return String.format("%08x", v);
  }

  private static String hex16(long v) {
    return String.format("%016x", v);
  }
}
