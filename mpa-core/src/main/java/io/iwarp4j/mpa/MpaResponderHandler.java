package io.iwarp4j.mpa;

import io.iwarp4j.wire.MpaStartupFrame;
import io.iwarp4j.wire.ReadRequestHeader;
import io.iwarp4j.wire.RtrFrames;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Responder (passive) side of the MPA startup (RFC 5044 §7.1, RFC 6581). Add it to the
 * pipeline of an accepted TCP channel, before or after it becomes active; then wait on
 * {@link #handshakeFuture()}.
 *
 * <p>It sets TCP_NODELAY and waits for the Request for {@link MpaSettings#requestTimeout()}
 * (slowloris protection, §7.1.2 rule 8; the same deadline covers the ULP's decision). A Request
 * that is improperly formatted (key, revision 0 or above 2, PD_Length above 512 or not matching
 * the octets received, S=1 with less than 4 octets of Private Data), or followed by any octet
 * before the Reply is sent (a premature FPDU; siw treats it alike), closes the channel and fails
 * the future with {@link MpaError#INVALID_STARTUP_FRAME}, reported locally only.
 *
 * <p>A good Request is offered to the ULP as an {@link MpaConnectRequest} user event fired
 * towards the tail of the pipeline (or accepted at once with the settings' values when
 * auto-accepting). The Reply echoes the Request's revision (so Rev 1 Requests are accepted and
 * answered with Rev 1), answers an enhanced Request enhanced and an unenhanced one unenhanced,
 * sets C when either side wants CRC, M as the settings say, and negotiates A, the RTR flags and
 * IRD/ORD as {@link MpaNegotiation#reply} describes. Res is always 0.
 * <ul>
 *   <li>reject: the Reply has R=1; MPA exits, the handler leaves the pipeline, the TCP
 *       connection stays open to the ULP, and the future fails with an
 *       {@link MpaRejectedException} whose {@code rejectedLocally()} is true;</li>
 *   <li>accept, client-server: the deframer replaces the handler and the future completes with
 *       the {@link MpaConnection}; sending is enabled once the first FPDU from the Initiator has
 *       arrived (rule 4), or, with the non-conformant opt-in
 *       {@link MpaSettings.Builder#responderSendsFirst(boolean)}, as soon as the Reply is
 *       written;</li>
 *   <li>accept, peer-to-peer (A=1): the deframer replaces the handler and the future completes
 *       only when the Initiator's first FPDU has arrived and is exactly one of the RTRs the
 *       Reply allowed. MPA consumes it and answers a Read RTR with a zero-length Read Response.
 *       Any other first FPDU gets a Terminate 2/0/0x07 and a close
 *       ({@link MpaError#NO_MATCHING_RTR}). The request timeout is re-armed for this wait.</li>
 * </ul>
 */
public final class MpaResponderHandler extends MpaStartupHandler {
  private static final Logger LOG = LoggerFactory.getLogger(MpaResponderHandler.class);

  private enum State { IDLE, AWAIT_REQUEST, AWAIT_ULP, AWAIT_RTR, DONE }

  private final boolean autoAccept;
  private State state = State.IDLE;
  private MpaPeerParameters request;
  private MpaPeerParameters reply;
  private int acceptIrd;
  private int acceptOrd;
  private FpduDeframer deframer;
  private FpduFramer framer;
  private ChannelHandlerContext deframerCtx;

  /**
   * A Responder that asks the ULP through an {@link MpaConnectRequest} user event.
   *
   * @param settings the MPA settings
   */
  public MpaResponderHandler(MpaSettings settings) {
    this(settings, false);
  }

  /**
   * @param settings the MPA settings
   * @param autoAccept true to accept every well-formed Request with the settings' IRD, ORD and
   *     private data without firing an {@link MpaConnectRequest}
   */
  public MpaResponderHandler(MpaSettings settings, boolean autoAccept) {
    this(settings, autoAccept, LOG);
  }

  /** With the logger to warn and report to (tests record what it says). */
  MpaResponderHandler(MpaSettings settings, boolean autoAccept, Logger log) {
    super(settings, log);
    this.autoAccept = autoAccept;
  }

  @Override
  void onStart() {
    state = State.AWAIT_REQUEST;
    beginFrame();
    scheduleTimeout(settings.requestTimeout(), "no MPA Request (or no ULP decision)");
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf in = (ByteBuf) msg;
    try {
      switch (state) {
        case AWAIT_REQUEST:
          int r = collect(in, MpaStartupFrame.Kind.REQUEST);
          if (r == FRAME_BAD) {
            malformed(badFrameReason);
          } else if (r == FRAME_COMPLETE) {
            onRequest(in);
          }
          break;
        case AWAIT_ULP:
          malformed(in.readableBytes() + " octets arrived after the MPA Request, before the"
              + " Reply was sent (more data than PD_Length " + request.privateDataLength()
              + (request.enhanced() ? " incl. 4 octets of enhanced data" : "") + ")");
          break;
        default:
          // IDLE cannot receive; DONE means failed and closing: nothing is interpreted.
          break;
      }
    } finally {
      in.release();
    }
  }

  private void malformed(String reason) {
    state = State.DONE;
    failAndClose(new MpaException(MpaError.INVALID_STARTUP_FRAME, reason));
  }

  private void onRequest(ByteBuf rest) {
    request = StartupFrames.decode(frame);
    LOG.debug("{} received MPA Request {}", ctx.channel(), request);
    if (rest.isReadable()) {
      malformed(rest.readableBytes() + " octets followed the MPA Request before the Reply was"
          + " sent (more data than PD_Length " + request.privateDataLength() + ")");
      return;
    }
    state = State.AWAIT_ULP;
    MpaConnectRequest connectRequest =
        new MpaConnectRequest(this::decide, request, ctx.channel().remoteAddress(), settings);
    if (autoAccept) {
      connectRequest.accept();
    } else {
      ctx.fireUserEventTriggered(connectRequest);
    }
  }

  /** {@link MpaConnectRequest}'s decision; hops onto the event loop. */
  private void decide(int ird, int ord, byte[] privateData, boolean reject, boolean sendFirst) {
    if (ctx.executor().inEventLoop()) {
      sendReply(ird, ord, privateData, reject, sendFirst);
    } else {
      ctx.executor().execute(() -> sendReply(ird, ord, privateData, reject, sendFirst));
    }
  }

  private void sendReply(int ird, int ord, byte[] privateData, boolean reject,
      boolean sendFirst) {
    if (state != State.AWAIT_ULP) {
      LOG.debug("{} ULP decision ignored: the startup is over ({})", ctx.channel(), state);
      return;
    }
    acceptIrd = ird;
    acceptOrd = ord;
    reply = MpaNegotiation.reply(request, settings, ird, ord, privateData, reject);
    ByteBuf out = ctx.alloc().buffer(MpaStartupFrame.HEADER_LENGTH
        + MpaSettings.MAX_PRIVATE_DATA);
    StartupFrames.encode(out, MpaStartupFrame.Kind.REPLY, reply);
    LOG.debug("{} sending MPA Reply {}", ctx.channel(), reply);
    if (!reject) {
      warnBeyondLinuxLimit("MPA Reply", reply);
    }
    if (reject) {
      state = State.DONE;
      ctx.writeAndFlush(out);
      fail(new MpaRejectedException(request, true));
      removeSelf();
      return;
    }
    boolean crc = request.crc() || reply.crc();
    int mulpdu = MpaNegotiation.maxUlpduLength(EffectiveMss.of(ctx.channel(), settings),
        request.markers(), settings.maxUlpduLength());
    try {
      deframer = new FpduDeframer(crc, reply.markers(), new RtrGate());
      deframerCtx = installDeframer(deframer);
      framer = new FpduFramer(deframerCtx, crc, request.markers(), mulpdu);
    } catch (RuntimeException e) {
      // Nothing may be sent before the Initiator's first FPDU (rule 4): no Terminate.
      out.release();
      state = State.DONE;
      failAndClose(new MpaException(MpaError.LOCAL_CATASTROPHIC,
          "local failure entering Full Operation: " + e, e));
      return;
    }
    // The Reply is a startup frame, not an FPDU: it bypasses the framer.
    ctx.writeAndFlush(out);
    if (reply.peerToPeer()) {
      state = State.AWAIT_RTR;
      scheduleTimeout(settings.requestTimeout(), "no RTR from the Initiator");
      removeSelf();
      return;
    }
    state = State.DONE;
    // The Reply was written above on this event loop, so any FPDU queued from here on follows it.
    // sendFirst departs from rule 4 on purpose (MpaSettings.Builder#responderSendsFirst).
    if (sendFirst) {
      LOG.debug("{} may send before the Initiator's first FPDU (responderSendsFirst: not RFC 5044"
          + " §7.1.2 rule 4 conformant)", ctx.channel());
    }
    MpaConnection connection = new MpaConnection(deframerCtx, info(null), framer, deframer,
        sendFirst);
    deframer.setListener(connection.dispatcher());
    succeed(connection);
    removeSelf();
  }

  private MpaConnectionInfo info(RtrType rtr) {
    return MpaNegotiation.responderInfo(request, reply, acceptIrd, acceptOrd, rtr,
        EffectiveMss.of(ctx.channel(), settings), settings.maxUlpduLength());
  }

  /** Waits for the Initiator's first FPDU in the peer-to-peer model and checks it is an RTR. */
  private final class RtrGate implements UlpduListener {
    @Override
    public void onUlpdu(ChannelHandlerContext c, Ulpdu ulpdu) {
      if (state != State.AWAIT_RTR) {
        return;
      }
      state = State.DONE;
      RtrType rtr = RtrWire.of(RtrFrames.match(ulpdu));
      if (rtr == null || !reply.rtrTypes().contains(rtr)) {
        String reason = "the Initiator's first FPDU (" + ulpdu.length() + " octets, "
            + (rtr == null ? "not an RTR" : "a " + rtr + " RTR") + ") is none of the RTR options "
            + reply.rtrTypes() + " of the Reply";
        fail(new MpaException(MpaError.NO_MATCHING_RTR, reason));
        // The FPDU arrived intact, so this end may send (rule 4): say why it closes.
        sendTerminate(MpaError.NO_MATCHING_RTR);
        return;
      }
      LOG.debug("{} received the {} RTR", c.channel(), rtr);
      try {
        if (rtr == RtrType.READ) {
          ByteBuf resp = c.alloc().buffer(RtrFrames.READ_RESPONSE_LENGTH);
          RtrFrames.writeReadResponse(resp, ReadRequestHeader.sinkStag(ulpdu),
              ReadRequestHeader.sinkTo(ulpdu));
          framer.write(resp, null);
          framer.flush();
        }
        MpaConnection connection = new MpaConnection(deframerCtx, info(rtr), framer, deframer,
            true);
        deframer.setListener(connection.dispatcher());
        succeed(connection);
      } catch (RuntimeException e) {
        fail(new MpaException(MpaError.LOCAL_CATASTROPHIC,
            "local failure after the RTR: " + e, e));
        sendTerminate(MpaError.LOCAL_CATASTROPHIC);
      }
    }

    private void sendTerminate(MpaError error) {
      try {
        MpaConnection.writeTerminateAndClose(deframerCtx, framer, error, deframerCtx.newPromise());
      } catch (RuntimeException e) {
        LOG.debug("{} could not send the Terminate for {}: {}", ctx.channel(), error,
            e.toString());
        ctx.channel().close();
      }
    }

    @Override
    public void onMpaError(ChannelHandlerContext c, MpaException error) {
      if (state == State.AWAIT_RTR) {
        state = State.DONE;
        failAndClose(error);
      }
    }

    @Override
    public void onInputClosed(ChannelHandlerContext c) {
      if (state == State.AWAIT_RTR) {
        state = State.DONE;
        failAndClose(new MpaException(MpaError.TCP_CONNECTION_LOST,
            "the peer closed the connection before sending its RTR"));
      }
    }
  }
}
