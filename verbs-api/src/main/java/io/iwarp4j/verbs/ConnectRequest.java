package io.iwarp4j.verbs;

import io.iwarp4j.mpa.MpaConnectRequest;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.verbs.engine.LifecycleLog;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A peer's request to connect, as its MPA Request stated it: private data, IRD/ORD, address.
 * Answer exactly once, from any thread: {@link #accept(QueuePair, AcceptParams)} with a new
 * queue pair, or {@link #reject(byte[])}.
 */
public final class ConnectRequest {
  private final RdmaDevice device;
  private final MpaConnectRequest request;
  private final Channel channel;
  private final Future<MpaConnection> handshake;
  private final ConnectionHandler handler;

  /** The accepted connection's channel (tests read its socket options). */
  Channel channel() {
    return channel;
  }

  ConnectRequest(RdmaDevice device, MpaConnectRequest request, Channel channel,
      Future<MpaConnection> handshake, ConnectionHandler handler) {
    this.device = device;
    this.request = request;
    this.channel = channel;
    this.handshake = handshake;
    this.handler = handler;
  }

  /**
   * The private data of the peer's MPA Request.
   *
   * @return a copy
   */
  public byte[] privateData() {
    return request.peer().privateData();
  }

  /**
   * The IRD the peer stated: how many of our RDMA Reads it can serve at once.
   *
   * @return the IRD, or -1 for an unenhanced (RFC 5044) Request
   */
  public int peerIrd() {
    return request.peer().ird();
  }

  /**
   * The ORD the peer stated: how many RDMA Reads it wants outstanding at us.
   *
   * @return the ORD, or -1 for an unenhanced (RFC 5044) Request
   */
  public int peerOrd() {
    return request.peer().ord();
  }

  /**
   * The peer's address.
   *
   * @return the address
   */
  public SocketAddress remoteAddress() {
    return request.remoteAddress();
  }

  /**
   * Whether the peer asked for the RFC 6581 peer-to-peer model.
   *
   * @return true for peer-to-peer
   */
  public boolean peerToPeer() {
    return request.peer().peerToPeer();
  }

  /**
   * Everything the MPA Request said (revision, CRC, Markers, RTR flags).
   *
   * @return the Request's parameters
   */
  public MpaRequestInfo mpaRequest() {
    return MpaRequestInfo.of(request.peer());
  }

  /**
   * Whether accept or reject has been called.
   *
   * @return true once decided
   */
  public boolean isDecided() {
    return request.isDecided();
  }

  /**
   * Accepts with the queue pair's IRD/ORD and no private data.
   *
   * @param qp a new queue pair of this device, in INIT
   * @return completes with the connection once its queue pair is RTS; fails with an
   *     {@link RdmaConnectException}
   * @see #accept(QueuePair, AcceptParams)
   */
  public CompletableFuture<RdmaConnection> accept(QueuePair qp) {
    return accept(qp, AcceptParams.defaults());
  }

  /**
   * Accepts: the MPA Reply carries {@code params}' private data and IRD/ORD, the queue pair is
   * bound to this connection. Receives may have been posted on it already. The future completes
   * when the queue pair is RTS; in the client-server model that is when the Initiator's first
   * message arrives (RFC 5044 §7.1.2 rule 4: a Responder may not send before), so the
   * application protocol must let the Initiator speak first, or use peer-to-peer mode (or, not
   * conformant and only toward Initiators that tolerate it,
   * {@link AcceptParams.Builder#responderSendsFirst(boolean)}).
   *
   * @param qp a new queue pair of this device, in INIT
   * @param params private data, IRD/ORD, event listener
   * @return completes with the connection once its queue pair is RTS; fails with an
   *     {@link RdmaConnectException} (the queue pair then is in ERROR)
   * @throws IllegalArgumentException when the queue pair belongs to another device or the
   *     private data is too long for the Reply
   * @throws IllegalStateException when the request was already decided, or the queue pair is
   *     not a new one in INIT
   */
  public CompletableFuture<RdmaConnection> accept(QueuePair qp, AcceptParams params) {
    Objects.requireNonNull(qp, "qp");
    Objects.requireNonNull(params, "params");
    device.checkOwns(qp);
    byte[] privateData = params.privateData();
    int max = io.iwarp4j.mpa.MpaSettings.MAX_PRIVATE_DATA
        - (request.peer().enhanced() ? io.iwarp4j.mpa.MpaSettings.ENHANCED_DATA_LENGTH : 0);
    if (privateData.length > max) {
      throw new IllegalArgumentException("accept private data of " + privateData.length
          + " octets does not fit the MPA Reply: at most " + max + " octets");
    }
    if (request.isDecided()) {
      throw new IllegalStateException("this connect request was already accepted or rejected");
    }
    qp.binding().claimForConnection();
    if (!params.tcp().inherits()) {
      TcpLiveness tcp = params.tcp().over(handler.listenerTcp());
      channel.eventLoop().execute(() -> device.applyTcpLivenessToAccepted(channel, tcp));
    }
    LifecycleLog.accept(qp.number(), remoteAddress());
    QueuePairCapabilities caps = qp.capabilities();
    ConnectionSetup setup = new ConnectionSetup(qp, params.eventListener(), remoteAddress(),
        handler);
    handshake.addListener(f -> setup.onHandshake(f, channel));
    int ird = params.ird() >= 0 ? params.ird() : caps.ird();
    int ord = params.ord() >= 0 ? params.ord() : caps.ord();
    if (params.responderSendsFirst() == null) {
      request.accept(ird, ord, privateData);
    } else {
      request.accept(ird, ord, privateData, params.responderSendsFirst());
    }
    return setup.result();
  }

  /**
   * Rejects: the MPA Reply has R=1 and carries {@code privateData}; the TCP connection closes
   * once it is sent.
   *
   * @param privateData at most 508 octets (512 for an unenhanced Request)
   * @throws IllegalArgumentException when the private data is too long
   * @throws IllegalStateException when the request was already decided
   */
  public void reject(byte[] privateData) {
    request.reject(Objects.requireNonNull(privateData, "privateData"));
    LifecycleLog.reject(remoteAddress(), privateData.length);
  }

  @Override
  public String toString() {
    return "ConnectRequest{from=" + remoteAddress() + ", privateData="
        + request.peer().privateDataLength() + "B, ird=" + peerIrd() + ", ord=" + peerOrd()
        + ", decided=" + isDecided() + '}';
  }
}
