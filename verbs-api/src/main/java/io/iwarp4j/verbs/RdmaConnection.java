package io.iwarp4j.verbs;

import io.iwarp4j.verbs.engine.LifecycleLog;
import io.iwarp4j.verbs.engine.QpEventSink;
import io.netty.channel.Channel;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An established (or once established) iWARP connection: one TCP connection carrying one MPA
 * connection, one DDP stream and one RDMAP stream, bound to one {@link QueuePair}. The
 * counterpart of a connected {@code rdma_cm_id}.
 *
 * <p>Handed out by {@link RdmaDevice#connect} and {@link ConnectRequest#accept}. Events go to the
 * {@link ConnectionEventListener} given with the parameters; {@link #disconnect()} ends the
 * connection gracefully, like {@code rdma_disconnect}.
 */
public final class RdmaConnection {
  private static final Logger log = LoggerFactory.getLogger(RdmaConnection.class);

  private final QueuePair qp;
  private final Channel channel;
  private final io.iwarp4j.mpa.MpaConnectionInfo info;
  private final MpaConnectionInfo apiInfo;
  private final int ird;
  private final int ord;
  private final ConnectionEventListener listener;
  private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
  private final QpEventSink sink = this::onQpError;

  // Event loop only.
  private boolean established;
  private String lastError;
  private volatile BooleanSupplier rtrAnswered = () -> true;

  RdmaConnection(QueuePair qp, Channel channel, io.iwarp4j.mpa.MpaConnectionInfo info, int ird,
      int ord, ConnectionEventListener listener) {
    this.qp = qp;
    this.channel = channel;
    this.info = info;
    this.apiInfo = MpaConnectionInfo.of(info);
    this.ird = ird;
    this.ord = ord;
    this.listener = listener;
  }

  /**
   * The queue pair this connection carries.
   *
   * @return the queue pair
   */
  public QueuePair queuePair() {
    return qp;
  }

  /**
   * The peer's address.
   *
   * @return the address
   */
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  /**
   * This end's address.
   *
   * @return the address
   */
  public SocketAddress localAddress() {
    return channel.localAddress();
  }

  /**
   * Whether this end connected (the MPA Initiator) rather than accepted.
   *
   * @return true for the active side
   */
  public boolean isInitiator() {
    return info.initiator();
  }

  /**
   * The private data the peer sent in its MPA Request (we accepted) or Reply (we connected).
   *
   * @return a copy
   */
  public byte[] peerPrivateData() {
    return info.peer().privateData();
  }

  /**
   * The IRD the peer stated.
   *
   * @return the IRD, or -1 when the peer sent no RFC 6581 enhanced data
   */
  public int peerIrd() {
    return info.peer().ird();
  }

  /**
   * The ORD the peer stated.
   *
   * @return the ORD, or -1 when the peer sent no RFC 6581 enhanced data
   */
  public int peerOrd() {
    return info.peer().ord();
  }

  /**
   * The inbound RDMA Read depth in use after negotiation.
   *
   * @return the IRD
   */
  public int ird() {
    return ird;
  }

  /**
   * The outbound RDMA Read depth in use after negotiation.
   *
   * @return the ORD
   */
  public int ord() {
    return ord;
  }

  /**
   * What the MPA startup agreed on (CRC, Markers, revision, RTR, MULPDU).
   *
   * @return the MPA connection info
   */
  public MpaConnectionInfo mpaInfo() {
    return apiInfo;
  }

  /**
   * Whether the peer has answered this end's Read RTR (RFC 6581 §5: a zero-length Read Response,
   * which the stack consumes). A diagnostic for a peer that went silent right after its MPA
   * Reply: false means not even the RTR's answer came. True when no answer is expected
   * (client-server, a Write or Send RTR, or this end accepted the connection).
   *
   * @return false while this end's Read RTR is unanswered
   */
  public boolean rtrAnswered() {
    return rtrAnswered.getAsBoolean();
  }

  /** Where {@link #rtrAnswered()} reads from (the MPA connection; set once, at set-up). */
  void rtrAnsweredBy(BooleanSupplier answered) {
    this.rtrAnswered = answered;
  }

  /**
   * Whether the TCP connection is still open.
   *
   * @return true while open
   */
  public boolean isOpen() {
    return channel.isActive();
  }

  /**
   * Disconnects gracefully, like {@code rdma_disconnect}: the queue pair moves to ERROR and
   * flushes its outstanding work requests, what was handed to TCP is sent, then the connection
   * closes (DISCONNECTED on both sides). Idempotent.
   *
   * @return completes when the TCP connection is closed
   */
  public CompletableFuture<Void> disconnect() {
    try {
      channel.eventLoop().execute(() -> {
        if (qp.connection() == this) {
          qp.binding().disconnect();
        } else {
          channel.close(); // the queue pair was reset and carries another connection now
        }
      });
    } catch (RejectedExecutionException e) {
      channel.close();
    }
    return closeFuture;
  }

  /**
   * Completes when the TCP connection has closed, for any reason.
   *
   * @return the future (completing it does nothing)
   */
  public CompletableFuture<Void> closeFuture() {
    return closeFuture;
  }

  QpEventSink sink() {
    return sink;
  }

  Channel channel() {
    return channel;
  }

  /** The channel closed: the queue pair flushes, DISCONNECTED is reported. Event loop. */
  void closed() {
    qp.binding().channelClosed();
    emit(new ConnectionEvent(ConnectionEventType.DISCONNECTED, qp, this, remoteAddress(), null,
        -1, -1, null, "the connection closed", null));
    closeFuture.complete(null);
  }

  void emit(ConnectionEvent event) {
    emit(listener, event);
  }

  static void emit(ConnectionEventListener listener, ConnectionEvent event) {
    log.debug("{}", event);
    LifecycleLog.event(event);
    if (listener == null) {
      return;
    }
    try {
      listener.onEvent(event);
    } catch (RuntimeException e) {
      log.warn("ConnectionEventListener threw on {}; ignored", event, e);
    }
  }

  /** ESTABLISHED is being reported: ERROR events may follow from now on. Event loop. */
  void established() {
    established = true;
  }

  /** Why the queue pair failed before the connection was established, or null. */
  String lastError() {
    return lastError;
  }

  private void onQpError(QueuePair q, TerminateInfo terminate, String reason) {
    if (!established) {
      // The attempt fails with CONNECT_ERROR instead, naming this reason.
      lastError = reason;
      return;
    }
    emit(new ConnectionEvent(ConnectionEventType.ERROR, q, this, remoteAddress(), null, -1, -1,
        terminate, reason, null));
  }

  @Override
  public String toString() {
    return "RdmaConnection{qp=" + qp.number() + ", " + channel.localAddress()
        + (info.initiator() ? " -> " : " <- ") + channel.remoteAddress() + ", ird=" + ird
        + ", ord=" + ord + (channel.isActive() ? "" : ", closed") + '}';
  }
}
