package io.iwarp4j.verbs;

import java.util.Set;

/**
 * What a peer's MPA Request asked for ({@link ConnectRequest#mpaRequest()}), beyond the private
 * data and IRD/ORD that {@link ConnectRequest} gives directly.
 *
 * @param revision the MPA revision: 1 (RFC 5044) or 2 (RFC 6581)
 * @param crc whether the peer asked for CRC32c (the C bit)
 * @param markers whether the peer asked for Markers (the M bit)
 * @param enhanced whether the Request carried RFC 6581 enhanced data (IRD/ORD)
 * @param peerToPeer whether the peer asked for the peer-to-peer model
 * @param rtrTypes the RTR types the peer offered (empty in the client-server model);
 *     unmodifiable
 */
public record MpaRequestInfo(
    int revision,
    boolean crc,
    boolean markers,
    boolean enhanced,
    boolean peerToPeer,
    Set<RtrType> rtrTypes) {

  /**
   * Creates the record, copying the set.
   *
   * @param revision the MPA revision
   * @param crc the C bit
   * @param markers the M bit
   * @param enhanced whether enhanced data was present
   * @param peerToPeer whether the peer-to-peer model was asked for
   * @param rtrTypes the RTR types offered
   */
  public MpaRequestInfo {
    rtrTypes = Set.copyOf(rtrTypes);
  }

  /** The API's view of a decoded MPA Request. */
  static MpaRequestInfo of(io.iwarp4j.mpa.MpaPeerParameters request) {
    return new MpaRequestInfo(request.revision(), request.crc(), request.markers(),
        request.enhanced(), request.peerToPeer(),
        RtrType.of(request.rtrTypes()));
  }
}
