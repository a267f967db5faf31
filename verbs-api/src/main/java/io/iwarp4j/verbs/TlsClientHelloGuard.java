package io.iwarp4j.verbs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * First handler of a TLS listener's connection, before the TLS handler: when the client's first
 * octet starts a TLS handshake record (content type 22, its ClientHello) it steps aside; when it
 * does not (a client without TLS sends its MPA Request in clear, "MPA ID Req Frame"), it answers
 * with a fatal TLS alert in clear, so that the client can tell that this end expects TLS, and
 * closes the connection. Either way it leaves the pipeline after the first octet. One instance
 * per connection, event loop only.
 */
final class TlsClientHelloGuard extends ChannelInboundHandlerAdapter {
  static final String NAME = "tls-guard";
  /** TLS record content type of a handshake message (RFC 8446 §5.1). */
  private static final int HANDSHAKE = 22;
  /**
   * A TLSPlaintext alert record: type 21, legacy version 0x0303, length 2, level fatal (2),
   * unexpected_message (10) (RFC 8446 §5.1, §6).
   */
  private static final byte[] UNEXPECTED_MESSAGE_ALERT = {21, 3, 3, 0, 2, 2, 10};

  private final Runnable onPlaintext;
  private boolean refused;

  /** {@code onPlaintext} runs once, on the event loop, when a client without TLS is refused. */
  TlsClientHelloGuard(Runnable onPlaintext) {
    this.onPlaintext = onPlaintext;
  }

  /** Whether this connection was refused for not starting with TLS. */
  boolean refused() {
    return refused;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (!(msg instanceof ByteBuf in) || !in.isReadable()) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (in.getUnsignedByte(in.readerIndex()) == HANDSHAKE) {
      ctx.fireChannelRead(msg);
      ctx.pipeline().remove(this);
      return;
    }
    refused = true;
    in.release();
    onPlaintext.run();
    // Written from here, below the TLS handler: the alert leaves in clear.
    ctx.writeAndFlush(Unpooled.wrappedBuffer(UNEXPECTED_MESSAGE_ALERT))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
