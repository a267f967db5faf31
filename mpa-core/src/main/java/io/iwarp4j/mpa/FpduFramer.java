package io.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * Frames ULPDUs into FPDUs on the send side of an MPA connection in Full Operation
 * (RFC 5044 §4): ULPDU_Length, the ULPDU, PAD, CRC32c (least significant octet first), and a
 * Marker every 512 stream octets when the peer asked for them. Writes header, payload slices,
 * Markers and trailer as separate buffers (a gathering write): the payload is never copied.
 *
 * <p>Event-loop confined. STUB: implemented by the framing work.
 */
public final class FpduFramer {

  /**
   * @param ctx the context writes go through (the MPA handler's)
   * @param crc whether to compute the CRC (otherwise the field is sent as zero)
   * @param markers whether to insert Markers (the peer's M bit)
   * @param maxUlpduLength the largest ULPDU accepted from the upper layer (MULPDU)
   */
  public FpduFramer(ChannelHandlerContext ctx, boolean crc, boolean markers, int maxUlpduLength) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** The largest ULPDU {@link #write} accepts (MULPDU). */
  public int maxUlpduLength() {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /**
   * Writes one FPDU whose ULPDU is the readable bytes of {@code header} followed by the readable
   * bytes of {@code payload} (may be null). Takes ownership of both buffers: each is released
   * once, after the socket has taken its bytes. Not flushed.
   */
  public void write(ByteBuf header, ByteBuf payload) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Flushes everything written so far. */
  public void flush() {
    throw new UnsupportedOperationException("not implemented yet");
  }
}
