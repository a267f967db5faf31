package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FpduBoundaryClose} never puts the FIN in the middle of an FPDU: a socket stand-in at the
 * head of the pipeline takes written octets only when the test says so (a peer reading slowly)
 * and records exactly what reached "the wire" and when the close came.
 */
class FpduBoundaryCloseTest {
  /** The socket: holds each write until {@link #leave} lets the oldest ones go. */
  private static final class SlowSocket extends ChannelOutboundHandlerAdapter {
    final List<String> wire = new ArrayList<>();
    private final Deque<Object[]> held = new ArrayDeque<>();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      held.add(new Object[] {msg, promise});
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
      if (!wire.contains("FIN")) {
        wire.add("FIN"); // a second close of a closed socket sends nothing
      }
      for (Object[] h : held) {
        ((ByteBuf) h[0]).release();
        ((ChannelPromise) h[1]).tryFailure(new java.nio.channels.ClosedChannelException());
      }
      held.clear();
      super.close(ctx, promise);
    }

    /** The oldest {@code n} writes leave: their octets are on the wire, their promises done. */
    void leave(int n) {
      for (int i = 0; i < n; i++) {
        Object[] h = held.poll();
        ByteBuf b = (ByteBuf) h[0];
        if (b.isReadable()) {
          wire.add(ByteBufUtil.hexDump(b));
        }
        b.release();
        ((ChannelPromise) h[1]).setSuccess();
      }
    }
  }

  private final SlowSocket socket = new SlowSocket();
  private final EmbeddedChannel channel = new EmbeddedChannel();

  @AfterEach
  void tearDown() {
    channel.finishAndReleaseAll();
  }

  /** One FPDU written as three pieces (length + header, payload, CRC), as the framer does. */
  private void writeOneFpduInPieces() {
    channel.pipeline().addFirst(socket);
    channel.write(Unpooled.wrappedBuffer(new byte[] {0x00, 0x04, 0x41, 0x43}));
    channel.write(Unpooled.wrappedBuffer(new byte[] {0x01, 0x02}));
    channel.write(Unpooled.wrappedBuffer(new byte[] {0x0a, 0x0b, 0x0c, 0x0d}));
    channel.flush();
  }

  @Test
  void theFinFollowsTheLastOctetOfTheFpduInProgress() {
    writeOneFpduInPieces();
    socket.leave(1); // the FPDU in progress: its first piece is on the wire
    FpduBoundaryClose.close(channel, 1_000);
    channel.runPendingTasks();
    assertTrue(channel.isOpen(), "no FIN while the FPDU is partly written");
    socket.leave(1);
    channel.runPendingTasks();
    assertTrue(channel.isOpen(), "no FIN while the FPDU is partly written");
    socket.leave(2); // the CRC, then the empty write that marks "everything before has left"
    channel.runPendingTasks();
    assertFalse(channel.isOpen());
    assertEquals(List.of("00044143", "0102", "0a0b0c0d", "FIN"), socket.wire);
  }

  @Test
  void octetsThatCannotLeaveWithinTheBoundEndInAResetNotACutFpdu() {
    channel.freezeTime();
    writeOneFpduInPieces();
    socket.leave(1);
    FpduBoundaryClose.close(channel, 1_000);
    channel.runPendingTasks();
    channel.advanceTimeBy(999, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertTrue(channel.isOpen(), "within the bound the FIN still waits");
    channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertFalse(channel.isOpen(), "closed at the bound");
    // On a socket the close comes with SO_LINGER 0: a RST, which the peer reports as a lost
    // connection (MPA 0x01), never as a clean end after the first piece. (EmbeddedChannel has
    // no SO_LINGER; the close here is what the socket's RST would be.)
    assertEquals(List.of("00044143", "FIN"), socket.wire);
  }

  @Test
  void aClosedChannelIsJustClosed() {
    channel.close();
    assertTrue(FpduBoundaryClose.close(channel, 1_000).isDone());
  }
}
