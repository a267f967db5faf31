package io.iwarp4j.ddp.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.SegmentWriter;
import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * A {@link SegmentWriter} that records every segment, checks the call protocol as it goes and
 * releases what it was given when the test calls {@link #releaseAll()} (shared by the ddp-core and
 * rdmap-core tests through ddp-core's test jar).
 */
public final class RecordingSegmentWriter implements SegmentWriter {

  /** One recorded segment: its header buffer and payload pieces, as handed over. */
  public static final class Segment {
    /** The header buffer as handed over (released by {@link #releaseAll()}). */
    public final ByteBuf buffer;
    /** Its readable octets, indexed from 0 (the headroom before them is MPA's). */
    public final ByteBuf header;
    public final int payloadLength;
    public final List<ByteBuf> pieces = new ArrayList<>();

    Segment(ByteBuf buffer, int payloadLength) {
      this.buffer = buffer;
      this.header = buffer.slice();
      this.payloadLength = payloadLength;
    }

    public int ulpduLength() {
      return header.readableBytes() + payloadLength;
    }

    /** The payload octets (after the header buffer), concatenated. */
    public byte[] payload() {
      byte[] out = new byte[payloadLength];
      int at = 0;
      for (ByteBuf p : pieces) {
        p.getBytes(p.readerIndex(), out, at, p.readableBytes());
        at += p.readableBytes();
      }
      return out;
    }

    /** The ULPDU (header, then payload) as lowercase hex without separators. */
    public String hexDump() {
      StringBuilder hex = new StringBuilder(ByteBufUtil.hexDump(header));
      for (ByteBuf p : pieces) {
        hex.append(ByteBufUtil.hexDump(p));
      }
      return hex.toString();
    }

    /** A received-segment view over header + pieces, without copying (as MPA would hand it up). */
    public Ulpdu asUlpdu() {
      Ulpdu u = new Ulpdu(1 + pieces.size());
      u.addPiece(header, header.readerIndex(), header.readableBytes());
      for (ByteBuf p : pieces) {
        u.addPiece(p, p.readerIndex(), p.readableBytes());
      }
      return u;
    }
  }

  public final List<Segment> segments = new ArrayList<>();
  private Segment open;
  private int added;
  private int maxUlpdu;
  /** Maps the number of segments written so far to the MULPDU reported next. */
  private IntUnaryOperator mulpduSchedule;

  public RecordingSegmentWriter(int maxUlpdu) {
    this.maxUlpdu = maxUlpdu;
  }

  /** Makes MULPDU vary with the number of segments already written. */
  public void mulpduSchedule(IntUnaryOperator schedule) {
    this.mulpduSchedule = schedule;
  }

  @Override
  public void beginSegment(ByteBuf header, int payloadLength) {
    assertNull(open, "beginSegment inside a segment");
    assertTrue(payloadLength >= 0);
    open = new Segment(header, payloadLength);
    added = 0;
    int mulpdu = maxUlpduLength(); // the value the segmenter saw, before this segment counts
    segments.add(open);
    assertTrue(open.ulpduLength() <= mulpdu,
        "segment of " + open.ulpduLength() + " octets exceeds MULPDU " + mulpdu);
  }

  @Override
  public void addPayload(ByteBuf piece) {
    assertNotNull(open, "addPayload outside a segment");
    assertTrue(piece.readableBytes() > 0, "empty piece");
    open.pieces.add(piece);
    added += piece.readableBytes();
    assertTrue(added <= open.payloadLength, "more payload than announced");
  }

  @Override
  public void endSegment() {
    assertNotNull(open, "endSegment outside a segment");
    assertEquals(open.payloadLength, added, "payload length announced vs added");
    open = null;
  }

  @Override
  public int maxUlpduLength() {
    return mulpduSchedule == null ? maxUlpdu : mulpduSchedule.applyAsInt(segments.size());
  }

  /** Releases every header and piece once, as the real framer does after the socket write. */
  public void releaseAll() {
    for (Segment s : segments) {
      s.buffer.release();
      for (ByteBuf p : s.pieces) {
        p.release();
      }
    }
    segments.clear();
  }
}
