package io.iwarp4j.mpa;

import io.iwarp4j.wire.RtrFrames;
import io.iwarp4j.wire.TerminateMessage;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayDeque;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An MPA connection in Full Operation, handed out by the handshake future of
 * {@link MpaInitiatorHandler} or {@link MpaResponderHandler}: the negotiated parameters, the
 * {@link FpduFramer} to send ULPDUs with, and the place to attach the upper layer's
 * {@link UlpduListener}.
 *
 * <p><b>Sending.</b> RFC 5044 §7.1.2 rule 4: a Responder MUST NOT send any FPDU before it has
 * received and validated one FPDU from the Initiator. {@link #sendEnabled()} says whether this
 * end may write to the {@link #framer()} yet, and {@link #sendEnabledFuture()} completes when it
 * may: at once for an Initiator and for a peer-to-peer Responder (the RTR was that FPDU), on the
 * first received ULPDU for a client-server Responder (at once, right after the Reply, when it
 * was accepted with the non-conformant {@link MpaSettings.Builder#responderSendsFirst(boolean)}).
 * The framer does not enforce this: the upper layer must.
 *
 * <p><b>Receiving.</b> ULPDUs that arrive before {@link #setListener} is called are copied and
 * kept (with any error or end-of-input report) and handed to the listener when it is set, so
 * attaching the listener from any thread, at any time after the handshake, loses nothing. Once a
 * listener is attached and sending is enabled the deframer calls the listener directly.
 *
 * <p>Everything but the accessors runs on the channel's event loop; calls from other threads hop
 * onto it.
 */
public final class MpaConnection {
  private static final Logger LOG = LoggerFactory.getLogger(MpaConnection.class);

  /**
   * MSN of the one Terminate MPA sends on QN 2: nothing follows a Terminate on its stream
   * (RFC 5040 §5.4), so it is the first and only message of the Terminate queue.
   */
  static final int TERMINATE_MSN = 1;

  private final Channel channel;
  private final ChannelHandlerContext ctx;
  private final MpaConnectionInfo info;
  private final FpduFramer framer;
  private final FpduDeframer deframer;
  private final Promise<Void> sendEnabledPromise;
  private final Dispatcher dispatcher = new Dispatcher();

  private UlpduListener listener;
  private boolean sendEnabled;
  private boolean direct;
  /** Written on the event loop, read by {@link #rtrAnswered()} from any thread. */
  private volatile boolean awaitingRtrReadResponse;
  private boolean terminateSent;
  private ArrayDeque<ByteBuf> backlog;
  private ChannelHandlerContext lastCtx;
  private MpaException pendingError;
  private boolean pendingInputClosed;

  /**
   * @param ctx the context the framer writes through (the deframer's)
   * @param sendEnabled whether this end may send at once
   */
  MpaConnection(ChannelHandlerContext ctx, MpaConnectionInfo info, FpduFramer framer,
      FpduDeframer deframer, boolean sendEnabled) {
    this.ctx = ctx;
    this.channel = ctx.channel();
    this.info = info;
    this.framer = framer;
    this.deframer = deframer;
    this.sendEnabledPromise = ctx.executor().newPromise();
    this.awaitingRtrReadResponse = info.initiator() && info.rtr() == RtrType.READ;
    if (sendEnabled) {
      enableSend();
    }
    channel.closeFuture().addListener(f -> releaseBacklog());
  }

  /**
   * What the startup negotiated.
   *
   * @return what the startup negotiated
   */
  public MpaConnectionInfo info() {
    return info;
  }

  /**
   * The TCP channel.
   *
   * @return the TCP channel
   */
  public Channel channel() {
    return channel;
  }

  /**
   * The framer to send ULPDUs with (event loop only; see the class comment for when a
   * Responder may start using it).
   *
   * @return the framer to send ULPDUs with (event loop only; see the class comment for when a
   *     Responder may start using it)
   */
  public FpduFramer framer() {
    return framer;
  }

  /**
   * Whether this end may send FPDUs (RFC 5044 §7.1.2 rule 4). Event loop only.
   *
   * @return whether this end may send FPDUs (RFC 5044 §7.1.2 rule 4)
   */
  public boolean sendEnabled() {
    return sendEnabled;
  }

  /**
   * Whether the peer has answered this end's Read RTR with the zero-length Read Response
   * (RFC 6581 §5); true when no answer is expected (client-server, a Write or Send RTR, or this
   * end is the Responder). The response is consumed here and never reaches the upper layer, so
   * this is the only place that knows. Callable from any thread.
   *
   * @return false while an Initiator's Read RTR is unanswered
   */
  public boolean rtrAnswered() {
    return !awaitingRtrReadResponse;
  }

  /**
   * Completes when this end may send FPDUs; never fails (the channel closing just leaves it).
   *
   * @return a future that completes when this end may send FPDUs
   */
  public Future<Void> sendEnabledFuture() {
    return sendEnabledPromise;
  }

  /**
   * Attaches (or replaces) the upper layer. ULPDUs, errors and the end of input that arrived
   * before are delivered to it first, in order. Callable from any thread.
   *
   * @param listener the listener
   */
  public void setListener(UlpduListener listener) {
    Objects.requireNonNull(listener, "listener");
    if (ctx.executor().inEventLoop()) {
      attach(listener);
    } else {
      ctx.executor().execute(() -> attach(listener));
    }
  }

  /**
   * Sends a Terminate for an MPA error (Layer 2, EType 0, {@code error}'s code, no headers,
   * QN 2 MSN 1), then closes the connection once it is written. When this end may not send yet
   * (a Responder that has received no FPDU), or has already sent a Terminate, it only closes.
   * Callable from any thread.
   *
   * @param error the error
   * @return the future of the close
   */
  public ChannelFuture terminate(MpaError error) {
    Objects.requireNonNull(error, "error");
    ChannelPromise promise = channel.newPromise();
    if (ctx.executor().inEventLoop()) {
      terminate0(error, promise);
    } else {
      ctx.executor().execute(() -> terminate0(error, promise));
    }
    return promise;
  }

  /**
   * Closes the TCP connection (a FIN at an FPDU boundary: nothing partial is pending).
   *
   * @return the channel's close future
   */
  public ChannelFuture close() {
    return channel.close();
  }

  /** The listener the deframer reports to until the connection can go direct. */
  UlpduListener dispatcher() {
    return dispatcher;
  }

  private void terminate0(MpaError error, ChannelPromise promise) {
    if (!sendEnabled || terminateSent || !channel.isActive()) {
      LOG.debug("{} closing without a Terminate for {} (sendEnabled={}, terminateSent={})",
          channel, error, sendEnabled, terminateSent);
      channel.close(promise);
      return;
    }
    terminateSent = true;
    writeTerminateAndClose(ctx, framer, error, promise);
  }

  /**
   * Writes a Terminate for {@code error} through {@code framer}, then closes the channel once
   * everything written before has left, draining the peer's input first ({@link TerminateClose}).
   */
  static void writeTerminateAndClose(ChannelHandlerContext ctx, FpduFramer framer,
      MpaError error, ChannelPromise closePromise) {
    LOG.debug("{} sending Terminate 2/0/0x{} ({}) and closing", ctx.channel(),
        Integer.toHexString(error.code()), error.description());
    ByteBuf term = ctx.alloc().buffer(TerminateMessage.MIN_LENGTH);
    TerminateMessage.writeLlpError(term, TERMINATE_MSN, error.code());
    framer.write(term, null);
    framer.flush();
    TerminateClose.closeAfterWrites(ctx.channel(), closePromise);
  }

  private void enableSend() {
    if (!sendEnabled) {
      sendEnabled = true;
      LOG.debug("{} may send FPDUs now", channel);
      sendEnabledPromise.trySuccess(null);
    }
  }

  private void attach(UlpduListener l) {
    this.listener = l;
    if (direct) {
      deframer.setListener(l);
      return;
    }
    if (backlog != null && !backlog.isEmpty()) {
      // The backlog is replayed as one read batch.
      l.beforeReadBatch(lastCtx);
    }
    if (backlog != null) {
      Ulpdu view = new Ulpdu(1);
      ByteBuf b;
      while (listener == l && (b = backlog.poll()) != null) {
        try {
          view.clear();
          view.addPiece(b, b.readerIndex(), b.readableBytes());
          l.onUlpdu(lastCtx, view);
        } finally {
          view.clear();
          b.release();
        }
      }
    }
    if (listener != l) {
      return;
    }
    if (pendingError != null) {
      MpaException e = pendingError;
      pendingError = null;
      l.onMpaError(lastCtx, e);
    } else if (pendingInputClosed) {
      pendingInputClosed = false;
      l.onInputClosed(lastCtx);
    }
    goDirectIfPossible();
  }

  private void goDirectIfPossible() {
    if (listener != null && sendEnabled && !awaitingRtrReadResponse
        && (backlog == null || backlog.isEmpty())) {
      direct = true;
      deframer.setListener(listener);
    }
  }

  private void releaseBacklog() {
    if (ctx.executor().inEventLoop()) {
      releaseBacklog0();
    } else {
      ctx.executor().execute(this::releaseBacklog0);
    }
  }

  private void releaseBacklog0() {
    if (backlog != null) {
      ByteBuf b;
      while ((b = backlog.poll()) != null) {
        b.release();
      }
    }
  }

  /** Gates sending, swallows the Read RTR's response, and keeps what arrives before a listener. */
  private final class Dispatcher implements UlpduListener {
    @Override
    public void onUlpdu(ChannelHandlerContext c, Ulpdu ulpdu) {
      lastCtx = c;
      if (awaitingRtrReadResponse && RtrFrames.isZeroLengthReadResponse(ulpdu)) {
        awaitingRtrReadResponse = false;
        LOG.debug("{} consumed the zero-length Read Response to the Read RTR", channel);
        goDirectIfPossible();
        return;
      }
      enableSend();
      if (listener == null) {
        if (backlog == null) {
          backlog = new ArrayDeque<>(4);
        }
        int len = ulpdu.length();
        ByteBuf copy = c.alloc().buffer(len);
        ulpdu.getBytes(0, copy, 0, len);
        copy.writerIndex(len);
        backlog.add(copy);
        LOG.debug("{} kept a {}-octet ULPDU until a listener is set", channel, len);
        return;
      }
      listener.onUlpdu(c, ulpdu);
      goDirectIfPossible();
    }

    @Override
    public void beforeReadBatch(ChannelHandlerContext c) {
      if (listener != null) {
        listener.beforeReadBatch(c);
      }
    }

    @Override
    public void onMpaError(ChannelHandlerContext c, MpaException error) {
      lastCtx = c;
      if (listener == null) {
        if (pendingError == null) {
          pendingError = error;
        }
        return;
      }
      listener.onMpaError(c, error);
    }

    @Override
    public void onInputClosed(ChannelHandlerContext c) {
      lastCtx = c;
      if (listener == null) {
        pendingInputClosed = true;
        return;
      }
      listener.onInputClosed(c);
    }
  }
}
