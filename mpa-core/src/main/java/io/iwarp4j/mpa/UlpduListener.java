package io.iwarp4j.mpa;

import io.netty.channel.ChannelHandlerContext;

/**
 * The upper layer (DDP) of an MPA connection in Full Operation. All callbacks run on the
 * connection's event loop.
 */
public interface UlpduListener {

  /**
   * One verified ULPDU (CRC checked when CRC is in use, Markers removed). The view and every
   * piece it exposes are valid only during this call; copy out what must outlive it.
   */
  void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu);

  /**
   * MPA detected an error on the receive stream (CRC mismatch 0x02, Marker mismatch 0x03,
   * a FIN in the middle of an FPDU or a lost connection 0x01). No further ULPDU is delivered
   * on this stream (RFC 5044 §8). The listener decides whether to send a Terminate.
   */
  void onMpaError(ChannelHandlerContext ctx, MpaException error);

  /** The peer closed its sending half cleanly, at an FPDU boundary. */
  void onInputClosed(ChannelHandlerContext ctx);
}
