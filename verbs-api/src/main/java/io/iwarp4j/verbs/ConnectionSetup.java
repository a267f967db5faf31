package io.iwarp4j.verbs;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaConnectionInfo;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.MpaPeerParameters;
import io.iwarp4j.mpa.MpaRejectedException;
import io.iwarp4j.mpa.MpaSettings;
import io.iwarp4j.rdmap.RdmapEndpoint;
import io.iwarp4j.verbs.engine.RdmapEndpointPort;
import io.netty.channel.Channel;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection attempt, either side, from TCP to RTS: maps transport and MPA failures to the
 * connection manager's outcomes, and after the MPA handshake builds the DDP stream and the RDMAP
 * endpoint on the channel's event loop, attaches the queue pair (RTR), and moves it to RTS once
 * this end may send. Every step after the constructor runs on the channel's event loop.
 */
final class ConnectionSetup {
  private static final Logger log = LoggerFactory.getLogger(ConnectionSetup.class);

  private final QueuePair qp;
  private final ConnectionEventListener listener;
  private final SocketAddress remote;
  private final ConnectionHandler handler;
  private final CompletableFuture<RdmaConnection> result = new CompletableFuture<>();

  /** The Initiator's TLS handler with ConnectParams.tls, else null. */
  private io.netty.handler.ssl.SslHandler tls;

  // Event loop only.
  private boolean mpaFailureDeferred;
  private boolean bound;
  private boolean closeHandled;
  private RdmaConnection connection;

  ConnectionSetup(QueuePair qp, ConnectionEventListener listener, SocketAddress remote,
      ConnectionHandler handler) {
    this.qp = qp;
    this.listener = listener;
    this.remote = remote;
    this.handler = handler;
  }

  CompletableFuture<RdmaConnection> result() {
    return result;
  }

  /**
   * The operating system's reason of a failed connect, without Netty's epoll wrapping and the
   * address repeated: "finishConnect(..) failed with error(-111): Connection refused: /a:p"
   * (NIO: "Connection refused: /a:p") becomes "Connection refused".
   */
  static String osReason(Throwable cause) {
    return String.valueOf(cause.getMessage())
        .replaceFirst("^finishConnect\\(\\.\\.\\) failed with error\\(-?\\d+\\): ", "")
        .replaceFirst(": [^ ]*:\\d+$", "");
  }

  /** The TCP connect failed (Initiator). */
  void tcpFailed(EventLoop loop, Throwable cause) {
    if (!loop.inEventLoop()) {
      loop.execute(() -> tcpFailed(loop, cause));
      return;
    }
    RdmaConnectException e;
    if (cause instanceof ConnectTimeoutException) {
      e = new RdmaTimeoutException("TCP connect to " + remote + " timed out", cause);
    } else if (cause instanceof ConnectException || cause instanceof NoRouteToHostException
        || cause instanceof UnknownHostException) {
      e = new RdmaUnreachableException(remote + " is unreachable: " + osReason(cause), cause);
    } else {
      e = new RdmaConnectException("TCP connect to " + remote + " failed: " + cause, cause);
    }
    fail(loop, null, e, null);
  }

  /**
   * The TLS handshake failed (Initiator with TLS): the connect fails with a message that says
   * so, before MPA reports the close.
   */
  void tlsFailed(Channel channel, Throwable cause) {
    if (result.isDone() || !handler.wasActive()) {
      return; // done, or TCP never connected: tcpFailed says why
    }
    fail(channel.eventLoop(), channel,
        new RdmaConnectException(TlsPipeline.clientFailure(remote, cause), cause), null);
  }

  /** The connection runs over TLS: failures are reported as TLS's when TLS caused them. */
  void tls(io.netty.handler.ssl.SslHandler ssl) {
    this.tls = ssl;
  }

  /**
   * Why a TLS connection's MPA startup failed, when TLS is the reason: a handshake that did not
   * complete, or a TLS alert after it (TLS 1.3: the listener checks the client's certificate
   * after the client's handshake completed); else null.
   */
  private RdmaConnectException tlsReason(Throwable mpaCause) {
    io.netty.util.concurrent.Future<Channel> hs = tls.handshakeFuture();
    if (!hs.isSuccess()) {
      Throwable c = hs.cause() != null ? hs.cause() : mpaCause;
      return new RdmaConnectException(TlsPipeline.clientFailure(remote, c), c);
    }
    Throwable later = handler.tlsFailure();
    if (later != null) {
      String reason = TlsPipeline.tlsCause(later).getMessage();
      return new RdmaConnectException("TLS with " + remote + " failed after the handshake: "
          + reason + (reason != null && reason.contains("certificate")
          ? " (the listener refused this end's certificate)" : ""), later);
    }
    return null;
  }

  /** The MPA handshake finished, either way. */
  void onHandshake(Future<? super MpaConnection> f, Channel channel) {
    if (result.isDone()) {
      if (f.isSuccess()) {
        channel.close();
      }
      return;
    }
    if (!f.isSuccess()) {
      if (!handler.wasActive() && !handler.isResponderSide()) {
        // TCP never connected (e.g. refused before our connect listener was attached): the
        // connect future's failure says why, as UNREACHABLE or TIMEOUT.
        return;
      }
      Throwable cause = f.cause();
      if (tls != null && !mpaFailureDeferred) {
        // A close reaches MPA before the TLS handler reports why: hear it first.
        mpaFailureDeferred = true;
        channel.eventLoop().execute(() -> onHandshake(f, channel));
        return;
      }
      MpaPeerParameters peer = null;
      RdmaConnectException e;
      RdmaConnectException tlsFailure = tls == null ? null : tlsReason(cause);
      if (tlsFailure != null) {
        e = tlsFailure;
      } else if (cause instanceof MpaRejectedException r) {
        peer = r.peer();
        e = new RdmaRejectedException(r.rejectedLocally()
            ? "the connection from " + remote + " was rejected locally"
            : "the connection to " + remote + " was rejected by the peer",
            peer.privateData(), peer.ird(), peer.ord(), r);
      } else if (cause instanceof MpaException m && m.getCause() instanceof TimeoutException) {
        e = new RdmaTimeoutException("MPA startup with " + remote + ": " + m.getMessage(), m);
      } else if (TlsPipeline.tlsCause(cause) != null) {
        // E.g. the listener refused this end's certificate after the TLS 1.3 handshake.
        e = new RdmaConnectException("TLS with " + remote + " failed during the MPA startup: "
            + TlsPipeline.tlsCause(cause).getMessage(), cause);
      } else {
        e = new RdmaConnectException("MPA startup with " + remote + " failed: "
            + cause.getMessage(), cause);
      }
      fail(channel.eventLoop(), channel, e, peer);
      return;
    }
    establish((MpaConnection) f.getNow(), channel);
  }

  private void establish(MpaConnection mpa, Channel channel) {
    bind(channel.eventLoop());
    MpaConnectionInfo info = mpa.info();
    QueuePairCapabilities caps = qp.capabilities();
    int ird = depth(info.localIrd(), caps.ird());
    int ord = depth(info.localOrd(), caps.ord());
    try {
      // The endpoint installs itself as the stream's listener and enables its queues.
      DdpStream stream = new DdpStream(mpa, qp.pd().ddp(), null);
      // With CRC on, Read Responses are snapshots charged to the device's budget.
      RdmapEndpoint endpoint = new RdmapEndpoint(stream, qp.endpointListener(), ird, ord,
          caps.maxRecvWr(), caps.maxRecvSge(), caps.rfc7306(), qp.rdmapCounters(), info.crc(),
          qp.readResponseCopies());
      connection = new RdmaConnection(qp, channel, info, ird, ord, listener);
      connection.rtrAnsweredBy(mpa::rtrAnswered);
      if (!qp.binding().attach(new RdmapEndpointPort(endpoint, channel), connection.sink(), connection)) {
        fail(channel.eventLoop(), channel, new RdmaConnectException("queue pair " + qp.number()
            + " left INIT during the connection set-up (now " + qp.state() + ")", null), null);
        return;
      }
      handler.attach(qp, () -> onClosed(channel));
      // Receives posted so far are with the endpoint now: a Send the peer sent early finds one.
      endpoint.start();
    } catch (RuntimeException ex) {
      log.debug("{} RDMAP set-up failed", channel, ex);
      connection = null;
      fail(channel.eventLoop(), channel, new RdmaConnectException("setting up the RDMAP stream"
          + " with " + remote + " failed: " + ex, ex), null);
      return;
    }
    if (!channel.isActive()) {
      // Closed before the handler could hear it: handle it after the endpoint reported it.
      channel.eventLoop().execute(() -> onClosed(channel));
    }
    mpa.sendEnabledFuture().addListener(sf -> onSendEnabled(channel, info));
  }

  /** A negotiated depth, or the queue pair's own when MPA did not negotiate one. */
  private static int depth(int negotiated, int own) {
    return negotiated < 0 || negotiated == MpaSettings.IRD_ORD_NO_NEGOTIATION ? own : negotiated;
  }

  private void onSendEnabled(Channel channel, MpaConnectionInfo info) {
    if (result.isDone()) {
      return;
    }
    if (!qp.binding().enableSend()) {
      fail(channel.eventLoop(), channel, new RdmaConnectException("queue pair " + qp.number()
          + " left RTR before it could send (now " + qp.state() + ")", null), null);
      return;
    }
    MpaPeerParameters peer = info.peer();
    connection.established();
    connection.emit(new ConnectionEvent(ConnectionEventType.ESTABLISHED, qp, connection,
        channel.remoteAddress(), peer.privateData(), peer.ird(), peer.ord(), null, null, null));
    result.complete(connection);
  }

  private void onClosed(Channel channel) {
    if (closeHandled) {
      return;
    }
    closeHandled = true;
    if (!result.isDone()) {
      String why = connection.lastError();
      fail(channel.eventLoop(), channel, new RdmaConnectException("the connection with "
          + remote + " closed before this end could send"
          + (why != null ? " (" + why + ")" : ""), null), null);
      connection.closeFuture().complete(null);
      return;
    }
    connection.closed();
  }

  /** Ends the attempt: the queue pair flushes (ERROR), the event is reported, TCP closes. */
  private void fail(EventLoop loop, Channel channel, RdmaConnectException e,
      MpaPeerParameters peer) {
    if (result.isDone()) {
      return;
    }
    log.debug("connection attempt of queue pair {} failed: {}", qp.number(), e.getMessage());
    bind(loop);
    qp.binding().connectionFailed(e.getMessage());
    RdmaConnection.emit(listener, new ConnectionEvent(e.type(), qp, null, remote,
        peer == null ? null : peer.privateData(), peer == null ? -1 : peer.ird(),
        peer == null ? -1 : peer.ord(), null, e.getMessage(), e));
    result.completeExceptionally(e);
    if (channel != null) {
      channel.close();
    }
  }

  private void bind(EventLoop loop) {
    if (!bound) {
      bound = true;
      qp.binding().bindLoop(qp.binding().loopFor(loop));
    }
  }
}
