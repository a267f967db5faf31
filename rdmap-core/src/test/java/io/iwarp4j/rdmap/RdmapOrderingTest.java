package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.rdmap.RecordingEndpointListener.ReadComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.SendComplete;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.TaggedHeader;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * ORD and completion order (RFC 5040 §5.5, §6.1): the requester never has more than ORD Reads
 * outstanding ({@code canIssueRead()} says when it may issue, a Read beyond it is refused before
 * anything is sent), Reads complete in issue order, the responder sends Read Responses in the
 * order the requests arrived, and Writes, Sends and Reads are reported in the order they were
 * issued even when a later one is done first.
 */
class RdmapOrderingTest {

  @Test
  void ordIsEnforcedAndReadsCompleteInOrderWithResponsesInRequestOrder() {
    long seed = 5;
    EndpointPair.Config a = new EndpointPair.Config();
    a.ord = 3;
    EndpointPair.Config b = new EndpointPair.Config();
    b.ird = 3;
    try (EndpointPair p = new EndpointPair(seed, a, b); Regions mem = new Regions(seed)) {
      MemoryRegion sink = mem.allocate(p.a.pd, 4096, Regions.ALL);
      MemoryRegion source = mem.allocate(p.b.pd, 4096, Regions.ALL);
      mem.fill(source, 0, 4096);
      p.start();
      int[] sizes = {700, 0, 1500};
      int[] offsets = {0, 1000, 2000};
      for (int i = 0; i < 3; i++) {
        assertTrue(p.a.endpoint.canIssueRead(), "read " + i);
        p.a.endpoint.read(100 + i, sink.stag(), sink.baseTo() + offsets[i], sizes[i],
            source.stag(), source.baseTo() + offsets[i] + 100);
      }
      assertFalse(p.a.endpoint.canIssueRead(), "ORD 3 reached");
      assertEquals(3, p.a.endpoint.outstandingReads());
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> p.a.endpoint.read(103, sink.stag(), sink.baseTo(), 1, source.stag(),
              source.baseTo()));
      assertTrue(e.getMessage().contains("ORD 3"), e.getMessage());
      p.a.endpoint.flush();
      p.shuttle();
      assertEquals(3, Wire.ulpdus(p.a.wireBytes()).size(), "the refused Read sent nothing");
      assertEquals(List.of(new ReadComplete(100, 700), new ReadComplete(101, 0),
          new ReadComplete(102, 1500)), p.a.events.events);
      for (int i = 0; i < 3; i++) {
        assertArrayEquals(Regions.read(source, offsets[i] + 100, sizes[i]),
            Regions.read(sink, offsets[i], sizes[i]));
      }
      // The responses went out in request order: their first segments' sink TOs ascend.
      List<Long> tos = new ArrayList<>();
      long previousEnd = -1;
      for (byte[] u : Wire.ulpdus(p.b.wireBytes())) {
        long to = Unpooled.wrappedBuffer(u).getLong(TaggedHeader.TO_OFFSET);
        if (to != previousEnd) {
          tos.add(to - sink.baseTo());
        }
        previousEnd = to + u.length - TaggedHeader.LENGTH;
      }
      assertEquals(List.of(0L, 1000L, 2000L), tos);
      assertTrue(p.a.endpoint.canIssueRead());
    }
  }

  @Test
  void completionsFollowIssueOrderAcrossOperationTypes() {
    long seed = 6;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion local = mem.allocate(p.a.pd, 4096, Regions.ALL);
      MemoryRegion remote = mem.allocate(p.b.pd, 4096, Regions.ALL);
      mem.fill(remote, 0, 4096);
      p.b.endpoint.postReceive(9, new io.netty.buffer.ByteBuf[] {remote.buffer().slice(2048, 64)},
          1);
      p.start();
      p.a.endpoint.write(1, remote.stag(), remote.baseTo(), mem.gather(local, 0, 10, 1));
      p.a.endpoint.read(2, local.stag(), local.baseTo() + 1024, 512, remote.stag(),
          remote.baseTo() + 512);
      p.a.endpoint.send(3, RdmapOpcode.SEND, 0, mem.gather(local, 0, 10, 2));
      p.a.endpoint.flush();
      // The transport took all three; the Send is done, but the Read before it is not.
      p.a.channel.runPendingTasks();
      assertEquals(List.of(new SendComplete(1)), p.a.events.events,
          "the Send waits for the Read issued before it (§5.5 rule 15)");
      p.shuttle();
      assertEquals(List.of(new SendComplete(1), new ReadComplete(2, 512), new SendComplete(3)),
          p.a.events.events);
    }
  }

  @Test
  void aBatchOfCompletionsEndsWithOneReport() {
    // The owner issues what completions made room for once per batch, not once per completion.
    long seed = 8;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion local = mem.allocate(p.a.pd, 4096, Regions.ALL);
      MemoryRegion remote = mem.allocate(p.b.pd, 4096, Regions.ALL);
      p.start();
      for (int i = 0; i < 5; i++) {
        p.a.endpoint.write(i, remote.stag(), remote.baseTo(), mem.gather(local, 0, 64, 1));
      }
      p.a.endpoint.flush();
      p.a.channel.runPendingTasks();
      assertEquals(5, p.a.events.events.size(), p.a.events.events.toString());
      assertEquals(1, p.a.events.completionBatches, "five completions, one batch");
      p.a.channel.runPendingTasks();
      assertEquals(1, p.a.events.completionBatches, "no report without a completion");
    }
  }

  @Test
  void manyReadsWithRandomSizesAtOrdAndIrdFour() {
    long seed = 7;
    SplittableRandom random = new SplittableRandom(seed);
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion sink = mem.allocate(p.a.pd, 1 << 16, Regions.ALL);
      MemoryRegion source = mem.allocate(p.b.pd, 1 << 16, Regions.ALL);
      mem.fill(source, 0, 1 << 16);
      MemoryRegion expectedSink = mem.allocate(p.a.pd, 1 << 16, Regions.ALL);
      p.start();
      List<Object> expected = new ArrayList<>();
      int token = 0;
      for (int round = 0; round < 20; round++) {
        while (p.a.endpoint.canIssueRead()) {
          int size = random.nextInt(3000);
          int offset = random.nextInt((1 << 16) - size);
          int from = random.nextInt((1 << 16) - size);
          p.a.endpoint.read(token, sink.stag(), sink.baseTo() + offset, size, source.stag(),
              source.baseTo() + from);
          expectedSink.buffer().setBytes(offset, Regions.read(source, from, size));
          expected.add(new ReadComplete(token++, size));
        }
        p.a.endpoint.flush();
        p.shuttle();
      }
      assertEquals(expected, p.a.events.events);
      assertArrayEquals(Regions.read(expectedSink, 0, 1 << 16), Regions.read(sink, 0, 1 << 16),
          "every Read landed where it was asked to, later ones over earlier ones");
    }
  }
}
