package io.iwarp4j.mpa;

import io.iwarp4j.wire.EnhancedConnectionData;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The MPA startup negotiation as pure functions, with no channel involved: what an Initiator
 * puts in its Request, how a Responder answers a Request (RFC 5044 §7.1, RFC 6581 §9, §10), and
 * what an Initiator concludes from a Reply.
 *
 * <p>Rules implemented (mpa.md §3.3, §3.4, §3.6):
 * <ul>
 *   <li>CRC is on in both directions iff either C bit is set; a Responder echoes C=1.</li>
 *   <li>Markers per direction: the Request's M governs what the Responder sends, the Reply's M
 *       what the Initiator sends. Both roles insert Markers when asked to.</li>
 *   <li>The Responder echoes the Request's revision, answers an unenhanced Request unenhanced
 *       and an enhanced one enhanced; it echoes A.</li>
 *   <li>RTR flags (A=1): the Responder sets the requested ones it supports, or, when it supports
 *       none of them, every one it supports. It drops Read when its IRD is 0 unless Read is all it
 *       supports, and then raises its IRD to 1 (RFC 6581 §9.1 example).</li>
 *   <li>IRD/ORD (RFC 6581 §9.1): Responder IRD = min(its IRD, Initiator ORD), Responder ORD =
 *       min(its ORD, Initiator IRD); 0x3FFF from the Initiator is answered with 0x3FFF and leaves
 *       the Responder's own value unchanged; 0x3FFF in one's own settings means "the ULP
 *       negotiates" and is sent as is. The Initiator keeps its IRD when it is at least the
 *       Responder ORD (else error 0x06) and lowers its ORD to the Responder IRD; 0x3FFF from the
 *       Responder leaves the corresponding local value unchanged.</li>
 *   <li>The Initiator chooses an RTR among the Responder's flags that it offered, preferring
 *       WRITE, then READ (only when the Responder IRD is at least 1), then SEND; none gives
 *       error 0x07. A Reply whose A differs from the Request's is a connection model mismatch,
 *       also 0x07.</li>
 *   <li>A non-enhanced Reply to an enhanced Request, or the reverse, is improperly formatted
 *       (0x04).</li>
 * </ul>
 */
public final class MpaNegotiation {
  private static final int NO_NEGOTIATION = MpaSettings.IRD_ORD_NO_NEGOTIATION;
  /** The Initiator's RTR preference: no MSN consumed, then the Read (needs IRD), then Send. */
  private static final RtrType[] RTR_PREFERENCE = {RtrType.WRITE, RtrType.READ, RtrType.SEND};

  private MpaNegotiation() {
  }

  /**
   * The contents of the Request an Initiator with these settings sends (R=0).
   *
   * @param settings the MPA settings
   * @return the contents of the Request an Initiator with these settings sends (R=0)
   */
  public static MpaPeerParameters request(MpaSettings settings) {
    boolean enhanced = settings.enhancedInUse();
    boolean p2p = enhanced && settings.peerToPeer();
    return new MpaPeerParameters(settings.revision(), settings.markers(), settings.crc(), false,
        enhanced, p2p, p2p ? settings.rtrTypes() : Collections.emptySet(),
        enhanced ? settings.ird() : -1, enhanced ? settings.ord() : -1, settings.privateData());
  }

  /**
   * The contents of the Reply a Responder sends to {@code request}.
   *
   * @param request the decoded, well-formed Request
   * @param settings the Responder's settings (M, C, supported RTR types)
   * @param ird the IRD the ULP accepts with (its inbound Read resources), 0..0x3FFF
   * @param ord the ORD the ULP accepts with, 0..0x3FFF
   * @param ulpPrivateData the ULP private data to return
   * @param reject whether the Reply rejects (R=1)
   * @return the contents of the Reply a Responder sends to {@code request}
   * @throws IllegalArgumentException when an argument is out of range or the private data does
   *     not fit (508 octets for an enhanced Reply, 512 otherwise)
   */
  public static MpaPeerParameters reply(MpaPeerParameters request, MpaSettings settings, int ird,
      int ord, byte[] ulpPrivateData, boolean reject) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(ulpPrivateData, "ulpPrivateData");
    checkDepth("IRD", ird);
    checkDepth("ORD", ord);
    boolean enhanced = request.enhanced();
    int max = MpaSettings.MAX_PRIVATE_DATA - (enhanced ? EnhancedConnectionData.LENGTH : 0);
    if (ulpPrivateData.length > max) {
      throw new IllegalArgumentException("reply private data of " + ulpPrivateData.length
          + " octets does not fit: at most " + max + " octets" + (enhanced
              ? " after the 4 octets of enhanced data (RFC 6581 §9)" : " (RFC 5044 §7.1.1)"));
    }
    boolean crc = request.crc() || settings.crc();
    if (!enhanced) {
      return new MpaPeerParameters(request.revision(), settings.markers(), crc, reject, false,
          false, Collections.emptySet(), -1, -1, ulpPrivateData);
    }
    boolean p2p = request.peerToPeer();
    Set<RtrType> flags = Collections.emptySet();
    if (p2p) {
      EnumSet<RtrType> supported = EnumSet.copyOf(settings.rtrTypes());
      if (ird == 0 && supported.size() > 1) {
        supported.remove(RtrType.READ);
      }
      EnumSet<RtrType> chosen = EnumSet.copyOf(supported);
      chosen.retainAll(request.rtrTypes());
      flags = chosen.isEmpty() ? supported : chosen;
    }
    int replyIrd;
    if (request.ord() == NO_NEGOTIATION || ird == NO_NEGOTIATION) {
      replyIrd = NO_NEGOTIATION;
    } else {
      replyIrd = Math.min(ird, request.ord());
      if (flags.contains(RtrType.READ) && replyIrd == 0) {
        replyIrd = 1;
      }
    }
    int replyOrd;
    if (request.ird() == NO_NEGOTIATION || ord == NO_NEGOTIATION) {
      replyOrd = NO_NEGOTIATION;
    } else {
      replyOrd = Math.min(ord, request.ird());
    }
    return new MpaPeerParameters(request.revision(), settings.markers(), crc, reject, true, p2p,
        flags, replyIrd, replyOrd, ulpPrivateData);
  }

  /**
   * What a Responder agreed on once its accepting Reply is out (and, in the peer-to-peer model,
   * the RTR has arrived).
   *
   * @param request the Initiator's Request
   * @param reply the Reply this end sent
   * @param acceptIrd the IRD the ULP accepted with
   * @param acceptOrd the ORD the ULP accepted with
   * @param rtr the RTR the Initiator sent, null when not peer-to-peer
   * @param emss the effective MSS of the connection
   * @param maxUlpduCap the settings' cap on the ULPDU length, 0 for none
   * @return what a Responder agreed on once its accepting Reply is out (and, in the peer-to-peer
   *     model, the RTR has arrived)
   */
  public static MpaConnectionInfo responderInfo(MpaPeerParameters request,
      MpaPeerParameters reply, int acceptIrd, int acceptOrd, RtrType rtr, int emss,
      int maxUlpduCap) {
    int localIrd = acceptIrd;
    int localOrd = acceptOrd;
    if (reply.enhanced()) {
      // A value the Initiator asked us not to negotiate leaves ours unchanged (6581 §9.1).
      localIrd = reply.ird() == NO_NEGOTIATION ? acceptIrd : reply.ird();
      localOrd = reply.ord() == NO_NEGOTIATION ? acceptOrd : reply.ord();
    }
    boolean markersOut = request.markers();
    return new MpaConnectionInfo(false, reply.revision(), reply.enhanced(),
        request.crc() || reply.crc(), markersOut, reply.markers(), reply.peerToPeer(), rtr,
        localIrd, localOrd, request, maxUlpduLength(emss, markersOut, maxUlpduCap));
  }

  /**
   * Evaluates a well-formed Reply (header checked, Private Data complete) against the Request
   * this Initiator sent.
   *
   * @param request what this end sent (see {@link #request})
   * @param reply the decoded Reply
   * @param settings this end's settings
   * @param emss the effective MSS of the connection
   * @return the outcome: ESTABLISHED with the connection info, or the error and reason
   */
  public static ReplyOutcome evaluateReply(MpaPeerParameters request, MpaPeerParameters reply,
      MpaSettings settings, int emss) {
    if (reply.rejected()) {
      return new ReplyOutcome(ReplyOutcome.Kind.REJECTED, null, "Reply R=1", null);
    }
    if (request.enhanced() && !reply.enhanced()) {
      return malformed("non-enhanced Reply (Rev " + reply.revision()
          + ", S=0) to an enhanced Request (RFC 6581 §10)");
    }
    if (!request.enhanced() && reply.enhanced()) {
      return malformed("enhanced Reply (Rev " + reply.revision()
          + ", S=1) to an unenhanced Request (RFC 6581 §10)");
    }
    boolean crc = request.crc() || reply.crc();
    boolean markersOut = reply.markers();
    int mulpdu = maxUlpduLength(emss, markersOut, settings.maxUlpduLength());
    int localIrd = settings.ird();
    int localOrd = settings.ord();
    RtrType rtr = null;
    MpaError error = null;
    String reason = null;
    if (reply.enhanced()) {
      if (reply.ord() != NO_NEGOTIATION && localIrd != NO_NEGOTIATION && reply.ord() > localIrd) {
        error = MpaError.INSUFFICIENT_IRD;
        reason = "the Responder's ORD " + reply.ord() + " needs an IRD this end cannot supply"
            + " (at most " + localIrd + ")";
      }
      if (reply.ird() != NO_NEGOTIATION && localOrd != NO_NEGOTIATION) {
        localOrd = Math.min(localOrd, reply.ird());
      }
      if (error == null && reply.peerToPeer() != request.peerToPeer()) {
        error = MpaError.NO_MATCHING_RTR;
        reason = "connection model mismatch: Request A=" + bit(request.peerToPeer())
            + ", Reply A=" + bit(reply.peerToPeer()) + " (RFC 6581 §9.2)";
      }
      if (error == null && reply.peerToPeer()) {
        rtr = chooseRtr(reply.rtrTypes(), request.rtrTypes(), reply.ird());
        if (rtr == null) {
          error = MpaError.NO_MATCHING_RTR;
          reason = "none of the Responder's RTR options " + reply.rtrTypes()
              + " is usable; offered " + request.rtrTypes() + ", Responder IRD " + reply.ird();
        }
      }
    }
    MpaConnectionInfo info = new MpaConnectionInfo(true, reply.revision(), reply.enhanced(), crc,
        markersOut, request.markers(), reply.enhanced() && reply.peerToPeer(), rtr, localIrd,
        localOrd, reply, mulpdu);
    if (error != null) {
      return new ReplyOutcome(ReplyOutcome.Kind.TERMINATE, error, reason, info);
    }
    return new ReplyOutcome(ReplyOutcome.Kind.ESTABLISHED, null, null, info);
  }

  /**
   * The RTR an Initiator sends: among the Responder's flags that it offered, WRITE, then READ
   * (only if the Responder's IRD admits one Read), then SEND. Null when none qualifies.
   *
   * @param responderFlags the RTR types the Responder accepts
   * @param offered the RTR types the Initiator offered
   * @param responderIrd the Responder's IRD
   * @return the RTR an Initiator sends: among the Responder's flags that it offered, WRITE, then
   *     READ (only if the Responder's IRD admits one Read), then SEND
   */
  public static RtrType chooseRtr(Set<RtrType> responderFlags, Set<RtrType> offered,
      int responderIrd) {
    for (RtrType t : RTR_PREFERENCE) {
      if (!responderFlags.contains(t) || !offered.contains(t)) {
        continue;
      }
      if (t == RtrType.READ && responderIrd == 0) {
        continue;
      }
      return t;
    }
    return null;
  }

  /**
   * MULPDU for the send direction: {@link Mulpdu#of} for the EMSS and Marker setting, capped by
   * {@code cap} when it is not 0.
   *
   * @param emss the effective MSS
   * @param markersOut whether this end inserts Markers
   * @param cap an upper bound set by the settings
   * @return the MULPDU for the send direction: {@link Mulpdu#of} for the EMSS and Marker setting,
   *     capped by {@code cap} when it is not 0
   */
  public static int maxUlpduLength(int emss, boolean markersOut, int cap) {
    int m = Mulpdu.of(emss, markersOut);
    return cap == 0 ? m : Math.min(m, cap);
  }

  private static ReplyOutcome malformed(String reason) {
    return new ReplyOutcome(ReplyOutcome.Kind.MALFORMED, MpaError.INVALID_STARTUP_FRAME, reason,
        null);
  }

  private static int bit(boolean b) {
    return b ? 1 : 0;
  }

  private static void checkDepth(String what, int value) {
    if (value < 0 || value > NO_NEGOTIATION) {
      throw new IllegalArgumentException(what + " must be 0..0x3FFF (14 bits), not " + value);
    }
  }

  /** What an Initiator does with a Reply. */
  public static final class ReplyOutcome {
    /** The four possible conclusions. */
    public enum Kind {
      /** Enter Full Operation (send the RTR first when {@code info().rtr()} is set). */
      ESTABLISHED,
      /** R=1: exit MPA, leave TCP open to the ULP. */
      REJECTED,
      /** Improperly formatted: close TCP, report 0x04 locally, no Terminate. */
      MALFORMED,
      /** Well formed but unusable: send a Terminate with {@link #error()}, then close. */
      TERMINATE
    }

    private final Kind kind;
    private final MpaError error;
    private final String reason;
    private final MpaConnectionInfo info;

    ReplyOutcome(Kind kind, MpaError error, String reason, MpaConnectionInfo info) {
      this.kind = kind;
      this.error = error;
      this.reason = reason;
      this.info = info;
    }

    /**
     * The conclusion.
     *
     * @return the conclusion
     */
    public Kind kind() {
      return kind;
    }

    /**
     * The MPA error for MALFORMED and TERMINATE, else null.
     *
     * @return the MPA error for MALFORMED and TERMINATE, else null
     */
    public MpaError error() {
      return error;
    }

    /**
     * Why, for anything but ESTABLISHED.
     *
     * @return why, for anything but ESTABLISHED
     */
    public String reason() {
      return reason;
    }

    /**
     * The negotiated parameters for ESTABLISHED, and for TERMINATE (the Terminate is framed
     * with its CRC and Marker settings); null otherwise.
     *
     * @return the negotiated parameters for ESTABLISHED, and for TERMINATE (the Terminate is framed
     *     with its CRC and Marker settings); null otherwise
     */
    public MpaConnectionInfo info() {
      return info;
    }

    @Override
    public String toString() {
      return "ReplyOutcome{" + kind + (error != null ? ", " + error : "")
          + (reason != null ? ", " + reason : "") + "}";
    }
  }
}
