package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Barriers are released only after everything written before them, once per write, report
 * whether the channel was still active, are reused, and are direct (so NIO and epoll pass them
 * through instead of copying and releasing them early).
 */
class TransportBarriersTest {

  @Test
  void aBarrierIsReleasedAfterWhatWasWrittenBeforeItAndReused() {
    TestTransport transport = new TestTransport();
    // The endpoint's handler at the tail ignores the ClosedChannelException of dropped writes.
    EmbeddedChannel channel = new EmbeddedChannel(transport,
        new TransportEvents(new TransportEvents.Listener() {
          @Override
          public void onTransportException(Throwable cause) {
            throw new AssertionError(cause);
          }

          @Override
          public void onChannelInactive() {
          }
        }));
    List<String> taken = new ArrayList<>();
    TransportBarriers barriers = new TransportBarriers(channel,
        (upTo, sent) -> taken.add(upTo + (sent ? " sent" : " dropped")));
    try {
      transport.pause();
      channel.write(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
      barriers.writeBehind(1);
      barriers.writeBehind(1); // already covered: no second barrier
      channel.write(Unpooled.wrappedBuffer(new byte[] {4}));
      barriers.writeBehind(2);
      channel.flush();
      assertEquals(4, transport.flushedNotTaken());
      transport.takeMessages(1);
      assertEquals(List.of(), taken, "the octets before the barrier are taken, not the barrier");
      transport.takeMessages(1);
      assertEquals(List.of("1 sent"), taken);
      transport.takeMessages(2);
      assertEquals(List.of("1 sent", "2 sent"), taken);
      assertTrue(barriers.covers(2));

      barriers.writeBehind(3); // reuses a released barrier
      channel.flush();
      transport.takeMessages(1);
      assertEquals("3 sent", taken.get(2));
      assertEquals(4, transport.drainTaken().length, "barriers carry no octets");

      barriers.writeBehind(4);
      channel.flush();
      channel.close(); // the close drops what the transport did not take
      assertEquals("4 dropped", taken.get(3));
      barriers.writeBehind(5);
      assertEquals(4, taken.size(), "no barrier is written on a closed channel");
    } finally {
      channel.finishAndReleaseAll();
    }
  }

  @Test
  void aBarrierIsAnEmptyDirectBuffer() {
    TransportBarriers owner = new TransportBarriers(new EmbeddedChannel(), (upTo, sent) -> { });
    ByteBuf b = new TransportBarrier(owner).arm(7);
    assertTrue(b.isDirect());
    assertEquals(0, b.readableBytes());
    assertEquals(1, b.refCnt());
    b.release();
    assertEquals(1, new TransportBarrier(owner).arm(8).refCnt());
  }
}
