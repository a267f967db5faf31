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
 * @param rtr the RTR indication the Initiator sent as its first FPDU (peer-to-peer model), null
 *     when none. MPA sends and consumes it (and the zero-length Read Response a Read RTR gets)
 *     itself; the upper layers never see either. Contract for the upper layers: the RTR used
 *     the first message number of its queue in the Initiator-to-Responder direction only, so
 *     for {@link RtrType#SEND} the Initiator's next Send and the Responder's next expected Send
 *     are QN 0 MSN 2, for {@link RtrType#READ} the Initiator's next Read Request and the
 *     Responder's next expected one are QN 1 MSN 2. The other direction (Responder to
 *     Initiator) starts at MSN 1 as usual. A {@link RtrType#WRITE} consumes no MSN.
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
