package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.SegmentWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;

/** A {@link SegmentWriter} that keeps each ULPDU as hex and releases every buffer at once. */
final class CollectingSegmentWriter implements SegmentWriter {
  final List<String> ulpdus = new ArrayList<>();
  private final StringBuilder current = new StringBuilder();
  private final int maxUlpdu;

  CollectingSegmentWriter(int maxUlpdu) {
    this.maxUlpdu = maxUlpdu;
  }

  @Override
  public void beginSegment(ByteBuf header, int payloadLength) {
    current.setLength(0);
    current.append(ByteBufUtil.hexDump(header));
    header.release();
  }

  @Override
  public void addPayload(ByteBuf piece) {
    current.append(ByteBufUtil.hexDump(piece));
    piece.release();
  }

  @Override
  public void endSegment() {
    ulpdus.add(current.toString());
  }

  @Override
  public int maxUlpduLength() {
    return maxUlpdu;
  }
}
