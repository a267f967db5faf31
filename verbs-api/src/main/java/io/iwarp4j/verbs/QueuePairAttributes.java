package io.iwarp4j.verbs;

import java.net.SocketAddress;

/**
 * A snapshot of a {@link QueuePair}'s attributes, the counterpart of what {@code ibv_query_qp}
 * fills into {@code ibv_qp_attr} and {@code ibv_qp_init_attr}, from {@link QueuePair#query()}.
 * The connection's attributes are those of the connection the queue pair runs over, from RTR on
 * (the MPA handshake is done), and stay after a disconnect or an error, until {@link
 * QueuePair#reset()}; before a connection, and after a reset, there are none.
 *
 * @param qpNumber the queue pair number ({@code qp_num})
 * @param state the state when queried ({@code qp_state})
 * @param capabilities what the queue pair was created with ({@code cap}; IRD/ORD as asked for)
 * @param ird the negotiated inbound RDMA Read depth ({@code max_dest_rd_atomic}), or -1 without
 *     a connection
 * @param ord the negotiated outbound RDMA Read depth ({@code max_rd_atomic}), or -1 without a
 *     connection
 * @param mpa what the MPA startup agreed on (CRC, Markers, revision, peer-to-peer, RTR type,
 *     MULPDU), or null without a connection
 * @param localAddress this end's address, or null without a connection
 * @param remoteAddress the peer's address, or null without a connection
 */
public record QueuePairAttributes(int qpNumber, QpState state,
    QueuePairCapabilities capabilities, int ird, int ord, MpaConnectionInfo mpa,
    SocketAddress localAddress, SocketAddress remoteAddress) {

  /**
   * Whether the queue pair has a connection's attributes (it reached RTR and was not reset).
   *
   * @return true when {@link #mpa()} is not null
   */
  public boolean hasConnection() {
    return mpa != null;
  }

  /**
   * Whether MPA CRC32c is in use on the connection.
   *
   * @return false also without a connection
   */
  public boolean crc() {
    return mpa != null && mpa.crc();
  }

  /**
   * Whether MPA Markers are in use in either direction on the connection.
   *
   * @return false also without a connection
   */
  public boolean markers() {
    return mpa != null && (mpa.markersIn() || mpa.markersOut());
  }

  /**
   * The MPA revision in use: 1 (RFC 5044) or 2 (RFC 6581).
   *
   * @return the revision, or -1 without a connection
   */
  public int mpaRevision() {
    return mpa != null ? mpa.revision() : -1;
  }

  /**
   * Whether the RFC 6581 peer-to-peer model is in use.
   *
   * @return false also without a connection
   */
  public boolean peerToPeer() {
    return mpa != null && mpa.peerToPeer();
  }

  /**
   * The RTR message of the peer-to-peer model.
   *
   * @return the RTR type, or null without a connection or without peer-to-peer
   */
  public RtrType rtrType() {
    return mpa != null ? mpa.rtr() : null;
  }
}
