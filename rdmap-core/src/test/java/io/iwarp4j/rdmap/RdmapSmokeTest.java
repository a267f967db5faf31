package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.rdmap.RecordingEndpointListener.ReadComplete;
import io.iwarp4j.rdmap.RecordingEndpointListener.Receive;
import io.iwarp4j.rdmap.RecordingEndpointListener.SendComplete;
import java.util.List;
import org.junit.jupiter.api.Test;

class RdmapSmokeTest {
  @Test
  void writeReadSend() {
    long seed = 42;
    try (EndpointPair p = new EndpointPair(seed); Regions mem = new Regions(seed)) {
      MemoryRegion srcA = mem.allocate(p.a.pd, 4096, Regions.ALL);
      MemoryRegion dstB = mem.allocate(p.b.pd, 4096, Regions.ALL);
      mem.fill(srcA, 0, 4096);
      p.b.endpoint.postReceive(7, mem.scatter(dstB, 2048, 1024, 2), 2);
      p.start();
      p.a.endpoint.write(1, dstB.stag(), dstB.baseTo(), mem.gather(srcA, 0, 1000, 3));
      p.a.endpoint.read(2, srcA.stag(), srcA.baseTo() + 3000, 500, dstB.stag(), dstB.baseTo());
      p.a.endpoint.send(3, RdmapOpcode.SEND, 0, mem.gather(srcA, 100, 300, 1));
      p.a.endpoint.flush();
      p.shuttle();
      assertArrayEquals(Regions.read(srcA, 0, 1000), Regions.read(dstB, 0, 1000));
      assertArrayEquals(Regions.read(srcA, 0, 500), Regions.read(srcA, 3000, 500));
      assertArrayEquals(Regions.read(srcA, 100, 300), Regions.read(dstB, 2048, 300));
      assertEquals(List.of(new SendComplete(1), new ReadComplete(2, 500), new SendComplete(3)),
          p.a.events.events);
      assertEquals(List.of(new Receive(7, RdmapOpcode.SEND, 300, 0)), p.b.events.events);
    }
  }
}
