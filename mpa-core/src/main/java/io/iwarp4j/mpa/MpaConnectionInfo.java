package io.iwarp4j.mpa;

/**
 * The outcome of a successful MPA startup: what both ends agreed on, and what the peer sent.
 *
 * @param initiator whether this end sent the Request
 * @param revision the MPA revision in use (the Reply's)
 * @param enhanced whether RFC 6581 enhanced data was exchanged
 * @param crc whether CRC32c is generated and checked in both directions (OR of the C bits)
 * @param markersOut whether this end inserts Markers in what it sends (the peer's M bit)
 * @param markersIn whether the peer inserts Markers in what it sends (our M bit)
 * @param peerToPeer whether the RFC 6581 peer-to-peer model (an RTR indication) is in use
 * @param rtr the RTR indication that was (or will be) sent by the Initiator; null when none
 * @param localIrd this end's inbound Read/Atomic depth after negotiation
 * @param localOrd this end's outbound Read/Atomic depth after negotiation
 * @param peer what the peer's startup frame said (its IRD/ORD and private data included)
 * @param maxUlpduLength the largest ULPDU this end sends (MULPDU, RFC 5044 §4.5)
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
    int localIrd,
    int localOrd,
    MpaPeerParameters peer,
    int maxUlpduLength) {
}
