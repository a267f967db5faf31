package io.iwarp4j.ddp;

import io.iwarp4j.mpa.FpduFramer;
import io.netty.buffer.ByteBuf;

/**
 * The {@link SegmentWriter} over MPA: one DDP segment is one FPDU whose ULPDU is the header
 * followed by the payload pieces (ULPDU_Length = header octets + payload length). The framer
 * writes the pieces as they are (a gathering write), so nothing is copied, and it releases each
 * buffer once the transport has taken it. Nothing is flushed here: the stream flushes once per
 * batch.
 */
final class FramerSegmentWriter implements SegmentWriter {
  private final FpduFramer framer;

  FramerSegmentWriter(FpduFramer framer) {
    if (framer == null) {
      throw new NullPointerException("framer");
    }
    this.framer = framer;
  }

  @Override
  public void beginSegment(ByteBuf header, int payloadLength) {
    framer.beginFpdu(header, payloadLength);
  }

  @Override
  public ByteBuf beginSegmentInPlace(int headerLength, int payloadLength) {
    return framer.beginFpduInPlace(headerLength, payloadLength);
  }

  @Override
  public void addPayload(ByteBuf piece) {
    framer.addPayload(piece);
  }

  @Override
  public void addPayload(ByteBuf source, int index, int length) {
    framer.addPayload(source, index, length);
  }

  @Override
  public void endSegment() {
    framer.endFpdu();
  }

  @Override
  public int maxUlpduLength() {
    return framer.maxUlpduLength();
  }
}
