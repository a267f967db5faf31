package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.RegionOptions;
import io.iwarp4j.rdmap.EndpointPair.End;
import io.iwarp4j.rdmap.RecordingEndpointListener.ReadComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.Receive;
import io.iwarp4j.rdmap.RecordingEndpointListener.SendComplete;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every data transfer operation in both directions, over two endpoints wired back to back: RDMA
 * Write, RDMA Read and the four Sends, with zero-length messages, gather lists of 1 to 4 pieces
 * (scatter lists of 1 to 4 at the receiver), and messages of many segments (1 MiB with a
 * 512-octet MULPDU). Data is compared octet for octet, octets next to the target are checked
 * untouched, and the completions and deliveries are the expected ones, in order.
 */
class RdmapDataTransferTest {
  private static final int MIB = 1 << 20;
  private static final int GUARD = 64;

  static List<Arguments> shapes() {
    List<Arguments> out = new ArrayList<>();
    int[] sizes = {0, 1, 3, 1000, 4096, MIB};
    for (boolean aToB : new boolean[] {true, false}) {
      for (int size : sizes) {
        for (int pieces = 1; pieces <= 4; pieces++) {
          if (size == MIB && (pieces != 3 || !aToB)) {
            continue; // one large shape keeps the test fast (leak tracking is PARANOID)
          }
          out.add(Arguments.of(aToB, size, pieces));
        }
      }
    }
    return out;
  }

  private static EndpointPair pair(long seed) {
    EndpointPair.Config config = new EndpointPair.Config();
    config.mulpdu = 512;
    return new EndpointPair(seed, config, config);
  }

  @ParameterizedTest(name = "A->B {0}, {1} octets, {2} pieces")
  @MethodSource("shapes")
  void rdmaWrite(boolean aToB, int size, int pieces) {
    long seed = 1000L * size + pieces + (aToB ? 0 : 7);
    try (EndpointPair p = pair(seed); Regions mem = new Regions(seed)) {
      End src = aToB ? p.a : p.b;
      End dst = p.peer(src);
      MemoryRegion from = mem.allocate(src.pd, size + 2 * GUARD, Regions.ALL);
      MemoryRegion to = mem.allocate(dst.pd, size + 2 * GUARD, Regions.ALL);
      mem.fill(from, 0, size + 2 * GUARD);
      p.start();
      src.endpoint.write(11, to.stag(), to.baseTo() + GUARD, mem.gather(from, GUARD, size, pieces));
      src.endpoint.flush();
      p.shuttle();
      assertArrayEquals(Regions.read(from, GUARD, size), Regions.read(to, GUARD, size));
      assertGuardsZero(to, size);
      assertEquals(List.of(new SendComplete(11)), src.events.events);
      assertEquals(List.of(), dst.events.events, "a valid RDMA Write is not delivered (§5.1)");
      assertSegments(src, size, TaggedHeader.LENGTH);
    }
  }

  @ParameterizedTest(name = "A reads from B {0}, {1} octets")
  @MethodSource("shapes")
  void rdmaRead(boolean aReads, int size, int pieces) {
    long seed = 2000L * size + pieces + (aReads ? 0 : 7);
    try (EndpointPair p = pair(seed); Regions mem = new Regions(seed)) {
      End requester = aReads ? p.a : p.b;
      End responder = p.peer(requester);
      MemoryRegion sink = mem.allocate(requester.pd, size + 2 * GUARD, Regions.ALL);
      MemoryRegion source = mem.allocate(responder.pd, size + 2 * GUARD, Regions.ALL);
      mem.fill(source, 0, size + 2 * GUARD);
      p.start();
      requester.endpoint.read(21, sink.stag(), sink.baseTo() + GUARD, size, source.stag(),
          source.baseTo() + GUARD);
      assertEquals(1, requester.endpoint.outstandingReads());
      requester.endpoint.flush();
      p.shuttle();
      assertArrayEquals(Regions.read(source, GUARD, size), Regions.read(sink, GUARD, size));
      assertGuardsZero(sink, size);
      assertEquals(List.of(new ReadComplete(21, size)), requester.events.events);
      assertEquals(List.of(), responder.events.events, "the Data Source's ULP hears nothing");
      assertEquals(0, requester.endpoint.outstandingReads());
      assertEquals(0, responder.endpoint.outstandingInboundReads());
      assertSegments(responder, size, TaggedHeader.LENGTH);
    }
  }

  static List<Arguments> sends() {
    List<Arguments> out = new ArrayList<>();
    RdmapOpcode[] sends = {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE,
        RdmapOpcode.SEND_WITH_INVALIDATE, RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE};
    for (Arguments shape : shapes()) {
      Object[] s = shape.get();
      out.add(Arguments.of(s[0], s[1], s[2], sends[((int) s[1] + (int) s[2]) % 4]));
    }
    return out;
  }

  @ParameterizedTest(name = "A->B {0}, {1} octets, {2} pieces, {3}")
  @MethodSource("sends")
  void sendVariants(boolean aToB, int size, int pieces, RdmapOpcode opcode) {
    long seed = 3000L * size + pieces + opcode.code() + (aToB ? 0 : 7);
    try (EndpointPair p = pair(seed); Regions mem = new Regions(seed)) {
      End src = aToB ? p.a : p.b;
      End dst = p.peer(src);
      MemoryRegion from = mem.allocate(src.pd, size + 2 * GUARD, Regions.ALL);
      MemoryRegion buffers = mem.allocate(dst.pd, size + 2 * GUARD, Regions.ALL);
      MemoryRegion advertised = mem.allocate(dst.pd, 64, Regions.ALL,
          RegionOptions.defaults().allowRemoteInvalidation(true));
      mem.fill(from, 0, size + 2 * GUARD);
      int receivePieces = 1 + (pieces + size) % 4;
      // A buffer larger than the message: the Send may be smaller than the buffer (§5.3).
      dst.endpoint.postReceive(31, mem.scatter(buffers, GUARD, size + GUARD / 2, receivePieces),
          receivePieces);
      p.start();
      int invalidate = opcode.carriesInvalidateStag() ? advertised.stag() : 0;
      src.endpoint.send(41, opcode, invalidate, mem.gather(from, GUARD, size, pieces));
      src.endpoint.flush();
      p.shuttle();
      assertArrayEquals(Regions.read(from, GUARD, size), Regions.read(buffers, GUARD, size));
      assertGuardsZero(buffers, size);
      assertEquals(List.of(new SendComplete(41)), src.events.events);
      assertEquals(List.of(new Receive(31, opcode, size, invalidate)), dst.events.events);
      assertEquals(!opcode.carriesInvalidateStag(), advertised.isValid(),
          "Send with Invalidate invalidates the named STag (§5.3)");
      assertSegments(src, size, UntaggedHeader.LENGTH);
    }
  }

  /** The message travelled as ceil(size / (MULPDU - header)) segments, at least one. */
  private static void assertSegments(End sender, int size, int headerLength) {
    int room = 512 - headerLength;
    int expected = Math.max(1, (size + room - 1) / room);
    assertEquals(expected, Wire.ulpdus(sender.wireBytes()).size(), "segments on the wire");
  }

  private static void assertGuardsZero(MemoryRegion r, int size) {
    byte[] before = Regions.read(r, 0, GUARD);
    byte[] after = Regions.read(r, GUARD + size, GUARD);
    for (int i = 0; i < GUARD; i++) {
      assertEquals(0, before[i], "octet " + i + " before the target changed");
      assertEquals(0, after[i], "octet " + i + " after the target changed");
    }
    assertFalse(r.isClosed());
    assertTrue(r.length() >= size);
  }
}
