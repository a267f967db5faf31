package io.iwarp4j.mpa;

import io.iwarp4j.wire.MpaStartupFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;

/**
 * What both startup roles share: the handshake future, start on channel activation whether the
 * handler is added before or after it, TCP_NODELAY, collecting one startup frame from any TCP
 * chunking, the startup timer, failing on a closed connection, and installing the
 * {@link FpduDeframer} in the handler's place.
 *
 * <p>Not sharable: one instance per connection, all state on the channel's event loop.
 */
abstract class MpaStartupHandler extends ChannelInboundHandlerAdapter {
  /** Name of the deframer a successful startup installs in the handler's place. */
  static final String DEFRAMER_NAME = "mpa-deframer";

  /** {@link #collect} outcomes. */
  static final int FRAME_INCOMPLETE = 0;
  static final int FRAME_COMPLETE = 1;
  static final int FRAME_BAD = 2;

  final MpaSettings settings;
  final MpaStartupFrame frame = new MpaStartupFrame();
  private final HandshakePromise promise = new HandshakePromise();
  private final Logger log;

  ChannelHandlerContext ctx;
  /** Why the last {@link #collect} returned FRAME_BAD. */
  String badFrameReason;

  private boolean started;
  private ScheduledFuture<?> timer;
  private final byte[] frameBytes = new byte[MpaStartupFrame.MAX_FRAME_LENGTH];
  private final ByteBuf frameBuf = Unpooled.wrappedBuffer(frameBytes);
  private int received;
  private int needed = MpaStartupFrame.HEADER_LENGTH;
  private boolean headerChecked;
  private boolean collecting;

  MpaStartupHandler(MpaSettings settings, Logger log) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.log = log;
    frame.wrap(frameBuf, 0);
  }

  /**
   * Completes with the connection in Full Operation, or fails with an {@link MpaException}
   * (the channel is then closed) or an {@link MpaRejectedException} (the channel is left open
   * to the caller). Listeners run on the channel's event loop.
   *
   * @return the handshake future
   */
  public Future<MpaConnection> handshakeFuture() {
    return promise;
  }

  /**
   * Warns when the startup frame this end sends carries more private data than Linux siw
   * accepts ({@link LinuxPrivateDataLimit}); RFC 5044 allows it, so nothing else happens.
   */
  void warnBeyondLinuxLimit(String frame, MpaPeerParameters sent) {
    String warning = LinuxPrivateDataLimit.warning(frame, sent.privateDataLength(),
        sent.enhanced());
    if (warning != null) {
      log.warn("{} {}", ctx.channel(), warning);
    }
  }

  /** Called once, on the event loop, when the channel is active and the handler added. */
  abstract void onStart();

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    TerminateClose.setLinger(ctx.channel(), settings.terminateLinger());
    ctx.channel().closeFuture().addListener(f -> onChannelClosed());
    if (ctx.channel().isActive()) {
      start();
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    start();
    ctx.fireChannelActive();
  }

  private void start() {
    if (started) {
      return;
    }
    started = true;
    if (ctx.channel() instanceof SocketChannel) {
      // Small startup frames and FPDUs must not wait for Nagle (siw sets TCP_NODELAY too).
      ((SocketChannel) ctx.channel()).config().setTcpNoDelay(true);
    }
    onStart();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (promise.isDone()) {
      ctx.fireExceptionCaught(cause);
      return;
    }
    failAndClose(new MpaException(MpaError.TCP_CONNECTION_LOST,
        "connection failed during the MPA startup: " + cause, cause));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent && !promise.isDone()) {
      failAndClose(closedDuringStartup("the peer closed its half of the connection"));
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  private void onChannelClosed() {
    cancelTimeout();
    if (!promise.isDone()) {
      fail(closedDuringStartup("the connection closed"));
    }
  }

  /** 0x04 when a frame was cut short of its PD_Length, 0x01 otherwise (mpa.md §3.1). */
  private MpaException closedDuringStartup(String what) {
    if (collecting && headerChecked && received < needed) {
      return new MpaException(MpaError.INVALID_STARTUP_FRAME, "PD_Length "
          + (needed - MpaStartupFrame.HEADER_LENGTH) + " but " + what + " after "
          + (received - MpaStartupFrame.HEADER_LENGTH) + " octets of Private Data");
    }
    return new MpaException(MpaError.TCP_CONNECTION_LOST, what + " during the MPA startup"
        + (collecting && received > 0 ? " (" + received + " octets of the frame received"
            + MpaStartupFrame.tlsRecordHint(frameBuf, 0, received) + ")" : ""));
  }

  /** Starts collecting one startup frame; the frame flyweight is valid once it is complete. */
  void beginFrame() {
    collecting = true;
    received = 0;
    needed = MpaStartupFrame.HEADER_LENGTH;
    headerChecked = false;
  }

  /**
   * Copies octets of the frame being collected from {@code in}, leaving anything after the
   * frame readable in {@code in}. The header is checked as soon as its 20 octets are here.
   */
  int collect(ByteBuf in, MpaStartupFrame.Kind expected) {
    while (in.isReadable() && received < needed) {
      int n = Math.min(in.readableBytes(), needed - received);
      in.readBytes(frameBytes, received, n);
      received += n;
      if (!headerChecked && received == MpaStartupFrame.HEADER_LENGTH) {
        String reason = frame.checkHeader(expected);
        if (reason != null) {
          badFrameReason = reason;
          collecting = false;
          return FRAME_BAD;
        }
        headerChecked = true;
        needed = frame.frameLength();
      }
    }
    if (headerChecked && received == needed) {
      collecting = false;
      return FRAME_COMPLETE;
    }
    return FRAME_INCOMPLETE;
  }

  /** Fails the handshake with {@code e}, and closes the channel. */
  void failAndClose(MpaException e) {
    fail(e);
    ctx.channel().close();
  }

  /** Fails the handshake (the channel's fate is the caller's). */
  void fail(Exception e) {
    cancelTimeout();
    if (promise.tryFailure(e)) {
      log.debug("{} MPA startup failed: {}", ctx.channel(), e.getMessage());
    }
  }

  /** Completes the handshake. */
  void succeed(MpaConnection connection) {
    cancelTimeout();
    if (promise.trySuccess(connection)) {
      log.debug("{} MPA startup complete: {}", ctx.channel(), connection.info());
    }
  }

  boolean isDone() {
    return promise.isDone();
  }

  /** (Re)arms the startup timer: when it fires the handshake fails with 0x01 and TCP closes. */
  void scheduleTimeout(Duration timeout, String what) {
    cancelTimeout();
    timer = ctx.executor().schedule(() -> {
      timer = null;
      if (!promise.isDone()) {
        failAndClose(new MpaException(MpaError.TCP_CONNECTION_LOST,
            what + " within " + timeout + "; connection closed",
            new TimeoutException(what + " within " + timeout)));
      }
    }, timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  void cancelTimeout() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /**
   * Adds the deframer right after this handler (so that writes through its context pass every
   * handler below) and returns its context.
   */
  ChannelHandlerContext installDeframer(FpduDeframer deframer) {
    ChannelPipeline p = ctx.pipeline();
    p.addAfter(ctx.name(), DEFRAMER_NAME, deframer);
    return p.context(deframer);
  }

  /** Leaves the pipeline (the deframer, or the ULP after a reject, takes over). */
  void removeSelf() {
    if (!ctx.isRemoved()) {
      ctx.pipeline().remove(this);
    }
  }

  /**
   * The handshake promise. Its executor is the channel's, known only once the handler is added;
   * nothing completes it before that.
   */
  private final class HandshakePromise extends DefaultPromise<MpaConnection> {
    @Override
    protected EventExecutor executor() {
      if (ctx == null) {
        throw new IllegalStateException("the MPA handler is not in a pipeline yet");
      }
      return ctx.executor();
    }

    @Override
    protected void checkDeadLock() {
      if (ctx != null) {
        super.checkDeadLock();
      }
    }
  }
}
