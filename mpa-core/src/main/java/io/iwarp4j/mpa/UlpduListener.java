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
   *
   * @param ctx the channel handler context
   * @param ulpdu the ULPDU, a view valid during this call only
   */
  void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu);

  /**
   * Called once for each read from the socket, before any ULPDU of it is handed up (and before a
   * backlog of ULPDUs kept for a late listener is replayed): the upper layer's one chance per
   * batch to take in what other threads handed it since the last batch (DDP: receive buffers the
   * application posted), so that validating the batch's segments only consults local state and
   * never calls out. Must not block; runs even when the read completes no ULPDU.
   *
   * @param ctx the channel handler context
   */
  default void beforeReadBatch(ChannelHandlerContext ctx) {
  }

  /**
   * MPA detected an error on the receive stream (CRC mismatch 0x02, Marker mismatch 0x03,
   * a FIN in the middle of an FPDU or a lost connection 0x01). No further ULPDU is delivered
   * on this stream (RFC 5044 §8). The listener decides whether to send a Terminate.
   *
   * @param ctx the channel handler context
   * @param error the error
   */
  void onMpaError(ChannelHandlerContext ctx, MpaException error);

  /**
   * The peer closed its sending half cleanly, at an FPDU boundary.
   *
   * @param ctx the channel handler context
   */
  void onInputClosed(ChannelHandlerContext ctx);
}
