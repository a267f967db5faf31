package io.iwarp4j.mpa;

import io.iwarp4j.wire.FpduHeader;
import io.iwarp4j.wire.MpaMarker;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives FPDUs (RFC 5044 §5.2, §6): delimits them by ULPDU_Length under any TCP chunking,
 * removes Markers, checks the CRC, and hands each verified ULPDU to a {@link UlpduListener}
 * without gathering it into a staging buffer.
 *
 * <h2>Parsing</h2>
 * A streaming state machine over the received octets: ULPDU_Length, ULPDU, PAD, CRC; any field
 * may be split over any number of reads, down to one octet each. When the peer inserts Markers
 * they are removed purely by position: whenever {@code streamPosition() % 512 == 0} and more data
 * follows, the next 4 octets are a Marker (RFC 5044 §4.3). Markers are fed to the CRC of the FPDU
 * they belong to. Each Marker's FPDUPTR is compared with the FPDU start known from the
 * ULPDU_Length chain; a disagreement is reported as {@link MpaError#MARKER_MISMATCH} once the
 * FPDU's CRC proved good (RFC 5044 §8), a bad CRC as {@link MpaError#CRC_MISMATCH}. With CRC off
 * the CRC field is ignored. Any ULPDU_Length up to 65535 is accepted.
 *
 * <h2>Verify, then deliver, without copying</h2>
 * A ULPDU is handed to {@link UlpduListener#onUlpdu} only after its CRC was verified. The
 * {@link Ulpdu} view's pieces are ranges of the received buffers themselves; a buffer that backs
 * an FPDU not yet complete at the end of a read is retained until that FPDU was delivered or
 * dropped. Only the buffers backing the one FPDU being assembled are ever held (FPDUs are never
 * queued), so the data held is bounded by one maximum FPDU plus the unrelated octets sharing its
 * first read. A peer that trickles an FPDU in tiny reads could make it pin many buffers: once
 * {@link #MAX_HELD_BUFFERS} are held, the ULPDU octets gathered so far are copied into one pooled
 * buffer sized for the ULPDU and the read buffers are released ({@link #consolidations()} counts
 * this); later octets of that FPDU append to the same buffer, so each octet is copied at most
 * once. That copy happens only in this pathological case.
 *
 * <h2>Read batches</h2>
 * Each read ({@code channelRead}) first calls {@link UlpduListener#beforeReadBatch} once, then
 * hands up the ULPDUs it completes.
 *
 * <h2>Errors and end of input</h2>
 * After the first error the listener gets {@link UlpduListener#onMpaError} once; nothing more is
 * delivered and all further input is released unread (RFC 5044 §8). A FIN
 * ({@link ChannelInputShutdownEvent} or {@code channelInactive}) inside an FPDU is
 * {@link MpaError#TCP_CONNECTION_LOST}; at an FPDU boundary it is reported through
 * {@link UlpduListener#onInputClosed}. Everything held is released on {@code channelInactive}
 * and {@code handlerRemoved}.
 *
 * <p>Event-loop confined, like every channel handler. Messages other than ByteBufs and all other
 * events pass through unchanged.
 */
public final class FpduDeframer extends ChannelInboundHandlerAdapter {
  /** Read buffers one FPDU may pin before its octets are consolidated into one buffer. */
  public static final int MAX_HELD_BUFFERS = 32;

  private static final Logger log = LoggerFactory.getLogger(FpduDeframer.class);

  private static final int LENGTH = 0;
  private static final int ULPDU = 1;
  private static final int PAD = 2;
  private static final int CRC = 3;

  private final boolean crcOn;
  private final boolean markersIn;
  private final CRC32C crc = new CRC32C();
  /** Where small direct ranges are copied for the CRC (see {@link Crc32c#update}). */
  private final byte[] crcScratch = new byte[Crc32c.SMALL_RANGE];
  private final Ulpdu ulpdu = new Ulpdu(8);
  private UlpduListener listener;

  /** Octets consumed since the peer's first Full Operation octet, Markers included. */
  private long position;
  /** {@link #position} at the end of the last complete FPDU. */
  private long fpduStart;

  private int state = LENGTH;
  /** Octets of a multi-octet field (ULPDU_Length, CRC) seen so far, and their value. */
  private int fieldOctets;
  private int fieldValue;
  private int ulpduLength;
  private int ulpduRemaining;
  private int padRemaining;
  /** Stream position of the current FPDU's ULPDU_Length field. */
  private long lengthFieldPosition;

  private int markerRemaining;
  private int markerValue;
  private long markerPosition;
  private boolean markerMismatch;
  private String markerMismatchDetail;

  /** Whether the FPDU being assembled has pieces in the buffer being parsed. */
  private boolean currentBacksFpdu;
  /** Read buffers retained because they back the current FPDU. */
  private final ByteBuf[] held = new ByteBuf[MAX_HELD_BUFFERS];
  private int heldCount;
  /** The consolidation buffer (ULPDU octets gathered so far), or null. */
  private ByteBuf staged;

  private boolean failed;
  private boolean inputClosed;
  private boolean removed;

  private long fpdusDelivered;
  private long consolidations;

  /**
   * @param crc whether CRCs are checked
   * @param markers whether the peer inserts Markers (our M bit)
   * @param listener receives the ULPDUs
   */
  public FpduDeframer(boolean crc, boolean markers, UlpduListener listener) {
    this.crcOn = crc;
    this.markersIn = markers;
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Replaces the listener (for example once the upper layer is attached).
   *
   * @param listener the listener
   */
  public void setListener(UlpduListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Octets received since Full Operation began, Markers included.
   *
   * @return octets received since Full Operation began, Markers included
   */
  public long streamPosition() {
    return position;
  }

  /**
   * Number of ULPDUs delivered to the listener.
   *
   * @return number of ULPDUs delivered to the listener
   */
  public long fpdusDelivered() {
    return fpdusDelivered;
  }

  /**
   * Number of times a trickled FPDU's octets were copied into one buffer.
   *
   * @return number of times a trickled FPDU's octets were copied into one buffer
   */
  public long consolidations() {
    return consolidations;
  }

  /**
   * Number of read buffers currently retained for the FPDU being assembled.
   *
   * @return number of read buffers currently retained for the FPDU being assembled
   */
  public int heldBufferCount() {
    return heldCount;
  }

  /**
   * Capacity of everything currently retained for the FPDU being assembled: the held read
   * buffers plus the consolidation buffer. For tests of the memory bound.
   *
   * @return the capacity of everything currently retained for the FPDU being assembled: the held
   *     read buffers plus the consolidation buffer
   */
  public long heldCapacity() {
    long sum = staged == null ? 0 : staged.capacity();
    for (int i = 0; i < heldCount; i++) {
      sum += held[i].capacity();
    }
    return sum;
  }

  /**
   * Whether an error was reported (nothing more is delivered).
   *
   * @return whether an error was reported (nothing more is delivered)
   */
  public boolean isFailed() {
    return failed;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf in = (ByteBuf) msg;
    try {
      if (failed || inputClosed || removed) {
        return;
      }
      currentBacksFpdu = false;
      // Once per read, before any segment of it: the upper layer takes in what was posted.
      listener.beforeReadBatch(ctx);
      decode(ctx, in);
      if (currentBacksFpdu && !failed && !removed) {
        hold(ctx, in);
      }
    } finally {
      in.release();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof ChannelInputShutdownEvent) {
      endOfInput(ctx);
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    endOfInput(ctx);
    releaseFpdu();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    removed = true;
    releaseFpdu();
  }

  private void decode(ChannelHandlerContext ctx, ByteBuf in) {
    int i = in.readerIndex();
    final int end = in.writerIndex();
    while (i < end) {
      if (state == LENGTH && fieldOctets == 0 && markerRemaining == 0) {
        int n = wholeFpdu(ctx, in, i, end);
        if (n > 0) {
          i += n;
          if (failed || removed) {
            return;
          }
          continue;
        }
      }
      if (markersIn) {
        if (markerRemaining == 0 && MpaMarker.isMarkerPosition(position)) {
          markerRemaining = MpaMarker.SIZE;
          markerValue = 0;
          markerPosition = position;
        }
        if (markerRemaining > 0) {
          int n = Math.min(markerRemaining, end - i);
          for (int k = 0; k < n; k++) {
            int b = in.getUnsignedByte(i + k);
            markerValue = markerValue << 8 | b;
            updateCrc(b);
          }
          i += n;
          position += n;
          markerRemaining -= n;
          if (markerRemaining == 0) {
            checkMarker();
          }
          continue;
        }
      }
      switch (state) {
        case LENGTH -> {
          if (fieldOctets == 0) {
            lengthFieldPosition = position;
            if (end - i >= FpduHeader.ULPDU_LENGTH_SIZE) {
              // Fast path: the whole field is in this read.
              int length = in.getUnsignedShort(i);
              updateCrc(length >>> 8);
              updateCrc(length);
              i += FpduHeader.ULPDU_LENGTH_SIZE;
              position += FpduHeader.ULPDU_LENGTH_SIZE;
              startUlpdu(length);
              continue;
            }
          }
          int b = in.getUnsignedByte(i++);
          updateCrc(b);
          position++;
          fieldValue = fieldValue << 8 | b;
          if (++fieldOctets == FpduHeader.ULPDU_LENGTH_SIZE) {
            startUlpdu(fieldValue);
          }
        }
        case ULPDU -> {
          int n = Math.min(ulpduRemaining, end - i);
          if (markersIn) {
            n = Math.min(n, MpaMarker.octetsToNextMarker(position));
          }
          addPiece(in, i, n);
          updateCrc(in, i, n);
          i += n;
          position += n;
          ulpduRemaining -= n;
          if (ulpduRemaining == 0) {
            endUlpdu();
          }
        }
        case PAD -> {
          int n = Math.min(padRemaining, end - i);
          for (int k = 0; k < n; k++) {
            updateCrc(in.getUnsignedByte(i + k));
          }
          i += n;
          position += n;
          padRemaining -= n;
          if (padRemaining == 0) {
            state = CRC;
          }
        }
        default -> {
          int n = Math.min(FpduHeader.CRC_SIZE - fieldOctets, end - i);
          if (n == FpduHeader.CRC_SIZE) {
            fieldValue = FpduHeader.getCrc(in, i);
          } else {
            for (int k = 0; k < n; k++) {
              // Least significant octet first (RFC 5044 §4.4).
              fieldValue |= in.getUnsignedByte(i + k) << (8 * (fieldOctets + k));
            }
          }
          i += n;
          position += n;
          fieldOctets += n;
          if (fieldOctets == FpduHeader.CRC_SIZE) {
            completeFpdu(ctx);
            if (failed || removed) {
              return;
            }
          }
        }
      }
    }
  }

  /**
   * Fast path for the common case: a whole FPDU, with no Marker inside, lies in this read at
   * {@code i}. Parses, checks and delivers it in one step and returns its length; returns 0 (and
   * changes nothing) when the general state machine has to do it.
   */
  private int wholeFpdu(ChannelHandlerContext ctx, ByteBuf in, int i, int end) {
    if (end - i < FpduHeader.fpduLength(0)) {
      return 0;
    }
    int length = in.getUnsignedShort(i);
    int pad = FpduHeader.padLength(length);
    int covered = FpduHeader.ULPDU_LENGTH_SIZE + length + pad;
    int total = covered + FpduHeader.CRC_SIZE;
    // A Marker due exactly at the end belongs to the next FPDU; one due earlier (or now) does not
    // fit this path.
    if (end - i < total || markersIn && MpaMarker.octetsToNextMarker(position) < total) {
      return 0;
    }
    lengthFieldPosition = position;
    ulpduLength = length;
    updateCrc(in, i, covered);
    addPiece(in, i + FpduHeader.ULPDU_OFFSET, length);
    fieldValue = FpduHeader.getCrc(in, i + covered);
    position += total;
    completeFpdu(ctx);
    return total;
  }

  private void startUlpdu(int length) {
    ulpduLength = length;
    ulpduRemaining = length;
    fieldOctets = 0;
    fieldValue = 0;
    if (length > 0) {
      state = ULPDU;
    } else {
      endUlpdu();
    }
  }

  private void endUlpdu() {
    padRemaining = FpduHeader.padLength(ulpduLength);
    state = padRemaining > 0 ? PAD : CRC;
  }

  /** Compares a complete Marker's FPDUPTR with the FPDU start known from the length chain. */
  private void checkMarker() {
    // A Marker right before a ULPDU_Length belongs to that FPDU and must point at it (0);
    // any other must point back to the ULPDU_Length of the FPDU it sits in.
    boolean atFpduStart = state == LENGTH && fieldOctets == 0;
    long expected = atFpduStart ? 0 : markerPosition - lengthFieldPosition;
    int pointer = markerValue & MpaMarker.FPDUPTR_MASK;
    // A peer may send FPDUs too long for FPDUPTR; compare modulo 2^16, as far as the field goes.
    if (!markerMismatch && pointer != (expected & MpaMarker.FPDUPTR_MASK)) {
      markerMismatch = true;
      markerMismatchDetail = "Marker at stream octet " + markerPosition + " has FPDUPTR "
          + (markerValue & 0xFFFF) + ", but the ULPDU_Length chain puts "
          + (atFpduStart ? "an FPDU start right after it (FPDUPTR 0)"
              : "this FPDU's ULPDU_Length " + expected + " octets before it");
    }
  }

  private void addPiece(ByteBuf in, int index, int length) {
    if (length > 0) {
      ulpdu.addPiece(in, index, length);
      currentBacksFpdu = true;
    }
  }

  private void completeFpdu(ChannelHandlerContext ctx) {
    int received = fieldValue;
    int length = ulpduLength;
    long start = fpduStart;
    if (crcOn) {
      int computed = (int) crc.getValue();
      if (computed != received) {
        fail(ctx, MpaError.CRC_MISMATCH, "FPDU at stream octet " + start + " (ULPDU_Length "
            + length + "): CRC field " + crcHex(received) + ", computed " + crcHex(computed));
        return;
      }
    }
    if (markerMismatch) {
      fail(ctx, MpaError.MARKER_MISMATCH, markerMismatchDetail);
      return;
    }
    // Ready for the next FPDU before the listener runs; the view stays intact until released.
    state = LENGTH;
    fieldOctets = 0;
    fieldValue = 0;
    markerMismatch = false;
    markerMismatchDetail = null;
    if (crcOn) {
      crc.reset();
    }
    fpduStart = position;
    fpdusDelivered++;
    try {
      listener.onUlpdu(ctx, ulpdu);
    } catch (Throwable t) {
      // As if the listener were the next handler: its failure does not break our stream.
      ctx.fireExceptionCaught(t);
    } finally {
      releaseFpdu();
    }
  }

  private static String crcHex(int wireValue) {
    return String.format("%08x", wireValue);
  }

  private void fail(ChannelHandlerContext ctx, MpaError error, String detail) {
    failed = true;
    releaseFpdu();
    MpaException e = new MpaException(error, detail);
    log.debug("{}: {}", ctx.channel(), e.getMessage());
    listener.onMpaError(ctx, e);
  }

  private void endOfInput(ChannelHandlerContext ctx) {
    if (failed || inputClosed || removed) {
      return;
    }
    inputClosed = true;
    if (position != fpduStart) {
      fail(ctx, MpaError.TCP_CONNECTION_LOST, "FIN after " + (position - fpduStart)
          + " octets of an FPDU starting at stream octet " + fpduStart);
    } else {
      releaseFpdu();
      listener.onInputClosed(ctx);
    }
  }

  /** Keeps {@code in} alive for the FPDU still being assembled, or consolidates. */
  private void hold(ChannelHandlerContext ctx, ByteBuf in) {
    if (heldCount == MAX_HELD_BUFFERS) {
      consolidate(ctx);
      return;
    }
    held[heldCount++] = in.retain();
  }

  /**
   * Copies every ULPDU piece not yet staged into the staging buffer, which then becomes the
   * view's first and only piece, and releases the read buffers. The staging buffer is sized for
   * the whole ULPDU, so later consolidations of the same FPDU append to it: at most one copy of
   * each octet.
   */
  private void consolidate(ChannelHandlerContext ctx) {
    int first = 0;
    if (staged == null) {
      staged = ctx.alloc().buffer(ulpduLength);
    } else {
      first = 1; // piece 0 is the staged prefix
    }
    int copied = 0;
    for (int p = first; p < ulpdu.pieceCount(); p++) {
      staged.writeBytes(ulpdu.pieceBuffer(p), ulpdu.pieceOffset(p), ulpdu.pieceLength(p));
      copied += ulpdu.pieceLength(p);
    }
    if (CopyCounters.ENABLED) {
      CopyCounters.receiveStaged(copied);
    }
    ulpdu.clear();
    ulpdu.addPiece(staged, staged.readerIndex(), staged.readableBytes());
    releaseHeld();
    currentBacksFpdu = false;
    consolidations++;
    log.debug("{}: consolidated {} ULPDU octets trickled over more than {} reads",
        ctx.channel(), staged.readableBytes(), MAX_HELD_BUFFERS);
  }

  /** Forgets the view and releases every buffer retained for the current FPDU. */
  private void releaseFpdu() {
    ulpdu.clear();
    releaseHeld();
    if (staged != null) {
      staged.release();
      staged = null;
    }
    currentBacksFpdu = false;
  }

  private void releaseHeld() {
    for (int i = 0; i < heldCount; i++) {
      held[i].release();
      held[i] = null;
    }
    heldCount = 0;
  }

  private void updateCrc(ByteBuf buf, int index, int length) {
    if (crcOn) {
      Crc32c.update(crc, buf, index, length, crcScratch);
    }
  }

  /** One octet of a small field: cheaper than a buffer range for the CRC. */
  private void updateCrc(int octet) {
    if (crcOn) {
      crc.update(octet);
    }
  }
}
