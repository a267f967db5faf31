package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.rdmap.EndpointPair.End;
import io.iwarp4j.rdmap.RecordingEndpointListener.Disconnected;
import io.iwarp4j.rdmap.RecordingEndpointListener.Receive;
import io.iwarp4j.rdmap.RecordingEndpointListener.SendComplete;
import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Teardown (RFC 5040 §6.2): a graceful close sends what was handed to the transport and then a
 * FIN; the peer's clean FIN (how siw ends every connection: docs/interop.md, siw finding §5) is
 * a graceful disconnect; a reset or a FIN inside an FPDU is not. Each endpoint reports exactly
 * one end event, and afterwards every issuing method throws an IllegalStateException naming the
 * state.
 */
class RdmapTeardownTest {

  @Test
  void closeSendsWhatWasIssuedThenFinAndEachSideHearsOneGracefulDisconnect() {
    long seed = 31;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion src = mem.allocate(p.a.pd, 256, Regions.ALL);
      MemoryRegion dst = mem.allocate(p.b.pd, 256, Regions.ALL);
      mem.fill(src, 0, 256);
      p.b.endpoint.postReceive(3, new ByteBuf[] {dst.buffer().slice(128, 128)}, 1);
      p.start();
      p.a.endpoint.write(1, dst.stag(), dst.baseTo(), mem.gather(src, 0, 100, 2));
      p.a.endpoint.send(2, RdmapOpcode.SEND, 0, mem.gather(src, 100, 50, 1));
      p.a.transport.pause(); // a socket whose send buffer is full
      p.a.endpoint.close();
      assertTrue(p.a.channel.isOpen(), "the FIN waits for what was handed to the transport");
      assertFalse(p.a.endpoint.isEnded(), "ended only once the connection is closed");
      assertThrowsNaming("closing", () -> p.a.endpoint.send(3, RdmapOpcode.SEND, 0, null));
      assertDoesNotThrow(p.a.endpoint::close, "close() twice is harmless");
      p.a.transport.resume();
      p.shuttle();
      assertArrayEquals(Regions.read(src, 0, 100), Regions.read(dst, 0, 100));
      assertArrayEquals(Regions.read(src, 100, 50), Regions.read(dst, 128, 50));
      assertEquals(List.of(new SendComplete(1), new SendComplete(2), new Disconnected(true)),
          p.a.events.events);
      assertEquals(List.of(new Receive(3, RdmapOpcode.SEND, 50, 0), new Disconnected(true)),
          p.b.events.events);
      assertEndedWith(p.a, "ended: disconnected gracefully");
      assertEndedWith(p.b, "ended: disconnected gracefully");
      assertEquals(0, countTerminates(p.a.wireBytes()) + countTerminates(p.b.wireBytes()),
          "no Terminate on a graceful close");
    }
  }

  @Test
  void aPlainFinFromThePeerIsAGracefulDisconnect() {
    try (EndpointPair p = new EndpointPair(32).start()) {
      p.a.channel.close(); // siw: a TCP FIN, never a Terminate
      p.shuttle();
      assertEquals(List.of(new Disconnected(true)), p.b.events.events);
      assertEndedWith(p.b, "ended: disconnected gracefully");
    }
  }

  /**
   * RFC 5040 §6.2 / RFC 5044 §7.2: a FIN at an FPDU boundary while a Read waits for its response
   * is not a graceful termination (the Read cannot complete successfully) but an LLP close DDP
   * did not expect (MPA 0x01): an ungraceful disconnect, so the owner completes the Read in
   * error. The peer closes before the Read Request reaches it.
   */
  @Test
  void aFinWithAReadOutstandingIsAnUngracefulDisconnect() {
    long seed = 36;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion sink = mem.allocate(p.a.pd, 64, Regions.ALL);
      MemoryRegion source = mem.allocate(p.b.pd, 64, Regions.ALL);
      p.start();
      p.a.endpoint.read(1, sink.stag(), sink.baseTo(), 64, source.stag(), source.baseTo());
      p.a.endpoint.flush();
      p.b.channel.close(); // a FIN at an FPDU boundary, no Terminate
      p.shuttle();
      assertEquals(List.of(new Disconnected(false)), p.a.events.events);
      assertEndedWith(p.a, "ended: disconnected (connection lost or reset)");
    }
  }

  /** The same for an RFC 7306 Atomic waiting for its response (it shares ORD with Reads). */
  @Test
  void aFinWithAnAtomicOutstandingIsAnUngracefulDisconnect() {
    long seed = 37;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion result = mem.allocate(p.a.pd, 64, Regions.ALL);
      p.start();
      p.a.endpoint.atomic(1, io.iwarp4j.wire.AtomicOpcode.FETCH_ADD, 0x1234, 0, 1, 0, 0, 0,
          result.stag(), result.baseTo());
      p.a.endpoint.flush();
      p.b.channel.close();
      p.shuttle();
      assertEquals(List.of(new Disconnected(false)), p.a.events.events);
    }
  }

  /** Once the Read has completed, nothing is outstanding: the peer's FIN is graceful again. */
  @Test
  void aFinAfterTheReadCompletedIsGraceful() {
    long seed = 38;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion sink = mem.allocate(p.a.pd, 64, Regions.ALL);
      MemoryRegion source = mem.allocate(p.b.pd, 64, Regions.ALL);
      p.start();
      p.a.endpoint.read(1, sink.stag(), sink.baseTo(), 64, source.stag(), source.baseTo());
      p.a.endpoint.flush();
      p.shuttle();
      p.b.channel.close();
      p.shuttle();
      assertEquals(List.of(new RecordingEndpointListener.ReadComplete(1, 64),
          new Disconnected(true)), p.a.events.events);
    }
  }

  @Test
  void aResetIsAnUngracefulDisconnect() {
    try (EndpointPair p = new EndpointPair(33).start()) {
      p.b.channel.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
      p.shuttle();
      assertEquals(List.of(new Disconnected(false)), p.b.events.events);
      assertEndedWith(p.b, "ended: disconnected (connection lost or reset)");
      assertEquals(List.of(new Disconnected(true)), p.a.events.events,
          "A only saw the connection close at a message boundary");
    }
  }

  @Test
  void aFinInsideAnFpduIsAnUngracefulDisconnect() {
    try (EndpointPair p = new EndpointPair(34).start()) {
      // The first octets of an FPDU announcing a 32-octet ULPDU, then the connection closes.
      p.a.channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {0x00, 0x20, 0x41, 0x43}));
      p.a.channel.close();
      p.shuttle();
      assertEquals(List.of(new Disconnected(false)), p.b.events.events);
    }
  }

  @Test
  void everyIssuingMethodThrowsAfterTheEndNamingTheState() {
    long seed = 35;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion r = mem.allocate(p.a.pd, 64, Regions.ALL);
      p.start();
      p.b.endpoint.abort(1, 0xFF);
      p.shuttle();
      End a = p.a;
      String state = "ended: Terminate received (0/1/0xff)";
      assertThrowsNaming(state, () -> a.endpoint.write(1, r.stag(), r.baseTo(), null));
      assertThrowsNaming(state, () -> a.endpoint.read(1, r.stag(), r.baseTo(), 0, 0, 0));
      assertThrowsNaming(state, () -> a.endpoint.send(1, RdmapOpcode.SEND, 0, null));
      assertThrowsNaming(state, () -> a.endpoint.postReceive(1, new ByteBuf[0], 0));
      assertThrowsNaming(state, () -> a.endpoint.abort(0, 0));
      assertDoesNotThrow(a.endpoint::flush);
      assertDoesNotThrow(a.endpoint::close);
      assertThrowsNaming("ended: Terminate sent (0/1/0xff)",
          () -> p.b.endpoint.send(1, RdmapOpcode.SEND, 0, null));
      assertEquals(1, a.events.endEvents().size());
      assertEquals(1, p.b.events.endEvents().size());
    }
  }

  @Test
  void misuseIsRefusedWithAnExceptionNamingTheProblem() {
    long seed = 36;
    EndpointPair.Config c = new EndpointPair.Config();
    c.receiveBuffers = 1;
    c.receivePieces = 2;
    try (EndpointPair p = new EndpointPair(seed, c, c); Regions mem = new Regions(seed)) {
      MemoryRegion r = mem.allocate(p.a.pd, 64, Regions.ALL);
      p.start();
      RdmapEndpoint e = p.a.endpoint;
      assertThrowsNaming("not one of the four Send opcodes",
          IllegalArgumentException.class, () -> e.send(1, RdmapOpcode.RDMA_WRITE, 0, null));
      assertThrowsNaming("carries no Invalidate STag",
          IllegalArgumentException.class, () -> e.send(1, RdmapOpcode.SEND, 5, null));
      // A Read's sink is checked once, by its caller (verbs: QueuePairTest), not here again.
      ByteBuf[] pieces = mem.scatter(r, 0, 64, 3);
      assertThrowsNaming("maxReceivePieces", IllegalArgumentException.class,
          () -> e.postReceive(1, pieces, 3));
      e.postReceive(1, pieces, 2);
      assertThrowsNaming("maxReceiveBuffers 1", IllegalStateException.class,
          () -> e.postReceive(2, pieces, 1));
      assertThrowsNaming("must fit 4 and 8 bits", IllegalArgumentException.class,
          () -> e.abort(16, 0));
      p.shuttle();
      assertEquals(List.of(), p.a.events.events, "nothing was sent");
      assertEquals(0, Wire.ulpdus(p.a.wireBytes()).size());
    }
  }

  @Test
  void anExceptionFromTheOwnersCallbackEndsTheStreamWithALocalCatastrophicTerminate() {
    long seed = 37;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion src = mem.allocate(p.a.pd, 64, Regions.ALL);
      MemoryRegion dst = mem.allocate(p.b.pd, 64, Regions.ALL);
      p.b.endpoint.postReceive(1, new ByteBuf[] {dst.buffer().slice(0, 64)}, 1);
      p.b.events.throwOnReceive = new IllegalStateException("owner bug");
      p.start();
      p.a.endpoint.send(2, RdmapOpcode.SEND, 0, mem.gather(src, 0, 8, 1));
      p.a.endpoint.flush();
      p.shuttle();
      assertEquals(List.of(new Receive(1, RdmapOpcode.SEND, 8, 0),
          new RecordingEndpointListener.TerminateSent(0, 0, 0)), p.b.events.events);
      assertEquals(Hex.compact("41 47 00000000 00000002 00000001 00000000 | 00 00 00 00"),
          Wire.lastUlpdu(p.b.wireBytes()), "RFC 5040 §4.8: Local Catastrophic, no headers");
      assertEquals(List.of(new SendComplete(2),
          new RecordingEndpointListener.TerminateReceived(0, 0, 0)), p.a.events.events);
    }
  }

  private static void assertEndedWith(End e, String state) {
    assertTrue(e.endpoint.isEnded());
    assertFalse(e.channel.isOpen());
    assertThrowsNaming(state, () -> e.endpoint.send(9, RdmapOpcode.SEND, 0, null));
    assertEquals(1, e.events.endEvents().size(), "exactly one end event");
  }

  private static void assertThrowsNaming(String text, Executable call) {
    assertThrowsNaming(text, IllegalStateException.class, call);
  }

  private static void assertThrowsNaming(String text, Class<? extends RuntimeException> type,
      Executable call) {
    RuntimeException e = assertThrows(type, call);
    assertTrue(e.getMessage().contains(text), e.getMessage());
  }

  static int countTerminates(byte[] wire) {
    int n = 0;
    for (byte[] u : Wire.ulpdus(wire)) {
      if (u.length >= 2 && (u[0] & 0x80) == 0 && (u[1] & 0x0F) == 7) {
        n++;
      }
    }
    return n;
  }
}
