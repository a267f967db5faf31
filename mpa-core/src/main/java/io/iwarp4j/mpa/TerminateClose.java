package io.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The close after a Terminate, done so the Terminate reaches the peer.
 *
 * <p>Closing a TCP socket whose receive buffer still holds unread octets makes the kernel send a
 * RST instead of a FIN (RFC 1122 §4.2.2.13), and a RST makes the peer's kernel discard what it
 * had not yet handed to its application: the Terminate we just wrote. A peer that was flooding us
 * when we terminated always leaves unread octets behind. So after the Terminate (and everything
 * written before it) has left, this shuts down our sending half (a FIN after the Terminate), keeps
 * reading and discarding the peer's octets (released at once, only counted) until the peer closes
 * its half or {@link MpaSettings#terminateLinger()} passes, and only then closes.
 *
 * <p>Both phases are bounded: the writes before the FIN get ten times the linger (a peer that
 * never reads cannot keep the connection), the drain after it the linger itself. On channels
 * that cannot half-close (an {@code EmbeddedChannel}), or with a zero linger, it closes as soon
 * as the writes have left, as before.
 */
public final class TerminateClose {
  private static final Logger LOG = LoggerFactory.getLogger(TerminateClose.class);

  /** The linger a channel's MPA startup handler recorded from its {@link MpaSettings}. */
  static final AttributeKey<Duration> LINGER = AttributeKey.valueOf(TerminateClose.class,
      "linger");

  /** Name of the draining handler in the pipeline. */
  static final String DRAIN_HANDLER = "iwarp4j-terminate-drain";

  /** How many lingers the writes before the FIN may take to leave. */
  private static final int WRITE_LINGERS = 10;

  private TerminateClose() {
  }

  /**
   * Records on {@code channel} the linger its Terminate closes use (see the class comment).
   *
   * @param channel the connection
   * @param linger zero (close as soon as the writes have left) or positive
   */
  public static void setLinger(Channel channel, Duration linger) {
    channel.attr(LINGER).set(linger);
  }

  /**
   * Closes {@code channel} once everything written so far has left, gracefully (see the class
   * comment). Call on the event loop, right after the Terminate was written and flushed.
   *
   * @param channel the connection
   * @param closePromise completed when the channel is closed
   */
  public static void closeAfterWrites(Channel channel, ChannelPromise closePromise) {
    Duration linger = channel.attr(LINGER).get();
    if (linger == null) {
      linger = MpaSettings.DEFAULT_TERMINATE_LINGER;
    }
    channel.closeFuture().addListener(f -> closePromise.trySuccess());
    if (!(channel instanceof DuplexChannel) || linger.isZero()) {
      // An empty write completes only after everything written before it has left.
      channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> channel.close());
      return;
    }
    long lingerNanos = linger.toNanos();
    ScheduledFuture<?> writeBound = channel.eventLoop().schedule(() -> {
      LOG.debug("{} the writes before the Terminate's FIN did not leave in time; closing",
          channel);
      channel.close();
    }, lingerNanos * WRITE_LINGERS, TimeUnit.NANOSECONDS);
    channel.closeFuture().addListener(f -> writeBound.cancel(false));
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
      writeBound.cancel(false);
      if (!written.isSuccess() || !channel.isActive()) {
        channel.close();
        return;
      }
      Drain drain = new Drain(channel);
      if (channel.pipeline().get(DRAIN_HANDLER) == null) {
        channel.pipeline().addFirst(DRAIN_HANDLER, drain);
      }
      ScheduledFuture<?> drainBound = channel.eventLoop().schedule(() -> {
        LOG.debug("{} the peer did not close within the linger after our Terminate; closing"
            + " ({} octets discarded)", channel, drain.discarded);
        channel.close();
      }, lingerNanos, TimeUnit.NANOSECONDS);
      channel.closeFuture().addListener(f -> drainBound.cancel(false));
      ((DuplexChannel) channel).shutdownOutput().addListener(shut -> {
        if (!shut.isSuccess()) {
          channel.close();
        }
      });
      channel.config().setAutoRead(true);
      channel.read();
    });
  }

  /**
   * Discards everything the peer still sends: nothing after our Terminate is processed (RFC
   * 5040 §5.4 ends the stream). Closes on the peer's FIN or a read error.
   */
  private static final class Drain extends ChannelInboundHandlerAdapter {
    private final Channel channel;
    long discarded;

    Drain(Channel channel) {
      this.channel = channel;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ByteBuf b) {
        discarded += b.readableBytes();
      } else if (msg instanceof ByteBufHolder h) {
        discarded += h.content().readableBytes();
      }
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      // nothing reaches the layers above any more
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        closeDrained();
      } else {
        ReferenceCountUtil.release(evt);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("{} read failed while draining after our Terminate: {}", channel,
          cause.toString());
      closeDrained();
    }

    private void closeDrained() {
      LOG.debug("{} the peer closed after our Terminate ({} octets discarded)", channel,
          discarded);
      channel.close();
    }
  }
}
