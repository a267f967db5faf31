package io.iwarp4j.rdmap;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.rdmap.EndpointPair.End;
import io.iwarp4j.rdmap.RecordingEndpointListener.Immediate;
import io.iwarp4j.rdmap.RecordingEndpointListener.ReadComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.SendComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.TerminateReceived;
import io.iwarp4j.rdmap.RecordingEndpointListener.TerminateSent;
import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RFC 7306 at the RDMAP layer, between two endpoints over MPA framing: the exact octets of Atomic
 * Requests, Atomic Responses and Immediate Data on the wire, the operations' results in memory,
 * the requester's completions, the shared ORD, the response ordering with Read Responses (§7),
 * and every error with its exact Terminate and untouched memory (§5.1, §6.3, §8).
 */
class RdmapAtomicsTest {
  /** The Terminate's DDP header: untagged, last, RDMAP opcode 7, QN 2, MSN 1, MO 0. */
  private static final String TERMINATE = "41 47 00000000 00000002 00000001 00000000";
  /** DDP header of the first Atomic Request: untagged, last, opcode 0xA, QN 1, MSN 1, MO 0. */
  private static final String ATOMIC_REQUEST_1 = "41 4a 00000000 00000001 00000001 00000000";
  private static final long INITIAL = 0x1122_3344_5566_7788L;

  private EndpointPair p;
  private final Regions mem = new Regions(7306);

  @AfterEach
  void tearDown() {
    if (p != null) {
      p.close();
    }
    mem.close();
  }

  private EndpointPair pair(int ordA, int irdB, boolean rfc7306B) {
    EndpointPair.Config a = new EndpointPair.Config();
    a.ord = ordA;
    EndpointPair.Config b = new EndpointPair.Config();
    b.ird = irdB;
    b.rfc7306 = rfc7306B;
    p = new EndpointPair(7306, a, b);
    return p;
  }

  /** A's 8-octet-aligned result buffer. */
  private MemoryRegion result() {
    return mem.allocate(p.a.pd, 64, LOCAL_WRITE);
  }

  /** B's target region, INITIAL at offset 8 (native order). */
  private MemoryRegion target(int access) {
    MemoryRegion t = mem.allocate(p.b.pd, 64, access);
    t.putLong(8, INITIAL);
    return t;
  }

  // ---- the operations, with their octets on the wire ----

  @Test
  void fetchAddOnTheWireAndInMemory() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    MemoryRegion r = result();
    p.a.endpoint.atomic(11, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 5, 0, 77, 77,
        r.stag(), r.baseTo() + 16);
    p.a.endpoint.flush();
    p.shuttle();

    // FetchAdd sends Compare Data 0 and Compare Mask all ones, whatever was passed (§5.2.1).
    assertEquals(Hex.compact(ATOMIC_REQUEST_1 + "00000000 00000001" + hex8(t.stag())
        + hex16(t.baseTo() + 8) + "0000000000000005 0000000000000000 0000000000000000"
        + "ffffffffffffffff"), Wire.lastUlpdu(p.a.wireBytes()));
    // Atomic Response: untagged, last, opcode 0xB, QN 3, MSN 1; Original Request Identifier 1.
    assertEquals(Hex.compact("41 4b 00000000 00000003 00000001 00000000 00000001"
        + hex16(INITIAL)), Wire.lastUlpdu(p.b.wireBytes()));
    assertEquals(INITIAL + 5, t.getLong(8));
    assertEquals(INITIAL, r.getLong(16), "the original value, in native order");
    assertEquals(List.of(new ReadComplete(11, 8)), p.a.events.events);
    assertEquals(List.of(), p.b.events.events, "an Atomic is not delivered to the ULP (§5.2.1)");
  }

  @Test
  void maskedFetchAddAddsFieldByField() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    MemoryRegion r = result();
    long before = 0x00ff_0001_7fff_fffeL;
    long add = 0x0001_ffff_0001_0003L;
    t.putLong(8, before);
    // Four 16-bit fields: the top bit of each is set in the mask, so no carry crosses fields.
    p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, add,
        0x8000_8000_8000_8000L, 0, 0, r.stag(), r.baseTo());
    p.a.endpoint.flush();
    p.shuttle();
    assertEquals(0x0100_0000_8000_0001L, expectFieldSums(before, add), "the reference");
    assertEquals(0x0100_0000_8000_0001L, t.getLong(8));
    assertEquals(before, r.getLong(0));
  }

  private static long expectFieldSums(long a, long b) {
    long out = 0;
    for (int f = 0; f < 4; f++) {
      long sum = ((a >>> (16 * f)) + (b >>> (16 * f))) & 0xffff;
      out |= sum << (16 * f);
    }
    return out;
  }

  @Test
  void cmpSwapSwapsOnlyWhenTheMaskedBitsMatch() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    MemoryRegion r = result();
    // The low 32 bits match: swap the high 32 bits only.
    p.a.endpoint.atomic(1, AtomicOpcode.CMP_SWAP, t.stag(), t.baseTo() + 8,
        0xaaaa_aaaa_0000_0000L, 0xffff_ffff_0000_0000L, 0x0000_0000_5566_7788L,
        0x0000_0000_ffff_ffffL, r.stag(), r.baseTo());
    // Then a comparison that fails leaves the memory alone.
    p.a.endpoint.atomic(2, AtomicOpcode.CMP_SWAP, t.stag(), t.baseTo() + 8, 0, -1L, 0, -1L,
        r.stag(), r.baseTo() + 8);
    p.a.endpoint.flush();
    p.shuttle();
    assertEquals(0xaaaa_aaaa_5566_7788L, t.getLong(8));
    assertEquals(INITIAL, r.getLong(0));
    assertEquals(0xaaaa_aaaa_5566_7788L, r.getLong(8));
    assertEquals(List.of(new ReadComplete(1, 8), new ReadComplete(2, 8)), p.a.events.events);
    List<byte[]> requests = Wire.ulpdus(p.a.wireBytes());
    assertEquals(Hex.compact("41 4a 00000000 00000001 00000002 00000000 00000002 00000002"
        + hex8(t.stag()) + hex16(t.baseTo() + 8)
        + "0000000000000000 ffffffffffffffff 0000000000000000 ffffffffffffffff"),
        Hex.of(requests.get(1)), "the second request: MSN 2, Request Identifier 2");
  }

  @Test
  void immediateDataConsumesAReceiveWithoutFillingIt() {
    pair(4, 4, true);
    MemoryRegion buffer = mem.allocate(p.b.pd, 64, LOCAL_WRITE);
    mem.fill(buffer, 0, 64);
    byte[] before = Regions.read(buffer, 0, 64);
    p.b.endpoint.postReceive(5, mem.scatter(buffer, 0, 64, 1), 1);
    p.b.endpoint.postReceive(6, mem.scatter(buffer, 0, 0, 1), 1);
    p.start();
    p.a.endpoint.immediate(1, false, 0x0102_0304_0506_0708L);
    p.a.endpoint.immediate(2, true, -2L);
    p.a.endpoint.flush();
    p.shuttle();
    List<byte[]> wire = Wire.ulpdus(p.a.wireBytes());
    assertEquals(Hex.compact("41 48 00000000 00000000 00000001 00000000 0102030405060708"),
        Hex.of(wire.get(0)));
    assertEquals(Hex.compact("41 49 00000000 00000000 00000002 00000000 fffffffffffffffe"),
        Hex.of(wire.get(1)));
    assertEquals(List.of(new Immediate(5, RdmapOpcode.IMMEDIATE_DATA, 0x0102_0304_0506_0708L),
        new Immediate(6, RdmapOpcode.IMMEDIATE_DATA_WITH_SE, -2L)), p.b.events.events,
        "even a zero-length receive buffer takes Immediate Data");
    assertArrayEquals(before, Regions.read(buffer, 0, 64), "nothing placed");
    assertEquals(List.of(new SendComplete(1), new SendComplete(2)), p.a.events.events);
  }

  @Test
  void writeWithImmediateCompletesOnceAfterTheWriteIsPlaced() {
    pair(4, 4, true);
    MemoryRegion src = mem.allocate(p.a.pd, 128, LOCAL_WRITE);
    mem.fill(src, 0, 128);
    MemoryRegion sink = mem.allocate(p.b.pd, 128, LOCAL_WRITE | REMOTE_WRITE);
    MemoryRegion buffer = mem.allocate(p.b.pd, 8, LOCAL_WRITE);
    p.b.endpoint.postReceive(9, mem.scatter(buffer, 0, 8, 1), 1);
    p.start();
    p.a.endpoint.writeWithImmediate(3, sink.stag(), sink.baseTo(), mem.gather(src, 0, 128, 3),
        true, 42);
    p.a.endpoint.flush();
    p.shuttle();
    assertEquals(List.of(new SendComplete(3)), p.a.events.events, "one completion");
    assertEquals(List.of(new Immediate(9, RdmapOpcode.IMMEDIATE_DATA_WITH_SE, 42)),
        p.b.events.events);
    assertArrayEquals(Regions.read(src, 0, 128), Regions.read(sink, 0, 128));
  }

  // ---- ORD and ordering ----

  @Test
  void atomicsShareOrdWithReads() {
    pair(2, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC | REMOTE_READ);
    MemoryRegion r = result();
    p.a.endpoint.read(1, r.stag(), r.baseTo() + 32, 8, t.stag(), t.baseTo());
    p.a.endpoint.atomic(2, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
        r.stag(), r.baseTo());
    assertFalse(p.a.endpoint.canIssueRead(), "ORD 2 is used up by a Read and an Atomic");
    IllegalStateException x = assertThrows(IllegalStateException.class,
        () -> p.a.endpoint.atomic(3, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0,
            0, r.stag(), r.baseTo()));
    assertTrue(x.getMessage().contains("ORD 2"), x.getMessage());
    p.a.endpoint.flush();
    p.shuttle();
    assertTrue(p.a.endpoint.canIssueRead());
  }

  @Test
  void responsesLeaveInRequestOrderAndCompleteInIssueOrder() {
    // RFC 7306 §7: an Atomic Response is not generated before the preceding Read Response, and
    // a Read Response is not generated before the preceding Atomic Response.
    pair(8, 8, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC | REMOTE_READ);
    MemoryRegion r = result();
    p.a.endpoint.read(1, r.stag(), r.baseTo() + 32, 16, t.stag(), t.baseTo());
    p.a.endpoint.atomic(2, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
        r.stag(), r.baseTo());
    p.a.endpoint.read(3, r.stag(), r.baseTo() + 48, 16, t.stag(), t.baseTo());
    p.a.endpoint.atomic(4, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
        r.stag(), r.baseTo() + 8);
    p.a.endpoint.flush();
    p.shuttle();
    List<String> kinds = new ArrayList<>();
    for (byte[] u : Wire.ulpdus(p.b.wireBytes())) {
      kinds.add((u[0] & 0x80) != 0 ? "ReadResponse" : "opcode" + (u[1] & 0xF));
    }
    assertEquals(List.of("ReadResponse", "opcode11", "ReadResponse", "opcode11"), kinds);
    assertEquals(List.of(new ReadComplete(1, 16), new ReadComplete(2, 8),
        new ReadComplete(3, 16), new ReadComplete(4, 8)), p.a.events.events);
    // The first Read saw the value before both adds, the second after the first add.
    assertEquals(INITIAL, r.getLong(32 + 8), "the first Read ran before the first Atomic");
    assertEquals(INITIAL, r.getLong(0));
    assertEquals(INITIAL + 1, r.getLong(8));
    assertEquals(INITIAL + 1, readNative(r, 48 + 8), "the second Read ran after the first Atomic");
    assertEquals(INITIAL + 2, t.getLong(8));
  }

  private static long readNative(MemoryRegion r, int offset) {
    return r.getLong(offset);
  }

  // ---- errors: exact Terminates, memory untouched ----

  @Test
  void unalignedTargetIsACatastrophicStreamError() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    MemoryRegion r = result();
    p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 12, 1, 0, 0, 0,
        r.stag(), r.baseTo());
    p.a.endpoint.flush();
    // §8.2: 0/2/0x07; §8.1 item 2: the DDP header is echoed, no RDMA header (R=0).
    expectTerminate(p.b, "02 07 c0 00 | 0046 |" + ATOMIC_REQUEST_1, 0, 2, 0x07);
    assertUntouched(t);
  }

  /**
   * RFC 7306 §5.1.1/§5.1.2/§8.2 require the target's ULP Buffer address to be 64-bit aligned,
   * not its Tagged Offset: a zero-based region over memory that starts 3 octets past an aligned
   * address takes an atomic at TO 5 (memory base + 8), and refuses one at TO 8 (base + 11).
   */
  @Test
  void anOddTaggedOffsetOnAlignedMemoryIsATarget() {
    pair(4, 4, true).start();
    ByteBuf memory = Unpooled.directBuffer(72);
    try {
      assertEquals(0, memory.memoryAddress() % 8, "test premise: direct memory is 8-aligned");
      MemoryRegion t = p.b.pd.register(memory, 3, 64, LOCAL_WRITE | REMOTE_ATOMIC,
          io.iwarp4j.ddp.mem.RegionOptions.defaults().zeroBased());
      try {
        assertEquals(0, t.baseTo());
        t.putLong(5, INITIAL);
        MemoryRegion r = result();
        p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, t.stag(), 5, 3, 0, 0, 0, r.stag(),
            r.baseTo());
        p.a.endpoint.flush();
        p.shuttle();
        assertEquals(INITIAL + 3, t.getLong(5));
        assertEquals(INITIAL, r.getLong(0), "the original value");
        assertEquals(List.of(new ReadComplete(1, 8)), p.a.events.events);

        // TO 8 is aligned as a number but lands on memory base + 11: 0/2/0x07, untouched.
        byte[] before = Regions.read(t, 0, 64);
        p.a.endpoint.atomic(2, AtomicOpcode.CMP_SWAP, t.stag(), 8, 1, -1L, 0, 0, r.stag(),
            r.baseTo());
        p.a.endpoint.flush();
        expectTerminate(p.b, "02 07 c0 00 | 0046 | 41 4a 00000000 00000001 00000002 00000000",
            0, 2, 0x07);
        assertArrayEquals(before, Regions.read(t, 0, 64), "the target is unchanged");
      } finally {
        t.close();
      }
    } finally {
      memory.release();
    }
  }

  @Test
  void outOfBounds() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    MemoryRegion r = result();
    p.a.endpoint.atomic(1, AtomicOpcode.CMP_SWAP, t.stag(), t.baseTo() + 64, 1, -1, 0, 0,
        r.stag(), r.baseTo());
    p.a.endpoint.flush();
    expectTerminate(p.b, "01 01 c0 00 | 0046 |" + ATOMIC_REQUEST_1, 0, 1, 0x01);
    assertUntouched(t);
  }

  @Test
  void noRemoteAtomicAccess() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ);
    MemoryRegion r = result();
    p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
        r.stag(), r.baseTo());
    p.a.endpoint.flush();
    expectTerminate(p.b, "01 02 c0 00 | 0046 |" + ATOMIC_REQUEST_1, 0, 1, 0x02);
    assertUntouched(t);
  }

  @Test
  void foreignProtectionDomain() {
    pair(4, 4, true).start();
    ProtectionDomain other = p.table.newProtectionDomain();
    try {
      MemoryRegion t = mem.allocate(other, 64, LOCAL_WRITE | REMOTE_ATOMIC);
      t.putLong(8, INITIAL);
      MemoryRegion r = result();
      p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
          r.stag(), r.baseTo());
      p.a.endpoint.flush();
      expectTerminate(p.b, "01 03 c0 00 | 0046 |" + ATOMIC_REQUEST_1, 0, 1, 0x03);
      assertUntouched(t);
    } finally {
      mem.close();
      other.close();
    }
  }

  @Test
  void invalidStag() {
    pair(4, 4, true).start();
    MemoryRegion r = result();
    p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, 0x00bad000, 0x1000, 1, 0, 0, 0, r.stag(),
        r.baseTo());
    p.a.endpoint.flush();
    expectTerminate(p.b, "01 00 c0 00 | 0046 |" + ATOMIC_REQUEST_1, 0, 1, 0x00);
  }

  @Test
  void reservedAopcodeIsAnUnexpectedOpcode() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    // AOpCode 0x1 (the 2011 draft's Swap, reserved in RFC 7306 §10.1), written raw.
    inject(p.a, ATOMIC_REQUEST_1 + "00000001 00000001" + hex8(t.stag()) + hex16(t.baseTo() + 8)
        + "0000000000000001 ffffffffffffffff 0000000000000000 ffffffffffffffff");
    expectTerminate(p.b, "02 06 c0 00 | 0046 |" + ATOMIC_REQUEST_1, 0, 2, 0x06);
    assertUntouched(t);
  }

  /**
   * RFC 7306 §5.4 #3 and #5: an Atomic Request "MUST NOT start processing at the Responder until
   * [it has] been Delivered to RDMAP by DDP", and DDP delivers an untagged message only with its
   * last (L=1) segment (RFC 5041 §5.4). Our own requester never splits one (the RDMAP header
   * travels whole in the first segment), another stack may: three crafted segments of the
   * 52-octet FetchAdd request (20 + 20 + 12 octets, MO 0, 0x14, 0x28, L=1 on the last only), fed
   * to the responder one FPDU at a time. The first two leave the target and the wire untouched;
   * the third performs it once and sends the one Atomic Response.
   */
  @Test
  void anAtomicRequestSplitOverThreeSegmentsIsPerformedOnlyWhenDelivered() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    String body = Hex.compact("00000000 00000001" + hex8(t.stag()) + hex16(t.baseTo() + 8)
        + "0000000000000005 0000000000000000 0000000000000000 ffffffffffffffff");
    assertEquals(104, body.length(), "52 octets");
    String[] segments = {
        "01 4a 00000000 00000001 00000001 00000000" + body.substring(0, 40),
        "01 4a 00000000 00000001 00000001 00000014" + body.substring(40, 80),
        "41 4a 00000000 00000001 00000001 00000028" + body.substring(80)};
    for (int i = 0; i < 3; i++) {
      inject(p.a, segments[i]);
      p.a.channel.runPendingTasks();
      io.iwarp4j.testing.Inbound.feed(p.b.channel, p.a.transport.drainTaken(), left -> left);
      p.b.channel.runPendingTasks();
      if (i < 2) {
        assertUntouched(t);
        assertEquals(0, p.b.transport.drainTaken().length, "nothing answered after segment " + i);
      }
    }
    assertEquals(INITIAL + 5, t.getLong(8), "performed once");
    // Atomic Response: QN 3, MSN 1, Original Request Identifier 1, the original value.
    assertEquals(Hex.compact("41 4b 00000000 00000003 00000001 00000000 00000001"
        + hex16(INITIAL)), Wire.lastUlpdu(p.b.transport.drainTaken()));
    assertEquals(List.of(), p.b.events.endEvents(), "no Terminate");
  }

  @Test
  void truncatedAtomicRequestIsUnspecified() {
    pair(4, 4, true).start();
    inject(p.a, ATOMIC_REQUEST_1 + "00000000 00000001");
    expectTerminate(p.b, "02 ff c0 00 | 001a |" + ATOMIC_REQUEST_1, 0, 2, 0xff);
  }

  @Test
  void immediateDataOfTheWrongLength() {
    pair(4, 4, true);
    MemoryRegion buffer = mem.allocate(p.b.pd, 64, LOCAL_WRITE);
    p.b.endpoint.postReceive(5, mem.scatter(buffer, 0, 64, 1), 1);
    p.start();
    // §6.3: exactly 8 octets; these 12 are refused before anything is placed.
    String header = "41 48 00000000 00000000 00000001 00000000";
    inject(p.a, header + "0102030405060708 090a0b0c");
    expectTerminate(p.b, "02 ff c0 00 | 001e |" + header, 0, 2, 0xff);
    assertTrue(Regions.allZero(buffer), "the posted buffer is untouched");
  }

  @Test
  void atomicResponseWithNoAtomicOutstanding() {
    pair(4, 4, true).start();
    String header = "41 4b 00000000 00000003 00000001 00000000";
    inject(p.b, header + "00000001 0000000000000000");
    expectTerminate(p.a, "02 06 c0 00 | 001e |" + header, 0, 2, 0x06);
  }

  @Test
  void atomicResponseWithAnotherRequestIdentifier() {
    pair(4, 4, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    MemoryRegion r = result();
    p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
        r.stag(), r.baseTo());
    p.a.endpoint.flush();
    p.a.channel.runPendingTasks();
    p.a.transport.drainTaken(); // the request never reaches B; B "answers" with a wrong id
    String header = "41 4b 00000000 00000003 00000001 00000000";
    inject(p.b, header + "00000063 0000000000000000");
    expectTerminate(p.a, "02 ff c0 00 | 001e |" + header, 0, 2, 0xff);
    assertTrue(Regions.allZero(r), "no original value stored");
  }

  @Test
  void atomicsBeyondIrdFindNoBuffer() {
    pair(4, 1, true).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    MemoryRegion r = result();
    // Two requests in one flight: B's IRD of 1 is still held by the first response (its
    // transmission is not confirmed yet) when the second is delivered, as with Reads.
    p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
        r.stag(), r.baseTo());
    p.a.endpoint.atomic(2, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
        r.stag(), r.baseTo() + 8);
    p.a.endpoint.flush();
    p.shuttle();
    assertEquals(new TerminateSent(1, 2, 0x02), p.b.events.events.get(0));
    assertEquals(INITIAL + 1, t.getLong(8), "only the first request was performed");
  }

  // ---- without RFC 7306 (an RFC 5040-only peer such as Linux siw) ----

  @Test
  void withoutRfc7306AnAtomicIsAnUnexpectedOpcode() {
    pair(4, 4, false).start();
    MemoryRegion t = target(LOCAL_WRITE | REMOTE_ATOMIC);
    MemoryRegion r = result();
    p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, t.stag(), t.baseTo() + 8, 1, 0, 0, 0,
        r.stag(), r.baseTo());
    p.a.endpoint.flush();
    expectTerminate(p.b, "02 06 c0 00 | 0046 |" + ATOMIC_REQUEST_1, 0, 2, 0x06);
    assertUntouched(t);
  }

  @Test
  void withoutRfc7306NothingOfItCanBeIssued() {
    pair(4, 4, false).start();
    assertFalse(p.b.endpoint.rfc7306Enabled());
    MemoryRegion r = mem.allocate(p.b.pd, 64, LOCAL_WRITE);
    IllegalStateException x = assertThrows(IllegalStateException.class,
        () -> p.b.endpoint.immediate(1, false, 0));
    assertTrue(x.getMessage().contains("RFC 7306"), x.getMessage());
    x = assertThrows(IllegalStateException.class, () -> p.b.endpoint.atomic(1,
        AtomicOpcode.FETCH_ADD, 1, 8, 1, 0, 0, 0, r.stag(), r.baseTo()));
    assertTrue(x.getMessage().contains("RFC 7306"), x.getMessage());
  }

  @Test
  void withoutRfc7306ImmediateDataIsAnUnexpectedOpcode() {
    pair(4, 4, false);
    MemoryRegion buffer = mem.allocate(p.b.pd, 64, LOCAL_WRITE);
    p.b.endpoint.postReceive(5, mem.scatter(buffer, 0, 64, 1), 1);
    p.start();
    p.a.endpoint.immediate(1, false, 7);
    p.a.endpoint.flush();
    expectTerminate(p.b, "02 06 c0 00 | 001a | 41 48 00000000 00000000 00000001 00000000",
        0, 2, 0x06);
    assertTrue(Regions.allZero(buffer));
  }

  // ---- helpers ----

  private static void assertUntouched(MemoryRegion t) {
    assertEquals(INITIAL, t.getLong(8), "the target is unchanged");
  }

  private void expectTerminate(End detector, String terminateBody, int layer, int errorType,
      int errorCode) {
    p.shuttle();
    End peer = p.peer(detector);
    assertEquals(Hex.compact(TERMINATE + terminateBody), Wire.lastUlpdu(detector.wireBytes()),
        "the Terminate on the wire");
    assertEquals(List.of(new TerminateSent(layer, errorType, errorCode)),
        detector.events.endEvents());
    assertEquals(List.of(new TerminateReceived(layer, errorType, errorCode)),
        peer.events.endEvents());
    assertTrue(detector.endpoint.isEnded());
    assertTrue(peer.endpoint.isEnded());
  }

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
