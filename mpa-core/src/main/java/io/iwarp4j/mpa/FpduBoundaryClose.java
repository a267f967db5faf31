package io.iwarp4j.mpa;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection without ever cutting an FPDU: "never send a FIN in the middle of an FPDU"
 * (RFC 5044 §7.2, graceful teardown). What was handed to the channel is flushed, and the FIN
 * follows once every octet of it has left, so the last FPDU on the wire is whole. A peer that
 * does not read can hold that forever: after {@code boundMillis} the connection is reset instead
 * (SO_LINGER 0, a TCP RST), an abortive LLP close (RFC 5040 §6.2 "LLP Abortive Termination",
 * which the peer reports as MPA error 0x01) that never shows a truncated FPDU as if it were the
 * end of the stream. Any thread.
 */
public final class FpduBoundaryClose {
  private static final Logger log = LoggerFactory.getLogger(FpduBoundaryClose.class);

  private FpduBoundaryClose() {
  }

  /**
   * Closes {@code channel} after what was written to it has left, or resets it after
   * {@code boundMillis}.
   *
   * @param channel the connection
   * @param boundMillis how long the written octets may take to leave before a reset
   * @return the channel's close future
   */
  public static ChannelFuture close(Channel channel, long boundMillis) {
    if (!channel.isActive()) {
      return channel.close();
    }
    channel.eventLoop().execute(() -> closeOnLoop(channel, boundMillis));
    return channel.closeFuture();
  }

  private static void closeOnLoop(Channel channel, long boundMillis) {
    if (!channel.isOpen()) {
      return;
    }
    ScheduledFuture<?> bound = channel.eventLoop().schedule(() -> reset(channel, boundMillis),
        boundMillis, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(f -> bound.cancel(false));
    // An empty write completes only once everything written before it has left (or failed).
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> channel.close());
  }

  private static void reset(Channel channel, long boundMillis) {
    if (!channel.isOpen()) {
      return;
    }
    boolean rst = false;
    try {
      rst = channel.config().setOption(ChannelOption.SO_LINGER, 0);
    } catch (RuntimeException e) {
      log.debug("{}: SO_LINGER 0 refused: {}", channel, e.toString());
    }
    log.debug("{}: written octets did not leave within {} ms; closing with {}", channel,
        boundMillis, rst ? "a reset" : "the transport's close");
    channel.close();
  }
}
