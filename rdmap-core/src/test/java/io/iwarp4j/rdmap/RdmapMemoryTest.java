package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.rdmap.RecordingEndpointListener.Disconnected;
import io.iwarp4j.rdmap.RecordingEndpointListener.LocalProtectionError;
import io.iwarp4j.rdmap.RecordingEndpointListener.ReadComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.Receive;
import io.iwarp4j.rdmap.RecordingEndpointListener.SendComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.TerminateSent;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Memory and the transport: a Write or Send completes only once the transport took its last
 * octet (RFC 5040 §5.5 rule 14), so the application may then reuse the memory; the source region
 * of a Read Response stays pinned while the transport may still read it, so deregistering it
 * waits (and here, with a short drain timeout, gives up without freeing anything) until the
 * transport took the response, or the connection closed. No buffer leaks (the leak detector runs
 * at PARANOID for every test).
 */
class RdmapMemoryTest {

  @Test
  void aSendCompletesOnlyAfterTheTransportTookItsLastOctet() {
    long seed = 51;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion src = mem.allocate(p.a.pd, 4096, Regions.ALL);
      MemoryRegion dst = mem.allocate(p.b.pd, 4096, Regions.ALL);
      mem.fill(src, 0, 4096);
      p.b.endpoint.postReceive(1, new ByteBuf[] {dst.buffer().slice(0, 4096)}, 1);
      p.start();
      p.a.transport.pause();
      p.a.endpoint.send(7, RdmapOpcode.SEND, 0, mem.gather(src, 0, 3000, 3)); // 3 FPDUs
      p.a.endpoint.write(8, dst.stag(), dst.baseTo() + 3000, mem.gather(src, 0, 10, 1));
      p.a.endpoint.flush();
      p.a.channel.runPendingTasks();
      int queued = p.a.transport.flushedNotTaken();
      assertTrue(queued > 4, queued + " buffers queued");
      // Everything but the barrier behind the batch: the last payload octet is still queued.
      p.a.transport.takeMessages(queued - 2);
      p.a.channel.runPendingTasks();
      assertEquals(List.of(), p.a.events.events, "nothing completes before the transport took it");
      p.a.transport.takeMessages(2);
      p.a.channel.runPendingTasks();
      assertEquals(List.of(new SendComplete(7), new SendComplete(8)), p.a.events.events);
      p.a.transport.resume();
      p.shuttle();
      assertEquals(List.of(new Receive(1, RdmapOpcode.SEND, 3000, 0)), p.b.events.events);
    }
  }

  @Test
  void aRegionBeingReadCannotBeFreedUnderTheTransport() {
    long seed = 52;
    try (EndpointPair p = new EndpointPair(seed, new EndpointPair.Config(),
        new EndpointPair.Config(), Duration.ofMillis(50)); Regions mem = new Regions(seed)) {
      MemoryRegion sink = mem.allocate(p.a.pd, 8192, Regions.ALL);
      MemoryRegion source = mem.allocate(p.b.pd, 8192, Regions.ALL);
      mem.fill(source, 0, 8192);
      byte[] expected = Regions.read(source, 0, 8192);
      p.start();
      p.b.transport.pause(); // B's socket takes nothing: its Read Response stays queued
      p.a.endpoint.read(1, sink.stag(), sink.baseTo(), 8192, source.stag(), source.baseTo());
      p.a.endpoint.flush();
      p.shuttle();
      assertEquals(1, p.b.endpoint.outstandingInboundReads(), "the response is in flight");
      assertTrue(p.b.transport.flushedNotTaken() > 0);

      IllegalStateException e = assertThrows(IllegalStateException.class, source::close);
      assertTrue(e.getMessage().contains("still in flight"), e.getMessage());
      assertFalse(source.isClosed(), "the pin kept the memory registered and allocated");

      p.b.transport.resume();
      p.shuttle();
      assertEquals(0, p.b.endpoint.outstandingInboundReads(), "the transport took it: unpinned");
      assertEquals(List.of(new ReadComplete(1, 8192)), p.a.events.events);
      assertArrayEquals(expected, Regions.read(sink, 0, 8192), "the memory was intact when sent");
      source.close();
      assertTrue(source.isClosed(), "deregistration completes once the response was taken");
    }
  }

  @Test
  void aConnectionResetReleasesThePinsOfResponsesNeverSent() {
    long seed = 53;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion sink = mem.allocate(p.a.pd, 4096, Regions.ALL);
      MemoryRegion source = mem.allocate(p.b.pd, 4096, Regions.ALL);
      p.start();
      p.b.transport.pause();
      p.a.endpoint.read(1, sink.stag(), sink.baseTo(), 4096, source.stag(), source.baseTo());
      p.a.endpoint.flush();
      p.shuttle();
      assertEquals(1, p.b.endpoint.outstandingInboundReads());
      // The connection dies with the response still queued: the close drops it.
      p.b.channel.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
      p.shuttle();
      assertEquals(List.of(new Disconnected(false)), p.b.events.events);
      assertEquals(0, p.b.endpoint.outstandingInboundReads());
      source.close(); // returns at once: nothing holds a pin
      assertTrue(source.isClosed());
      // A saw a FIN at a message boundary with its Read outstanding: an LLP error, not a
      // graceful close (RFC 5040 §6.2; RdmapTeardownTest#aFinWithAReadOutstanding...).
      assertEquals(List.of(new Disconnected(false)), p.a.events.events);
    }
  }

  @Test
  void anOwnerMayIssueFromInsideACompletion() {
    long seed = 54;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion src = mem.allocate(p.a.pd, 256, Regions.ALL);
      MemoryRegion dst = mem.allocate(p.b.pd, 256, Regions.ALL);
      mem.fill(src, 0, 256);
      p.start();
      p.a.events.onNextSendComplete = () -> {
        p.a.endpoint.write(2, dst.stag(), dst.baseTo() + 100, mem.gather(src, 100, 100, 2));
        p.a.endpoint.flush();
      };
      p.a.endpoint.write(1, dst.stag(), dst.baseTo(), mem.gather(src, 0, 100, 1));
      p.a.endpoint.flush();
      p.shuttle();
      assertEquals(List.of(new SendComplete(1), new SendComplete(2)), p.a.events.events);
      assertArrayEquals(Regions.read(src, 0, 200), Regions.read(dst, 0, 200));
    }
  }

  /**
   * RDMAP does not check a Read's sink when it issues the Read (the verbs layer checked it): the
   * one check that guards the memory is DDP's, before each placement. A sink deregistered before
   * the Read went out is found there, as a local error (never one blamed on the peer), and
   * nothing is written into the memory it had.
   */
  @Test
  void aReadWhoseSinkIsGoneIsALocalProtectionErrorWhenItsResponseArrives() {
    long seed = 55;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion sink = mem.allocate(p.a.pd, 4096, Regions.ALL);
      MemoryRegion source = mem.allocate(p.b.pd, 4096, Regions.ALL);
      mem.fill(source, 0, 4096);
      p.start();
      sink.close();
      p.a.endpoint.read(1, sink.stag(), sink.baseTo(), 4096, source.stag(), source.baseTo());
      p.a.endpoint.flush();
      p.shuttle();
      assertEquals(List.of(new LocalProtectionError(1, false), new TerminateSent(0, 0, 0)),
          p.a.events.events);
    }
  }

  /**
   * RDMAP checks an Atomic's result buffer once, where it writes it (when the Atomic Response
   * arrives), with the region pinned: a result region deregistered between issue and response
   * is a local protection error charged to the Atomic with an RDMAP Local Catastrophic
   * Terminate, and its memory (here a buffer the caller still holds) is not written.
   */
  @Test
  void anAtomicWhoseResultBufferIsGoneIsALocalProtectionErrorWhenItsResponseArrives() {
    long seed = 56;
    ByteBuf memory = Unpooled.directBuffer(64, 64).writeBytes(filled(64, 0xEE));
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion result = p.a.pd.register(memory, AccessFlags.LOCAL_WRITE);
      MemoryRegion target = mem.allocate(p.b.pd, 64,
          AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC);
      target.putLong(8, 41);
      p.start();
      p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, target.stag(), target.baseTo() + 8, 1, 0,
          0, 0, result.stag(), result.baseTo() + 16);
      p.a.endpoint.flush();
      result.close();
      p.shuttle();
      assertEquals(42, target.getLong(8), "the peer performed the Atomic");
      assertEquals(List.of(new LocalProtectionError(1, false), new TerminateSent(0, 0, 0)),
          p.a.events.events);
      assertArrayEquals(filled(64, 0xEE), ByteBufUtil.getBytes(memory, 0, 64),
          "nothing written into the deregistered result buffer");
    } finally {
      memory.release();
    }
  }

  /**
   * A result range RDMAP was handed outside its region (the caller's precondition, unchecked at
   * issue) is found by the same check when the response arrives: a local protection error, not
   * an exception out of the receive path, and no octet written.
   */
  @Test
  void anAtomicWhoseResultRangeLeavesItsRegionIsALocalProtectionErrorWhenItsResponseArrives() {
    long seed = 57;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion result = mem.allocate(p.a.pd, 64, Regions.ALL);
      mem.fill(result, 0, 64);
      byte[] before = Regions.read(result, 0, 64);
      MemoryRegion target = mem.allocate(p.b.pd, 64,
          AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC);
      p.start();
      p.a.endpoint.atomic(1, AtomicOpcode.FETCH_ADD, target.stag(), target.baseTo() + 8, 1, 0,
          0, 0, result.stag(), result.baseTo() + 60);
      p.a.endpoint.flush();
      p.shuttle();
      assertEquals(List.of(new LocalProtectionError(1, false), new TerminateSent(0, 0, 0)),
          p.a.events.events);
      assertArrayEquals(before, Regions.read(result, 0, 64), "no octet written");
    }
  }

  private static byte[] filled(int n, int value) {
    byte[] b = new byte[n];
    java.util.Arrays.fill(b, (byte) value);
    return b;
  }
}
