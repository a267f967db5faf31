package io.iwarp4j.verbs;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import javax.net.ssl.SSLException;

/**
 * Puts TLS ({@link TlsSettings}) under MPA in a new connection's pipeline, and says what a TLS
 * failure means. Used only for connections with TLS set: the others' pipelines do not change.
 */
final class TlsPipeline {
  static final String NAME = "tls";

  private TlsPipeline() {
  }

  /**
   * Adds the client's TLS handler (before MPA is added): its handshake starts when TCP
   * connects, and bounded by {@code mpaTimeout}; MPA's writes wait in it until it completes.
   */
  static SslHandler addClient(Channel ch, TlsSettings tls, InetSocketAddress remote,
      Duration mpaTimeout) {
    SslHandler ssl = new SslHandler(tls.newEngine(true, remote));
    ssl.setHandshakeTimeoutMillis(TlsSettings.handshakeTimeoutMillis(mpaTimeout));
    ch.pipeline().addLast(NAME, ssl);
    return ssl;
  }

  /** Adds the server's guard against clients without TLS and its TLS handler. */
  static SslHandler addServer(Channel ch, TlsSettings tls, Duration mpaTimeout,
      TlsClientHelloGuard guard) {
    SslHandler ssl = new SslHandler(tls.newEngine(false, null));
    ssl.setHandshakeTimeoutMillis(TlsSettings.handshakeTimeoutMillis(mpaTimeout));
    ch.pipeline().addLast(TlsClientHelloGuard.NAME, guard).addLast(NAME, ssl);
    return ssl;
  }

  /** The TLS exception in {@code cause}'s chain, or null. */
  static SSLException tlsCause(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException e) {
        return e;
      }
    }
    return null;
  }

  /** What a failed client handshake with {@code remote} means, for the connect's exception. */
  static String clientFailure(Object remote, Throwable cause) {
    String reason = String.valueOf(cause.getMessage());
    boolean closed = cause instanceof ClosedChannelException
        || reason.contains("closed") || reason.contains("Connection reset");
    return "TLS handshake with " + remote + " failed: " + reason
        + (closed ? " (the peer closed the connection: a listener without TLS, such as an"
            + " iwarp4j listener without ListenParams.tls, Linux siw or an RNIC, closes on a TLS"
            + " ClientHello)" : "");
  }
}
