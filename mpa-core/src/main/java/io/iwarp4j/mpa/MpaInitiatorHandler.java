package io.iwarp4j.mpa;

import io.iwarp4j.wire.MpaStartupFrame;
import io.iwarp4j.wire.RtrFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Initiator (active) side of the MPA startup (RFC 5044 §7.1, RFC 6581). Add it to the
 * pipeline of a connecting or connected TCP channel, before or after it becomes active; then
 * wait on {@link #handshakeFuture()}.
 *
 * <p>It sets TCP_NODELAY, sends the Request built from its {@link MpaSettings} (R=0, Res=0,
 * PD_Length = 4 octets of enhanced data when Rev 2 with S, plus the ULP private data; at most 512
 * octets, and Linux siw/iw_cm refuse more than 256), and waits for the Reply for
 * {@link MpaSettings#replyTimeout()}. Then:
 * <ul>
 *   <li>improperly formatted Reply (key, revision 0 or above 2, PD_Length above 512 or cut
 *       short, missing enhanced data, enhanced-ness not matching the Request), or a Request
 *       where a Reply was expected (initiator/initiator collision, §7.1.2 rule 8): the channel is
 *       closed and the future fails with {@link MpaError#INVALID_STARTUP_FRAME}; no Terminate
 *       (none can be framed);</li>
 *   <li>R=1: the future fails with {@link MpaRejectedException}; MPA exits, the handler leaves
 *       the pipeline and the TCP connection stays open to the caller (§7.1.2 rule 3); octets
 *       that followed the Reply go to the next handler;</li>
 *   <li>the Responder's ORD above what this end's IRD can supply: Terminate 2/0/0x06, close,
 *       {@link MpaError#INSUFFICIENT_IRD} (RFC 6581 §9.1);</li>
 *   <li>peer-to-peer (A=1) with no usable RTR option, or a Reply whose A differs from the
 *       Request's: Terminate 2/0/0x07, close, {@link MpaError#NO_MATCHING_RTR} (§9.2);</li>
 *   <li>a local failure while entering Full Operation: Terminate 2/0/0x05 when it can still be
 *       sent, close, {@link MpaError#LOCAL_CATASTROPHIC} (§9.3);</li>
 *   <li>otherwise it installs the {@link FpduDeframer} in its place, sends the chosen RTR as the
 *       first FPDU when A=1 (before reporting the connection established, RFC 6581 §5), completes
 *       the future with the {@link MpaConnection}, and passes octets that followed the Reply in
 *       the same read to the deframer.</li>
 * </ul>
 * No reply within the timeout, or the connection closing, fails the future with
 * {@link MpaError#TCP_CONNECTION_LOST} (a timeout carries a {@link
 * java.util.concurrent.TimeoutException} cause) and closes the channel.
 *
 * <p>Interop note (docs/interop.md, siw finding §7.1): Linux siw as Responder may not see an
 * FPDU that arrives right after its Reply until more data comes; an RTR sent at once can stall
 * against it.
 * {@link MpaSettings#firstFpduDelay()} holds the first FPDU (and the handshake's completion, so
 * the ULP cannot send either) back for a quiet period after the Reply (50 ms by default in the
 * peer-to-peer model). In the peer-to-peer model with a non-zero quiet period an
 * {@link RtrCloseGuard} also holds any close back until the RTR has been written and one more
 * quiet period has passed: a close during the quiet period still sends the RTR first and fails
 * the handshake with {@link MpaError#TCP_CONNECTION_LOST}.
 */
public final class MpaInitiatorHandler extends MpaStartupHandler {
  private static final Logger LOG = LoggerFactory.getLogger(MpaInitiatorHandler.class);

  private MpaPeerParameters request;
  private boolean awaitingReply;

  /**
   * An Initiator that asks for what {@code settings} say.
   *
   * @param settings the MPA settings
   */
  public MpaInitiatorHandler(MpaSettings settings) {
    this(settings, LOG);
  }

  /** With the logger to warn and report to (tests record what it says). */
  MpaInitiatorHandler(MpaSettings settings, Logger log) {
    super(settings, log);
  }

  @Override
  void onStart() {
    request = MpaNegotiation.request(settings);
    warnBeyondLinuxLimit("MPA Request", request);
    ByteBuf out = ctx.alloc().buffer(MpaStartupFrame.HEADER_LENGTH
        + settings.startupPrivateDataLength());
    StartupFrames.encode(out, MpaStartupFrame.Kind.REQUEST, request);
    LOG.debug("{} sending MPA Request {}", ctx.channel(), request);
    ctx.writeAndFlush(out);
    awaitingReply = true;
    beginFrame();
    scheduleTimeout(settings.replyTimeout(), "no MPA Reply");
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf in = (ByteBuf) msg;
    try {
      if (!awaitingReply) {
        // Failed and closing: nothing more is interpreted.
        return;
      }
      int r = collect(in, MpaStartupFrame.Kind.REPLY);
      if (r == FRAME_BAD) {
        awaitingReply = false;
        failAndClose(new MpaException(MpaError.INVALID_STARTUP_FRAME, badFrameReason));
      } else if (r == FRAME_COMPLETE) {
        awaitingReply = false;
        onReply(in);
      }
    } finally {
      in.release();
    }
  }

  private void onReply(ByteBuf rest) {
    MpaPeerParameters reply = StartupFrames.decode(frame);
    LOG.debug("{} received MPA Reply {}", ctx.channel(), reply);
    MpaNegotiation.ReplyOutcome outcome = MpaNegotiation.evaluateReply(request, reply, settings,
        EffectiveMss.of(ctx.channel(), settings));
    switch (outcome.kind()) {
      case REJECTED:
        fail(new MpaRejectedException(reply));
        if (rest.isReadable()) {
          ctx.fireChannelRead(rest.retain());
        }
        removeSelf();
        break;
      case MALFORMED:
        failAndClose(new MpaException(outcome.error(), outcome.reason()));
        break;
      case TERMINATE:
        terminate(outcome.info(), outcome.error(), outcome.reason(), null);
        break;
      case ESTABLISHED:
      default:
        enterFullOperation(outcome.info(), rest);
        break;
    }
  }

  private void enterFullOperation(MpaConnectionInfo info, ByteBuf rest) {
    cancelTimeout(); // the Reply came; the quiet period below is bounded by itself
    FpduFramer framer = null;
    try {
      FpduDeframer deframer = new FpduDeframer(info.crc(), info.markersIn(), IGNORE);
      ChannelHandlerContext dctx = installDeframer(deframer);
      framer = new FpduFramer(dctx, info.crc(), info.markersOut(), info.maxUlpduLength());
      MpaConnection connection = new MpaConnection(dctx, info, framer, deframer, true);
      deframer.setListener(connection.dispatcher());
      Duration quiet = settings.firstFpduDelay();
      if (quiet.isZero()) {
        sendRtr(info, framer, dctx, null);
        succeed(connection);
      } else {
        // siw's accept race (docs/interop.md): hold the first FPDU back until the Responder
        // has had time to install its receive handler. Nothing may arrive before it anyway.
        LOG.debug("{} holding the first FPDU back for {}", ctx.channel(), quiet);
        RtrCloseGuard guard = null;
        if (info.rtr() != null) {
          // issue 22 bug 2: a close before siw has taken its RTR crashed Linux.
          guard = new RtrCloseGuard(quiet);
          ctx.pipeline().addFirst(RtrCloseGuard.NAME, guard);
        }
        RtrCloseGuard g = guard;
        FpduFramer f = framer;
        ctx.executor().schedule(() -> endQuietPeriod(info, f, dctx, connection, g),
            quiet.toNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (RuntimeException e) {
      terminate(info, MpaError.LOCAL_CATASTROPHIC,
          "local failure entering Full Operation: " + e, framer);
      return;
    }
    if (rest.isReadable()) {
      ctx.fireChannelRead(rest.retain());
    }
    removeSelf();
  }

  /**
   * The first quiet period is over: the RTR goes out even when a close is being held back (the
   * Responder waits for it; the guard closes a quiet period later), then the handshake completes,
   * or fails when a close was asked for or it already failed meanwhile.
   */
  private void endQuietPeriod(MpaConnectionInfo info, FpduFramer framer,
      ChannelHandlerContext dctx, MpaConnection connection, RtrCloseGuard guard) {
    if (!ctx.channel().isActive()) {
      fail(new MpaException(MpaError.TCP_CONNECTION_LOST,
          "the connection closed during the first-FPDU quiet period"));
      return;
    }
    boolean closing = isDone() || (guard != null && guard.closeHeld());
    try {
      sendRtr(info, framer, dctx, guard);
    } catch (RuntimeException e) {
      terminate(info, MpaError.LOCAL_CATASTROPHIC,
          "local failure entering Full Operation: " + e, framer);
      return;
    }
    if (closing) {
      fail(new MpaException(MpaError.TCP_CONNECTION_LOST,
          "the connection was closed during the first-FPDU quiet period"));
    } else {
      succeed(connection);
    }
  }

  /**
   * RFC 6581 §5: the RTR is the first FPDU, before the ULP can send anything. Tells
   * {@code guard}, if any, when it has left.
   */
  private void sendRtr(MpaConnectionInfo info, FpduFramer framer, ChannelHandlerContext dctx,
      RtrCloseGuard guard) {
    if (info.rtr() == null) {
      return;
    }
    ByteBuf rtr = ctx.alloc().buffer(RtrFrames.length(RtrWire.of(info.rtr())));
    RtrFrames.write(rtr, RtrWire.of(info.rtr()));
    LOG.debug("{} sending the {} RTR", ctx.channel(), info.rtr());
    framer.write(rtr, null);
    framer.flush();
    if (guard != null) {
      // An empty write completes once everything written before it (the RTR) has left.
      dctx.writeAndFlush(Unpooled.EMPTY_BUFFER)
          .addListener(w -> guard.rtrWritten(w.isSuccess()));
    }
  }

  /** Sends a Terminate for {@code error} (when it can be framed), closes, fails the future. */
  private void terminate(MpaConnectionInfo info, MpaError error, String reason,
      FpduFramer framer) {
    fail(new MpaException(error, reason));
    try {
      FpduFramer f = framer != null ? framer
          : new FpduFramer(ctx, info.crc(), info.markersOut(), info.maxUlpduLength());
      MpaConnection.writeTerminateAndClose(ctx, f, error, ctx.newPromise());
    } catch (RuntimeException e) {
      LOG.debug("{} could not send the Terminate for {}: {}", ctx.channel(), error, e.toString());
      ctx.channel().close();
    }
  }

  /** Placeholder listener for the moment between creating the deframer and the connection. */
  static final UlpduListener IGNORE = new UlpduListener() {
    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
    }
  };
}
