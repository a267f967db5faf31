package io.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;

/**
 * Where {@link DdpSegmenter} puts the DDP segments it cuts: the lower layer's send side (over
 * MPA, one segment = one FPDU's ULPDU). Each segment arrives as
 * {@code beginSegment, addPayload*, endSegment}; the ULPDU is the header's readable octets
 * followed by the pieces' readable octets, in call order.
 *
 * <p>Ownership: every buffer passed in (header and pieces) becomes the writer's, which releases
 * each exactly once (after the transport has taken its octets, or on failure). Pieces are
 * retained slices of the sender's buffers: the writer must not copy them into a staging buffer.
 * Called on the stream's event loop only.
 */
public interface SegmentWriter {

  /**
   * Starts one segment.
   *
   * @param header the DDP header, followed in the first segment of an untagged message by the
   *     RDMAP header, if any; its readable octets are the start of the ULPDU
   * @param payloadLength the octets the following {@link #addPayload} calls will add
   *     (0 when none follows); header octets + payloadLength never exceed {@link #maxUlpduLength}
   */
  void beginSegment(ByteBuf header, int payloadLength);

  /**
   * Starts one segment whose header the caller writes itself, straight into the returned buffer
   * at its writer index (exactly {@code headerLength} octets, before any other call), or returns
   * null, starting nothing, when this writer cannot take a header in place: the caller then
   * uses {@link #beginSegment}. The default never takes one.
   *
   * @param headerLength the header octets the caller writes next
   * @param payloadLength as {@link #beginSegment}
   * @return the buffer to write the header into, or null
   */
  default ByteBuf beginSegmentInPlace(int headerLength, int payloadLength) {
    return null;
  }

  /**
   * Appends a piece of the current segment's payload: its readable octets.
   *
   * @param piece a payload piece
   */
  void addPayload(ByteBuf piece);

  /**
   * Appends {@code length} octets of {@code source} from absolute index {@code index} to the
   * current segment's payload. The writer may copy them now (a small payload) or keep a retained
   * slice until the transport took them; {@code source} stays the caller's either way.
   *
   * @param source the buffer holding the octets
   * @param index where they start
   * @param length how many
   */
  default void addPayload(ByteBuf source, int index, int length) {
    addPayload(source.retainedSlice(index, length));
  }

  /** Ends the current segment: exactly {@code payloadLength} octets were added. */
  void endSegment();

  /**
   * The largest ULPDU the lower layer accepts right now (MULPDU). Read before every segment,
   * so a change applies from the next segment on and nothing already cut is re-segmented.
   *
   * @return the largest ULPDU the lower layer accepts right now (MULPDU)
   */
  int maxUlpduLength();
}
