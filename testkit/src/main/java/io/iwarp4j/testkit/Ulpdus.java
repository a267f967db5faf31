package io.iwarp4j.testkit;

import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.ReadRequestHeader;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.TerminateMessage;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The octets of single-segment RDMAP messages (a DDP segment with its RDMAP header: the ULPDU an
 * MPA FPDU carries), written by the project's own wire codecs, for a {@link ScriptedPeer} to send
 * whole, with a bad CRC, or in part. Every method returns a new array; DDP version 1 and RDMAP
 * version 1, the L bit set.
 */
public final class Ulpdus {
  private Ulpdus() {}

  /**
   * An untagged Send (RFC 5040 §4.3, RFC 5041 §4.4) on queue 0.
   *
   * @param msn the DDP Message Sequence Number; the first Send of a stream is 1
   * @param payload the message
   * @return the ULPDU
   */
  public static byte[] send(int msn, byte[] payload) {
    return untagged(RdmapOpcode.SEND, 0, OpcodeTable.SEND_QN, msn, payload);
  }

  /**
   * An RDMA Write (RFC 5040 §4.3): a tagged segment placing {@code payload} at {@code to} of
   * {@code stag}. An STag the receiver never advertised, or an offset outside its region, makes
   * the hostile variants.
   *
   * @param stag the data sink STag
   * @param to the tagged offset of the first octet
   * @param payload the data
   * @return the ULPDU
   */
  public static byte[] write(int stag, long to, byte[] payload) {
    return tagged(RdmapOpcode.RDMA_WRITE, stag, to, payload);
  }

  /**
   * An RDMA Read Response segment (RFC 5040 §4.3) for the sink {@code stag}.
   *
   * @param stag the data sink STag of the Read Request answered
   * @param to the tagged offset of the first octet
   * @param payload the data
   * @return the ULPDU
   */
  public static byte[] readResponse(int stag, long to, byte[] payload) {
    return tagged(RdmapOpcode.RDMA_READ_RESPONSE, stag, to, payload);
  }

  /**
   * An RDMA Read Request (RFC 5040 §4.4) on queue 1.
   *
   * @param msn the Message Sequence Number of queue 1; the first Read Request is 1
   * @param sinkStag where the responder places the data (the requester's STag)
   * @param sinkTo the tagged offset in the sink
   * @param size octets to read
   * @param srcStag the STag read from (the responder's)
   * @param srcTo the tagged offset in the source
   * @return the ULPDU
   */
  public static byte[] readRequest(int msn, int sinkStag, long sinkTo, int size, int srcStag,
      long srcTo) {
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[UntaggedHeader.LENGTH
        + ReadRequestHeader.LENGTH]).clear();
    UntaggedHeader.write(buf, true, RdmapControl.untaggedRsvdUlp(RdmapOpcode.RDMA_READ_REQUEST,
        0), OpcodeTable.READ_REQUEST_QN, msn, 0);
    ReadRequestHeader.write(buf, sinkStag, sinkTo, size, srcStag, srcTo);
    return buf.array();
  }

  /**
   * A Terminate (RFC 5040 §4.8) without terminated headers (HdrCt 000) on queue 2. Layers:
   * 0 RDMAP, 1 DDP, 2 LLP (MPA); error types and codes are those of RFC 5040 §7 and RFC 5044
   * §8.
   *
   * @param msn the Message Sequence Number of queue 2; the first Terminate is 1
   * @param layer the layer, 0 to 15
   * @param errorType the error type, 0 to 15
   * @param errorCode the error code, 0 to 255
   * @return the ULPDU
   */
  public static byte[] terminate(int msn, int layer, int errorType, int errorCode) {
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[TerminateMessage.MIN_LENGTH]).clear();
    TerminateMessage.write(buf, msn, layer, errorType, errorCode);
    return buf.array();
  }

  private static byte[] untagged(RdmapOpcode op, int invalidateStag, int qn, int msn,
      byte[] payload) {
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[UntaggedHeader.LENGTH + payload.length])
        .clear();
    UntaggedHeader.write(buf, true, RdmapControl.untaggedRsvdUlp(op, invalidateStag), qn, msn, 0);
    buf.writeBytes(payload);
    return buf.array();
  }

  private static byte[] tagged(RdmapOpcode op, int stag, long to, byte[] payload) {
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[TaggedHeader.LENGTH + payload.length]).clear();
    TaggedHeader.write(buf, true, RdmapControl.encode(op), stag, to);
    buf.writeBytes(payload);
    return buf.array();
  }

  /** True if {@code ulpdu} is an untagged segment on the Terminate queue. */
  static boolean isTerminate(byte[] ulpdu) {
    return ulpdu.length >= TerminateMessage.MIN_LENGTH
        && !DdpControl.isTagged(ulpdu[0] & 0xFF)
        && RdmapControl.opcode(ulpdu[1] & 0xFF) == RdmapOpcode.TERMINATE.code();
  }
}
