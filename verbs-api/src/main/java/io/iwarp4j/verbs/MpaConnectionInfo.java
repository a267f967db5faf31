package io.iwarp4j.verbs;

/**
 * What the MPA startup of a connection agreed on ({@link RdmaConnection#mpaInfo()}). The
 * depths and what the peer stated are on {@link RdmaConnection} itself ({@code ird()},
 * {@code ord()}, {@code peerIrd()}, {@code peerOrd()}, {@code peerPrivateData()}).
 *
 * @param initiator whether this end connected (sent the MPA Request)
 * @param revision the MPA revision in use: 1 (RFC 5044) or 2 (RFC 6581)
 * @param enhanced whether RFC 6581 enhanced data (IRD/ORD) was exchanged
 * @param crc whether CRC32c is generated and checked in both directions (either end asked)
 * @param markersOut whether this end inserts Markers in what it sends (the peer asked)
 * @param markersIn whether the peer inserts Markers in what it sends (this end asked)
 * @param peerToPeer whether the RFC 6581 peer-to-peer model is in use
 * @param rtr the RTR message the Initiator sent first in the peer-to-peer model, or null
 * @param maxUlpduLength the largest message segment this end sends (MULPDU, RFC 5044 §4.5)
 */
public record MpaConnectionInfo(
    boolean initiator,
    int revision,
    boolean enhanced,
    boolean crc,
    boolean markersOut,
    boolean markersIn,
    boolean peerToPeer,
    RtrType rtr,
    int maxUlpduLength) {

  /** The API's view of what the MPA layer negotiated. */
  static MpaConnectionInfo of(io.iwarp4j.mpa.MpaConnectionInfo info) {
    return new MpaConnectionInfo(info.initiator(), info.revision(), info.enhanced(), info.crc(),
        info.markersOut(), info.markersIn(), info.peerToPeer(), RtrType.of(info.rtr()),
        info.maxUlpduLength());
  }
}
