package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link TerminateClose}: after the writes have left, a FIN (shutdown output), then the peer's
 * input is discarded until it closes or the linger passes; on a channel that cannot half-close
 * it just closes. Time is the embedded channel's virtual clock.
 */
class TerminateCloseTest {

  /** An embedded channel that records a half-close, as a TCP socket channel would do it. */
  private static final class HalfClosable extends EmbeddedChannel implements DuplexChannel {
    boolean outputShut;

    @Override
    public boolean isInputShutdown() {
      return false;
    }

    @Override
    public ChannelFuture shutdownInput() {
      return newSucceededFuture();
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
      return promise.setSuccess();
    }

    @Override
    public boolean isOutputShutdown() {
      return outputShut;
    }

    @Override
    public ChannelFuture shutdownOutput() {
      outputShut = true;
      return newSucceededFuture();
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
      outputShut = true;
      return promise.setSuccess();
    }

    @Override
    public boolean isShutdown() {
      return outputShut;
    }

    @Override
    public ChannelFuture shutdown() {
      outputShut = true;
      return newSucceededFuture();
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
      outputShut = true;
      return promise.setSuccess();
    }
  }

  @Test
  void lingerSettingDefaultsToTwoSecondsAndIsBounded() {
    assertEquals(Duration.ofSeconds(2), MpaSettings.defaults().terminateLinger());
    MpaSettings s = MpaSettings.builder().terminateLinger(Duration.ZERO).build();
    assertEquals(Duration.ZERO, s.toBuilder().build().terminateLinger());
    assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().terminateLinger(Duration.ofMillis(-1)));
    assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().terminateLinger(Duration.ofSeconds(61)));
  }

  @Test
  void aChannelThatCannotHalfCloseIsClosedOnceTheWritesLeft() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ChannelPromise closed = ch.newPromise();
    ch.writeOutbound(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
    TerminateClose.closeAfterWrites(ch, closed);
    ch.runPendingTasks();
    assertFalse(ch.isOpen());
    assertTrue(closed.isSuccess());
    ByteBuf sent = ch.readOutbound();
    assertEquals(3, sent.readableBytes(), "what was written before still left");
    sent.release();
    ch.finishAndReleaseAll();
  }

  @Test
  void afterTheFinTheInputIsDiscardedUntilThePeerCloses() {
    HalfClosable ch = new HalfClosable();
    ByteBuf[] passed = new ByteBuf[1];
    ch.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
        passed[0] = (ByteBuf) msg;
      }
    });
    TerminateClose.setLinger(ch, Duration.ofSeconds(2));
    ChannelPromise closed = ch.newPromise();
    TerminateClose.closeAfterWrites(ch, closed);
    ch.runPendingTasks();
    assertTrue(ch.outputShut, "no FIN after the writes");
    assertTrue(ch.isOpen(), "closed before the peer did: a RST would destroy the Terminate");

    ByteBuf late = Unpooled.directBuffer(64).writeZero(64);
    ch.writeInbound(late);
    assertEquals(0, late.refCnt(), "the peer's late octets were not released");
    assertNull(passed[0], "octets after our Terminate reached the layers above");

    ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
    assertFalse(ch.isOpen(), "not closed on the peer's FIN");
    assertTrue(closed.isSuccess());
  }

  @Test
  void aPeerThatNeverClosesIsCutOffAfterTheLinger() {
    HalfClosable ch = new HalfClosable();
    TerminateClose.setLinger(ch, Duration.ofSeconds(2));
    ChannelPromise closed = ch.newPromise();
    TerminateClose.closeAfterWrites(ch, closed);
    ch.runPendingTasks();
    ch.advanceTimeBy(1900, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertTrue(ch.isOpen(), "closed before the linger passed");
    ch.advanceTimeBy(200, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertFalse(ch.isOpen(), "still open after the linger");
    assertTrue(closed.isSuccess());
  }

  @Test
  void aZeroLingerClosesAsSoonAsTheWritesLeft() {
    HalfClosable ch = new HalfClosable();
    TerminateClose.setLinger(ch, Duration.ZERO);
    ChannelPromise closed = ch.newPromise();
    TerminateClose.closeAfterWrites(ch, closed);
    ch.runPendingTasks();
    assertFalse(ch.isOpen());
    assertFalse(ch.outputShut);
    assertTrue(closed.isSuccess());
  }
}
