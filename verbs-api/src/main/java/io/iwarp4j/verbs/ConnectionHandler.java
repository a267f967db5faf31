package io.iwarp4j.verbs;

import io.iwarp4j.mpa.MpaConnectRequest;
import io.iwarp4j.mpa.MpaRejectedException;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of every connection's pipeline: hands MPA connect requests to the
 * application (Responder side), tells the queue pair when the channel becomes writable again,
 * and closes the channel on an exception nobody handled. One instance per channel.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  static final String NAME = "iwarp4j-connection";
  private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

  private final RdmaDevice device;
  private final MpaResponderHandler responder;
  private final ConnectRequestHandler requests;
  /** The listener's TCP liveness settings (the device's under its overrides), or null. */
  private final TcpLiveness listenerTcp;
  private QueuePair qp;
  private Runnable onInactive;
  /** The TLS failure reported before a queue pair was attached, or null. Event loop. */
  private Throwable tlsFailure;
  /** Whether TCP ever connected: a failed connect must be reported as such, not as MPA's. */
  private volatile boolean wasActive;

  /** For an Initiator's channel. */
  ConnectionHandler(RdmaDevice device) {
    this(device, null, null, null);
  }

  /** For an accepted channel: connect requests go to {@code requests}. */
  ConnectionHandler(RdmaDevice device, MpaResponderHandler responder,
      ConnectRequestHandler requests, TcpLiveness listenerTcp) {
    this.device = device;
    this.listenerTcp = listenerTcp;
    this.responder = responder;
    this.requests = requests;
  }

  /**
   * The queue pair is attached: writability changes go to it from now on, and {@code onInactive}
   * runs when the channel closes. Event loop.
   */
  void attach(QueuePair qp, Runnable onInactive) {
    this.qp = qp;
    this.onInactive = onInactive;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof MpaConnectRequest mpaRequest && requests != null) {
      device.startupDone(ctx.channel());
      dispatch(ctx, mpaRequest);
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  private void dispatch(ChannelHandlerContext ctx, MpaConnectRequest mpaRequest) {
    ConnectRequest request = new ConnectRequest(device, mpaRequest, ctx.channel(),
        responder.handshakeFuture(), this);
    // A rejected connection is left open by MPA: close it once the Reply is out.
    responder.handshakeFuture().addListener(f -> {
      if (f.cause() instanceof MpaRejectedException r && r.rejectedLocally()) {
        ctx.channel().writeAndFlush(Unpooled.EMPTY_BUFFER)
            .addListener(ChannelFutureListener.CLOSE);
      }
    });
    try {
      requests.onConnectRequest(request);
    } catch (RuntimeException e) {
      log.warn("ConnectRequestHandler threw on {}; rejecting it", request, e);
      if (!request.isDecided()) {
        request.reject(new byte[0]);
      }
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (qp != null && ctx.channel().isWritable()) {
      qp.binding().writabilityChanged();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    wasActive = true;
    ctx.fireChannelActive();
  }

  /** The TCP settings an accepted connection got from its listener. */
  TcpLiveness listenerTcp() {
    return listenerTcp;
  }

  /** The TLS failure seen before a queue pair was attached, or null. Event loop. */
  Throwable tlsFailure() {
    return tlsFailure;
  }

  /** Whether this handler serves an accepted (Responder) connection. */
  boolean isResponderSide() {
    return responder != null;
  }

  /** Whether the channel was ever connected. */
  boolean wasActive() {
    return wasActive;
  }

  /**
   * The RDMAP endpoint's handler comes after this one and reports how the stream ended from
   * {@code channelInactive}; the endpoint also closes the channel before it reports a Terminate.
   * So the close is handled here, after the event went past the endpoint: by then it has told
   * the queue pair why the connection ended.
   */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    ctx.fireChannelInactive();
    Runnable r = onInactive;
    if (r != null) {
      r.run();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    // Only octets after a rejecting Reply get here (MPA left): nobody wants them.
    ReferenceCountUtil.release(msg);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (qp != null) {
      // The RDMAP endpoint's handler follows: a reset tells it the connection was lost.
      ctx.fireExceptionCaught(cause);
      return;
    }
    if (TlsPipeline.tlsCause(cause) != null) {
      tlsFailure = cause;
    }
    log.debug("{} closing after an unhandled exception: {}", ctx.channel(), cause.toString());
    ctx.close();
  }
}
