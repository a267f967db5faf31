package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.mpa.MpaError;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.wire.TerminateMessage;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.ChannelOutputShutdownException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of an {@link RdmapEndpoint}'s stream and its teardown (as siw's QP state machine):
 * open, closing once {@code close()} was called, ended once the one end event was reported. It
 * runs the graceful close (what was handed to the transport leaves, then a FIN), takes the ends
 * the peer and the transport cause (a FIN, a Terminate, an MPA error, a reset, the channel's
 * close) and tells the owner exactly one of {@code onTerminateSent}/{@code onTerminateWithheld}
 * (through {@link TerminateSender}), {@code onTerminateReceived} or {@code onDisconnected}. It is
 * the listener of the endpoint's pipeline handler ({@link TransportEvents}).
 *
 * <p>Confined to the event loop.
 */
final class RdmapTeardown implements TransportEvents.Listener {
  /**
   * After a failed write has shut the output down, how long the input may still be read before
   * the channel is closed anyway (the read that meets the peer's reset normally closes it at
   * once).
   */
  static final long WRITE_FAILURE_CLOSE_MILLIS = 1000;

  // The endpoint's logger: its lines are the endpoint's.
  private static final Logger log = LoggerFactory.getLogger(RdmapEndpoint.class);

  private static final int OPEN = 0;
  private static final int CLOSING = 1;
  private static final int ENDED = 2;

  private final RdmapEndpoint ep;
  private final DdpStream stream;
  private final Channel channel;
  private final RdmapEndpointListener listener;
  private final LocalOperations operations;
  private final OutstandingReads reads;
  private final TransmitOrder tx;

  private int state = OPEN;
  /** Why the stream ended, for exception messages; null while not ended. */
  private String endReason;
  private boolean closeStarted;
  private boolean inputClosedCleanly;
  private boolean connectionLost;
  private boolean inactiveAtStart;

  /**
   * @param ep the endpoint, for the parts built after this one (Terminate, inbound requests)
   */
  RdmapTeardown(RdmapEndpoint ep, DdpStream stream, RdmapEndpointListener listener,
      LocalOperations operations, OutstandingReads reads, TransmitOrder tx) {
    this.ep = ep;
    this.stream = stream;
    this.channel = stream.channel();
    this.listener = listener;
    this.operations = operations;
    this.reads = reads;
    this.tx = tx;
  }

  /** Whether the stream is open: received messages are processed and operations may be issued. */
  boolean isOpen() {
    return state == OPEN;
  }

  /** Whether the stream ended (Terminate sent or received, or disconnected). */
  boolean isEnded() {
    return state == ENDED;
  }

  /**
   * Throws unless the stream is open.
   *
   * @param what the refused call, for the message
   * @throws IllegalStateException naming the state: closing, or ended and why
   */
  void checkOpen(String what) {
    if (state == OPEN) {
      return;
    }
    throw new IllegalStateException(what + " on an RDMAP stream that is "
        + (state == CLOSING ? "closing (close() was called)" : "ended: " + endReason));
  }

  /** The state, for {@code toString}. */
  String describe() {
    return state == OPEN ? "open" : state == CLOSING ? "closing" : "ended: " + endReason;
  }

  /** See {@link RdmapEndpoint#close()}. */
  void close() {
    if (state != OPEN) {
      return;
    }
    state = CLOSING;
    stream.markErroneous();
    log.debug("{} RDMAP close requested", channel);
    closeAfterPendingWrites();
  }

  /** See {@link RdmapEndpoint#abort}. */
  void abort(int errorType, int errorCode) {
    if (state == ENDED) {
      checkOpen("abort");
    }
    if ((errorType & ~0xF) != 0 || (errorCode & ~0xFF) != 0) {
      throw new IllegalArgumentException("EType " + errorType + " / code " + errorCode
          + " must fit 4 and 8 bits");
    }
    ep.terminator.terminate(RdmapError.LAYER, errorType, errorCode, null);
  }

  /** MPA reported an error on the receive stream. */
  void mpaError(MpaException error) {
    if (state == ENDED) {
      return;
    }
    if (state == CLOSING) {
      return; // input no longer matters: this end is closing anyway
    }
    MpaError e = error.error();
    if (e == MpaError.TCP_CONNECTION_LOST || !channel.isActive()) {
      // Nothing can be sent on a lost connection: it is a disconnect, reported on close.
      connectionLost = true;
      channel.close();
      return;
    }
    ep.terminator.terminate(TerminateMessage.LAYER_LLP, TerminateMessage.ERROR_TYPE_MPA,
        e.code(), null);
  }

  /**
   * The peer closed its sending half at an FPDU boundary: close ours the same way. A graceful
   * termination lets every in-progress operation complete successfully (RFC 5040 §2.4, §6.2);
   * with Reads or Atomics still waiting for their responses it cannot be one. It is then an LLP
   * close DDP did not expect, MPA error 0x01 "TCP connection closed" (RFC 5044 §7.2, §8), and an
   * LLP Abortive Termination (RFC 5040 §6.2): an ungraceful disconnect, whose outstanding
   * operations complete in error (§6.2.1). What was handed to the transport still leaves before
   * our FIN, as in a graceful close: no FPDU is cut.
   */
  void inputClosed() {
    if (state == OPEN && reads.size() > 0) {
      log.debug("{} the peer closed the connection with {} Read(s)/Atomic(s) outstanding: an"
          + " LLP error (MPA 0x01), not a graceful close", channel, reads.size());
      connectionLost = true;
      closeAfterPendingWrites();
      return;
    }
    inputClosedCleanly = true;
    if (state == OPEN) {
      log.debug("{} the peer closed the connection; closing ours", channel);
      closeAfterPendingWrites();
    }
  }

  /** The peer sent a Terminate: decoded fields, already validated as far as they go. */
  void terminateReceived(int layer, int errorType, int errorCode) {
    if (state == ENDED) {
      return;
    }
    end("Terminate received (" + layer + "/" + errorType + "/0x" + Integer.toHexString(errorCode)
        + ")");
    closeAfterPendingWrites();
    listener.onTerminateReceived(layer, errorType, errorCode);
  }

  /** Enters the ended state: nothing more is processed or completed. */
  void end(String reason) {
    state = ENDED;
    endReason = reason;
    stream.markErroneous();
    operations.clear();
    reads.clear();
    ep.inbound.clear();
    if (log.isDebugEnabled()) {
      log.debug("{} RDMAP stream ended: {}", channel, reason);
    }
  }

  /**
   * The channel was closed before the endpoint's handler was there to hear it: report it from
   * the deferred work ({@link #noticeMissedClose}).
   */
  void closedBeforeStart() {
    inactiveAtStart = true;
    tx.schedule();
  }

  /** Run by the deferred work: reports a close the handler missed. */
  void noticeMissedClose() {
    if (inactiveAtStart) {
      inactiveAtStart = false;
      onChannelInactive();
    }
  }

  /** Flushes what was sent, then closes the connection once all of it has left (a FIN). */
  private void closeAfterPendingWrites() {
    if (closeStarted) {
      return;
    }
    closeStarted = true;
    tx.flush();
    if (channel.isActive()) {
      // An empty write completes only after everything written before it has left.
      channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    } else {
      channel.close();
    }
  }

  @Override
  public void onTransportException(Throwable cause) {
    if (state == ENDED) {
      return;
    }
    if (cause instanceof IOException) {
      if (connectionLost) {
        return; // every write queued behind the failed one fails the same way
      }
      log.debug("{} transport failed: {}", channel, cause.toString());
      connectionLost = true;
      if (cause instanceof ChannelOutputShutdownException && channel.isActive()) {
        // A write failed (the peer reset) and, the channel not closing on write errors
        // (AUTO_CLOSE off), only the output is shut. Octets the peer sent just before its
        // reset, typically a Terminate (issue 22), are still to be read: the read that meets
        // the reset closes the channel. The bound is for a peer that never resets.
        channel.eventLoop().schedule((Runnable) channel::close, WRITE_FAILURE_CLOSE_MILLIS,
            TimeUnit.MILLISECONDS);
        return;
      }
      channel.close();
      return;
    }
    // Something threw on the receive path (an owner callback, a bug): the stream cannot be
    // trusted any more. RFC 5040 §4.8: Local Catastrophic Error, no headers.
    log.debug("{} unexpected exception on the RDMAP stream", channel, cause);
    ep.terminator.terminate(RdmapError.LAYER, RdmapError.ETYPE_LOCAL_CATASTROPHIC, 0, null);
  }

  @Override
  public void onChannelInactive() {
    tx.channelClosed();
    if (state == ENDED) {
      return;
    }
    boolean graceful = !connectionLost && (inputClosedCleanly || closeStarted);
    end(graceful ? "disconnected gracefully" : "disconnected (connection lost or reset)");
    listener.onDisconnected(graceful);
  }
}
