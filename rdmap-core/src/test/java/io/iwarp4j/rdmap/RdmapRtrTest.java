package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaInitiatorHandler;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.iwarp4j.mpa.MpaSettings;
import io.iwarp4j.mpa.RtrType;
import io.iwarp4j.rdmap.RecordingEndpointListener.ReadComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.Receive;
import io.iwarp4j.rdmap.RecordingEndpointListener.SendComplete;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Endpoints over real MPA connections after an RFC 6581 peer-to-peer startup with each RTR type:
 * the RTR used MSN 1 of its queue in the Initiator-to-Responder direction (DdpStream numbers
 * around it), so an RDMA Read after a Read RTR is the Initiator's Read Request with MSN 2, and
 * Reads and Sends work both ways.
 */
class RdmapRtrTest {

  @ParameterizedTest(name = "{0} RTR")
  @EnumSource(RtrType.class)
  void readsAndSendsWorkBothWaysAfterTheRtr(RtrType rtr) {
    long seed = 60 + rtr.ordinal();
    System.out.println("RdmapRtrTest seed=" + seed);
    StagTable table = new StagTable(16, new SplittableRandom(seed), Duration.ofSeconds(10));
    TestTransport initiatorWire = new TestTransport();
    TestTransport responderWire = new TestTransport();
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO)
        .rtrTypes(rtr).ird(2).ord(2).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    EmbeddedChannel initiator = new EmbeddedChannel(initiatorWire, ih);
    EmbeddedChannel responder = new EmbeddedChannel(responderWire, rh);
    try (ProtectionDomain pdA = table.newProtectionDomain();
        ProtectionDomain pdB = table.newProtectionDomain();
        Regions mem = new Regions(seed)) {
      Runnable shuttle = () -> {
        boolean moved;
        do {
          initiator.runPendingTasks();
          responder.runPendingTasks();
          moved = move(initiatorWire, responder) | move(responderWire, initiator);
        } while (moved);
      };
      shuttle.run();
      MpaConnection ic = ih.handshakeFuture().getNow();
      MpaConnection rc = rh.handshakeFuture().getNow();
      assertNotNull(ic, "the Initiator's handshake completed");
      assertNotNull(rc, "the Responder's handshake completed");
      assertEquals(rtr, ic.info().rtr());

      RecordingEndpointListener eventsA = new RecordingEndpointListener();
      RecordingEndpointListener eventsB = new RecordingEndpointListener();
      DdpStream streamA = new DdpStream(ic, pdA, null);
      DdpStream streamB = new DdpStream(rc, pdB, null);
      RdmapEndpoint a = new RdmapEndpoint(streamA, eventsA, 2, 2, 4, 1);
      RdmapEndpoint b = new RdmapEndpoint(streamB, eventsB, 2, 2, 4, 1);
      MemoryRegion ra = mem.allocate(pdA, 4096, Regions.ALL);
      MemoryRegion rb = mem.allocate(pdB, 4096, Regions.ALL);
      mem.fill(ra, 0, 1024);
      mem.fill(rb, 0, 1024);
      a.postReceive(1, new ByteBuf[] {ra.buffer().slice(3072, 512)}, 1);
      b.postReceive(2, new ByteBuf[] {rb.buffer().slice(3072, 512)}, 1);
      a.start();
      b.start();

      a.read(10, ra.stag(), ra.baseTo() + 1024, 1000, rb.stag(), rb.baseTo());
      a.send(11, RdmapOpcode.SEND, 0, new GatherList().add(ra.buffer(), 0, 100));
      a.flush();
      assertEquals(rtr == RtrType.READ ? 3 : 2, streamA.nextSendMsn(1),
          "the Read Request after a Read RTR carried MSN 2");
      b.read(20, rb.stag(), rb.baseTo() + 1024, 1000, ra.stag(), ra.baseTo());
      b.send(21, RdmapOpcode.SEND_WITH_SE, 0, new GatherList().add(rb.buffer(), 0, 200));
      b.flush();
      shuttle.run();

      assertArrayEquals(Regions.read(rb, 0, 1000), Regions.read(ra, 1024, 1000));
      assertArrayEquals(Regions.read(ra, 0, 1000), Regions.read(rb, 1024, 1000));
      assertArrayEquals(Regions.read(ra, 0, 100), Regions.read(rb, 3072, 100));
      assertArrayEquals(Regions.read(rb, 0, 200), Regions.read(ra, 3072, 200));
      assertEquals(List.of(new ReadComplete(10, 1000), new SendComplete(11),
          new Receive(1, RdmapOpcode.SEND_WITH_SE, 200, 0)), sorted(eventsA.events));
      assertEquals(List.of(new ReadComplete(20, 1000), new SendComplete(21),
          new Receive(2, RdmapOpcode.SEND, 100, 0)), sorted(eventsB.events));
      assertTrue(!a.isEnded() && !b.isEnded());
    } finally {
      initiator.finishAndReleaseAll();
      responder.finishAndReleaseAll();
    }
  }

  /** Completions first (in their order), then deliveries: the two sides interleave freely. */
  private static List<Object> sorted(List<Object> events) {
    List<Object> out = new java.util.ArrayList<>();
    for (Object e : events) {
      if (!(e instanceof Receive)) {
        out.add(e);
      }
    }
    for (Object e : events) {
      if (e instanceof Receive) {
        out.add(e);
      }
    }
    return out;
  }

  private static boolean move(TestTransport from, EmbeddedChannel to) {
    byte[] octets = from.drainTaken();
    if (octets.length > 0 && to.isOpen()) {
      to.writeInbound(Unpooled.wrappedBuffer(octets));
    }
    return octets.length > 0;
  }
}
