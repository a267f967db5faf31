package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ring reuses a buffer only once the transport released it, grows only while the buffer in
 * turn is still in flight, falls back at its limit, and frees everything on close.
 */
class SmallBufferRingTest {

  @Test
  void reusesReleasedBuffersGrowsWhileInFlightFallsBackAtTheLimitAndReleasesOnClose() {
    EmbeddedChannel ch = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    SmallBufferRing ring = new SmallBufferRing(ch, 12, 16);
    List<ByteBuf> first = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      ByteBuf b = ring.acquire();
      assertEquals(2, b.refCnt(), "the ring's reference and the one handed out");
      assertEquals(0, b.readableBytes());
      assertEquals(12, b.maxCapacity());
      b.writeInt(i);
      first.add(b);
    }
    assertEquals(16, ring.slots());
    // All 16 slots are in flight: the next buffer is a one-off.
    ByteBuf oneOff = ring.acquire();
    assertEquals(1, oneOff.refCnt());
    assertTrue(first.stream().noneMatch(b -> b == oneOff));
    oneOff.release();
    // The transport takes the oldest: its slot is reused, cleared.
    first.get(0).release();
    ByteBuf again = ring.acquire();
    assertSame(first.get(0), again);
    assertEquals(0, again.readableBytes());
    again.release();
    for (int i = 1; i < 16; i++) {
      first.get(i).release();
    }
    ch.close();
    for (ByteBuf b : first) {
      assertEquals(0, b.refCnt(), "the ring's references are released when the channel closes");
    }
    ByteBuf afterClose = ring.acquire();
    assertNotSame(first.get(1), afterClose);
    assertEquals(1, afterClose.refCnt());
    afterClose.release();
    ch.finishAndReleaseAll();
  }

  @Test
  void aConnectionWithOneBufferInFlightAtATimeKeepsOneSlot() {
    EmbeddedChannel ch = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    SmallBufferRing ring = new SmallBufferRing(ch, 64, 128);
    for (int i = 0; i < 1000; i++) {
      ring.acquire().writeLong(i).release();
    }
    assertEquals(1, ring.slots());
    ch.finishAndReleaseAll();
  }

  @Test
  void aSizeThatIsNotPositiveIsRefused() {
    EmbeddedChannel ch = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    assertThrows(IllegalArgumentException.class, () -> new SmallBufferRing(ch, 0, 4));
    assertThrows(IllegalArgumentException.class, () -> new SmallBufferRing(ch, 4, 0));
    ch.finishAndReleaseAll();
  }
}
