package io.iwarp4j.rdmap;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.channels.ClosedChannelException;

/**
 * The endpoint's handler at the tail of the channel's pipeline: what DDP does not report. Netty
 * surfaces a reset (or any read error) as an exception before it closes the channel, and the MPA
 * deframer reports a close at an FPDU boundary as a clean end of input either way; this handler
 * tells the endpoint about the exception, so that it can say whether the connection ended
 * gracefully. It also passes on {@code channelInactive}, which reaches it after the deframer has
 * reported the end of input: the one point where the endpoint knows everything about how the
 * connection ended.
 */
final class TransportEvents extends ChannelInboundHandlerAdapter {
  /** What the endpoint is told. */
  interface Listener {
    /** An exception reached the end of the pipeline (a reset, a failed read or write). */
    void onTransportException(Throwable cause);

    /** The channel is closed; every upper-layer report about its input has been made. */
    void onChannelInactive();
  }

  private final Listener listener;

  TransportEvents(Listener listener) {
    this.listener = listener;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof ClosedChannelException) {
      // A write that raced the close: the close itself is what counts.
      return;
    }
    listener.onTransportException(cause);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    listener.onChannelInactive();
    ctx.fireChannelInactive();
  }
}
