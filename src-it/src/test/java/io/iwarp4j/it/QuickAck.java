package io.iwarp4j.it;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioSocketChannel;
import jdk.net.ExtendedSocketOptions;

/**
 * Test harness only: keeps a socket acknowledging at once, so that a capture on lo shows no
 * retransmissions (the wire checker counts every one as an error, {@code T_CAPTURE}).
 *
 * <p>Why: Linux delays an ACK by at least 40 ms once it thinks a connection is interactive (after
 * the MPA Request/Reply exchange it does), while its tail loss probe fires after about two
 * jiffies when two or more segments wait for an ACK, e.g. a Terminate followed by the FIN, or a
 * burst while the receive window is full. The probe then resends a segment the peer already
 * has: harmless on the wire, but a "retransmission" in the capture. TCP_QUICKACK is not sticky,
 * so it is re-armed on every read; re-arming also sends an ACK that is pending. The octets on the
 * wire do not change.
 */
@ChannelHandler.Sharable
final class QuickAck extends ChannelInboundHandlerAdapter {
  static final QuickAck INSTANCE = new QuickAck();

  private QuickAck() {
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    arm(ctx.channel());
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    arm(ctx.channel());
    ctx.fireChannelRead(msg);
  }

  private static void arm(Channel ch) {
    if (!ch.isActive()) {
      return;
    }
    if (ch instanceof EpollSocketChannel epoll) {
      epoll.config().setTcpQuickAck(true);
    } else if (ch instanceof NioSocketChannel) {
      try {
        ch.config().setOption(NioChannelOption.of(ExtendedSocketOptions.TCP_QUICKACK), true);
      } catch (RuntimeException e) {
        // Not supported on this platform: the capture may then show retransmissions.
      }
    }
  }
}
