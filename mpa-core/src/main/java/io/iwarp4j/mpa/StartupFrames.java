package io.iwarp4j.mpa;

import io.iwarp4j.wire.EnhancedConnectionData;
import io.iwarp4j.wire.MpaStartupFrame;
import io.netty.buffer.ByteBuf;
import java.util.Collections;
import java.util.Set;

/**
 * MPA Request and Reply frames ({@link MpaStartupFrame}) as the negotiation parameters they
 * carry ({@link MpaPeerParameters}), and back.
 */
final class StartupFrames {
  private StartupFrames() {
  }

  /**
   * Decodes a whole frame (header and PD_Length octets of Private Data must be readable at the
   * wrapped offset). With S=1 (and Rev &ge; 2) the enhanced data is split off; B/C/D are ignored
   * when A=0 (RFC 6581 §9.2). Call {@link MpaStartupFrame#checkHeader} first.
   *
   * @param frame the frame, wrapped
   * @return the decoded parameters
   */
  static MpaPeerParameters decode(MpaStartupFrame frame) {
    ByteBuf buf = frame.buffer();
    int pd = frame.privateDataLength();
    int pdStart = frame.privateDataIndex();
    boolean enhanced = frame.enhanced();
    boolean p2p = false;
    Set<RtrType> rtr = Collections.emptySet();
    int ird = -1;
    int ord = -1;
    int ulpStart = pdStart;
    if (enhanced) {
      p2p = EnhancedConnectionData.peerToPeer(buf, pdStart);
      rtr = p2p ? RtrWire.types(EnhancedConnectionData.rtrFlags(buf, pdStart))
          : Collections.emptySet();
      ird = EnhancedConnectionData.ird(buf, pdStart);
      ord = EnhancedConnectionData.ord(buf, pdStart);
      ulpStart += EnhancedConnectionData.LENGTH;
    }
    byte[] ulp = new byte[pdStart + pd - ulpStart];
    buf.getBytes(ulpStart, ulp);
    return new MpaPeerParameters(frame.revision(), frame.markers(), frame.crc(), frame.rejected(),
        enhanced, p2p, rtr, ird, ord, ulp);
  }

  /**
   * Writes a whole frame: header, the enhanced connection data when {@code frame.enhanced()},
   * then the ULP private data. R is written only for a Reply.
   *
   * @param out the buffer to append to
   * @param kind Request or Reply
   * @param frame what the frame says
   * @return the number of octets written
   */
  static int encode(ByteBuf out, MpaStartupFrame.Kind kind, MpaPeerParameters frame) {
    int flags = (frame.markers() ? MpaStartupFrame.FLAG_M : 0)
        | (frame.crc() ? MpaStartupFrame.FLAG_C : 0)
        | (kind == MpaStartupFrame.Kind.REPLY && frame.rejected() ? MpaStartupFrame.FLAG_R : 0)
        | (frame.enhanced() ? MpaStartupFrame.FLAG_S : 0);
    if (frame.enhanced() && frame.revision() < 2) {
      throw new IllegalArgumentException("enhanced data needs Rev >= 2 (RFC 6581 §6)");
    }
    int pd = (frame.enhanced() ? EnhancedConnectionData.LENGTH : 0) + frame.privateDataLength();
    int n = MpaStartupFrame.writeHeader(out, kind, flags, frame.revision(), pd);
    if (frame.enhanced()) {
      EnhancedConnectionData.write(out, frame.peerToPeer(), RtrWire.flags(frame.rtrTypes()),
          frame.ird(), frame.ord());
    }
    out.writeBytes(frame.privateData());
    return n + pd;
  }
}
