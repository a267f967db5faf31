package io.iwarp4j.testkit;

import io.iwarp4j.wire.TerminateMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/**
 * A Terminate message (RFC 5040 §4.8) that a {@link ScriptedPeer} received, decoded by the
 * project's own codec. Layers: {@link #LAYER_RDMAP}, {@link #LAYER_DDP}, {@link #LAYER_LLP}.
 *
 * @param layer the Layer field
 * @param errorType the EType field
 * @param errorCode the Error Code field
 * @param msn the DDP Message Sequence Number of the Terminate (queue 2)
 * @param ddpHeaderIncluded the D bit: the terminated DDP header follows
 * @param rdmaHeaderIncluded the R bit: the terminated RDMA header follows
 * @param terminatedHeaders the octets after the Terminate Control (the DDP Segment Length and
 *     the terminated headers), in hex; empty when HdrCt is 000
 */
public record Terminate(int layer, int errorType, int errorCode, int msn,
    boolean ddpHeaderIncluded, boolean rdmaHeaderIncluded, String terminatedHeaders) {
  /** Layer 0: an RDMAP error. */
  public static final int LAYER_RDMAP = TerminateMessage.LAYER_RDMAP;
  /** Layer 1: a DDP error. */
  public static final int LAYER_DDP = TerminateMessage.LAYER_DDP;
  /** Layer 2: an LLP (MPA) error. */
  public static final int LAYER_LLP = TerminateMessage.LAYER_LLP;

  /** Decodes the ULPDU of a Terminate, or fails naming what is wrong with it. */
  static Terminate decode(byte[] ulpdu) {
    ByteBuf buf = Unpooled.wrappedBuffer(ulpdu);
    TerminateMessage t = new TerminateMessage().wrap(buf, 0, ulpdu.length);
    String problem = t.check();
    if (problem != null) {
      throw new AssertionError("malformed Terminate (" + problem + "): "
          + ByteBufUtil.hexDump(ulpdu));
    }
    int rest = TerminateMessage.MIN_LENGTH;
    return new Terminate(t.layer(), t.errorType(), t.errorCode(), t.msn(),
        t.ddpHeaderIncluded(), t.rdmaHeaderIncluded(),
        ByteBufUtil.hexDump(ulpdu, rest, ulpdu.length - rest));
  }

  /**
   * Whether this is the Terminate of that layer, type and code.
   *
   * @param layer the Layer
   * @param errorType the EType
   * @param errorCode the Error Code
   * @return true if all three match
   */
  public boolean is(int layer, int errorType, int errorCode) {
    return this.layer == layer && this.errorType == errorType && this.errorCode == errorCode;
  }
}
