package io.iwarp4j.mpa;

import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Receives FPDUs (RFC 5044 §5.2, §6): delimits them by ULPDU_Length under any TCP chunking,
 * removes Markers, checks the CRC, and hands each verified ULPDU to a {@link UlpduListener}
 * without gathering it into a staging buffer. STUB: implemented by the framing work.
 */
public final class FpduDeframer extends ChannelInboundHandlerAdapter {

  /**
   * @param crc whether CRCs are checked
   * @param markers whether the peer inserts Markers (our M bit)
   * @param listener receives the ULPDUs
   */
  public FpduDeframer(boolean crc, boolean markers, UlpduListener listener) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Replaces the listener (for example once the upper layer is attached). */
  public void setListener(UlpduListener listener) {
    throw new UnsupportedOperationException("not implemented yet");
  }
}
