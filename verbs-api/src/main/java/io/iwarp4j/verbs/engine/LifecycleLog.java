package io.iwarp4j.verbs.engine;

import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.TerminateInfo;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connection lifecycle records on the logger {@value #LOGGER}, one line per event as
 * {@code key=value} pairs that start with {@code event=}: connect, accept, reject, established,
 * terminate, error, connect_failed, disconnect. Each names the peer address and the queue pair
 * number; see docs/troubleshooting.md for examples. Lifecycle only: nothing on the data path
 * logs here. Levels: INFO for connect/accept/established/disconnect, WARN for reject, terminate,
 * error and connect_failed, so that a service logging at WARN sees only what went wrong.
 */
public final class LifecycleLog {
  /** The logger's name, to turn the records on or off independently of the rest. */
  static final String LOGGER = "io.iwarp4j.lifecycle";

  private static final Logger log = LoggerFactory.getLogger(LOGGER);

  private LifecycleLog() {
  }

  /** An initiator starts a connection attempt. */
  public static void connect(String device, int qp, SocketAddress peer) {
    log.info("event=connect device={} qp={} peer={}", device, qp, address(peer));
  }

  /** A responder accepts an MPA Request with {@code qp}. */
  public static void accept(int qp, SocketAddress peer) {
    log.info("event=accept qp={} peer={}", qp, address(peer));
  }

  /** A responder rejects an MPA Request. */
  public static void reject(SocketAddress peer, int privateDataLength) {
    log.warn("event=reject side=local qp=- peer={} privateData={}", address(peer),
        privateDataLength);
  }

  /** {@code 127.0.0.1:4791}: the numeric address and port, without a host name. */
  public static String address(SocketAddress a) {
    if (a instanceof InetSocketAddress i && i.getAddress() != null) {
      String host = i.getAddress().getHostAddress();
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + i.getPort();
    }
    return String.valueOf(a);
  }

  /** A connection event as it is reported to the application. */
  public static void event(ConnectionEvent e) {
    int qp = e.queuePair() != null ? e.queuePair().number() : -1;
    String peer = address(e.remoteAddress());
    switch (e.type()) {
      case ESTABLISHED -> {
        if (log.isInfoEnabled()) {
          RdmaConnection c = e.connection();
          log.info("event=established qp={} peer={} local={} role={} ird={} ord={}", qp, peer,
              c != null ? address(c.localAddress()) : null,
              c != null && c.isInitiator() ? "initiator" : "responder",
              c != null ? c.ird() : -1, c != null ? c.ord() : -1);
        }
      }
      case DISCONNECTED -> log.info("event=disconnect qp={} peer={} reason=\"{}\"", qp, peer,
          e.reason());
      case REJECTED -> log.warn("event=reject side=peer qp={} peer={} reason=\"{}\"", qp, peer,
          e.reason());
      case ERROR -> {
        TerminateInfo t = e.terminate();
        if (t != null) {
          log.warn("event=terminate direction={} qp={} peer={} layer={} type={} code=0x{}"
              + " meaning=\"{}\"", t.receivedFromPeer() ? "received" : "sent", qp, peer,
              t.layer(), t.errorType(), Integer.toHexString(t.errorCode()), t.describe());
        } else {
          log.warn("event=error qp={} peer={} reason=\"{}\"", qp, peer, e.reason());
        }
      }
      default -> log.warn("event=connect_failed type={} qp={} peer={} reason=\"{}\"", e.type(),
          qp, peer, e.reason());
    }
  }
}
