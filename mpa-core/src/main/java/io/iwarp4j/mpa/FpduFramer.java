package io.iwarp4j.mpa;

import io.iwarp4j.wire.FpduHeader;
import io.iwarp4j.wire.MpaMarker;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Frames ULPDUs into FPDUs on the send side of an MPA connection in Full Operation
 * (RFC 5044 §4): ULPDU_Length, the ULPDU, PAD, CRC32c (least significant octet first), and a
 * Marker every 512 stream octets when the peer asked for them.
 *
 * <h2>What goes to the socket</h2>
 * <b>Without Markers</b>, ULPDU_Length, the header, a payload of at most
 * {@link #INLINE_THRESHOLD} octets, PAD and CRC are copied back to back into one outgoing
 * buffer ({@link FpduBatch}) shared by consecutive FPDUs; it is written to the channel as one
 * buffer when a larger (zero-copy) payload must follow it, at {@link #flush}, or at
 * {@link #writePending}. A larger payload is written as it is handed in (a slice of registered
 * memory: no copy). A header buffer is given back as soon as its octets are copied; so is a
 * payload buffer that was copied.
 *
 * <p><b>With Markers</b>, for each FPDU, in order, each with {@code ctx.voidPromise()}:
 * <ol>
 *   <li>a small pooled buffer with the ULPDU_Length (preceded by a Marker {@code 00 00 00 00}
 *       when one is due at the FPDU's start);
 *   <li>the caller's header buffer, then each payload buffer, as they are;
 *   <li>a small trailer with PAD, a Marker when one falls between PAD and CRC, and the CRC
 *       field (4 zero octets when CRC is not in use). Trailers come from a per-connection
 *       {@link SmallBufferRing} of reusable buffers, each reused once the transport released it,
 *       so the buffer MPA adds to every FPDU costs no allocation; the ring is released when the
 *       channel closes.
 * </ol>
 * A Marker that falls inside the header or a payload buffer splits it: the part before the
 * Marker goes out as a {@link ByteBuf#retainedSlice retained slice}, then a 4-octet pooled
 * Marker buffer, then the rest (the original buffer, its reader index moved). The original is
 * therefore released only after its last part was written.
 *
 * <p>Either way, for every buffer handed in that is not copied, <em>released means all its
 * octets were taken by the transport</em>; a copied one is released when copied. Anything an
 * upper layer writes to the channel itself must come after {@link #writePending}.
 *
 * <h2>Markers (RFC 5044 §4.3)</h2>
 * The stream position counts every octet written since the first octet of Full Operation,
 * Markers included ({@link #streamPosition()}). A Marker starts at every position that is a
 * multiple of 512; FPDUPTR is the distance back to the first octet of this FPDU's ULPDU_Length.
 * A Marker due exactly at an FPDU boundary belongs to the next FPDU (FPDUPTR 0, covered by that
 * FPDU's CRC); a Marker due right after a CRC is therefore not sent until another FPDU is.
 *
 * <h2>Why FPDUs are sized from the MSS</h2>
 * The framer does not segment: it frames what it is given, up to {@link #maxUlpduLength()}.
 * That bound is MULPDU ({@link Mulpdu}), derived from the EMSS so that one FPDU, with its
 * worst-case Markers, fits one TCP segment (RFC 5044 §5.1, §4.5). A receiver can then find an
 * FPDU header at the start of most segments: RNICs place such FPDUs directly into application
 * memory, and a lost segment delays only the FPDU it carried instead of forcing the receiver to
 * buffer a large FPDU spread over many segments before its CRC can be checked. The EMSS is
 * the kernel's MSS read from TCP_INFO on the epoll transport ({@link Transport#kernelMss}); NIO
 * cannot read it portably and assumes a 1500-octet Ethernet MTU ({@link Mulpdu#DEFAULT_EMSS}).
 *
 * <h2>Ownership</h2>
 * Every buffer passed in is owned by the framer from the call on and released exactly once:
 * by the transport after it took the octets, by the framer once it copied them, or by the
 * framer when the call throws.
 *
 * <p>Event-loop confined: call it only from the channel's event loop. No per-FPDU allocation:
 * without Markers one pooled outgoing buffer per flush and a recycled slice per write of it;
 * with Markers a small pooled prefix buffer from {@code ctx.alloc()} per FPDU, and a pooled
 * Marker buffer and a slice per Marker that splits a buffer. The CRC is fed from derived
 * buffers through their root's cached NIO view ({@code Crc32c}), which allocates nothing.
 */
public final class FpduFramer {
  /**
   * The largest ULPDU a framer inserting Markers accepts: MULPDU for the largest EMSS. Beyond it,
   * an FPDU with its Markers could exceed what a 16-bit FPDUPTR can point back over.
   */
  public static final int MAX_ULPDU_LENGTH_WITH_MARKERS = Mulpdu.of(Mulpdu.MAX_ULPDU_LENGTH, true);

  /** PAD (up to 3) + a Marker (4) + the CRC field (4), rounded up. */
  static final int TRAILER_CAPACITY = 12;
  /** The most PAD octets an FPDU has. */
  private static final int MAX_PAD = 3;
  /**
   * Payloads of at most this many octets are copied into the outgoing buffer behind their header
   * (what {@code IBV_SEND_INLINE} does), when Markers are off; larger ones go as slices of the
   * registered memory (zero copy). A slice costs a derived buffer, a pipeline write, an entry in
   * Netty's outbound buffer and its release, about as much as copying ~1 KiB; see
   * docs/architecture.md for the measurement.
   */
  public static final int INLINE_THRESHOLD = Integer.getInteger("iwarp4j.mpa.inlineThreshold", 512);
  /** Trailers kept per connection: a queue of 128 FPDUs in flight takes none from the pool. */
  static final int TRAILER_SLOTS = 128;

  /** A leading Marker's octets (FPDUPTR 0), for the CRC. */
  private static final byte[] ZERO_MARKER = new byte[MpaMarker.SIZE];

  private final ChannelHandlerContext ctx;
  private final boolean crcOn;
  private final boolean markers;
  private final int maxUlpduLength;
  private final ChannelPromise voidPromise;
  private final CRC32C crc = new CRC32C();
  /** Where small direct ranges are copied for the CRC (see {@link Crc32c#update}). */
  private final byte[] crcScratch = new byte[Crc32c.SMALL_RANGE];
  private final SmallBufferRing trailers;
  /** Where FPDUs are gathered without Markers; null when Markers are on (see the class). */
  private final FpduBatch batch;

  /** Octets sent in Full Operation, Markers included. */
  private long position;

  // The FPDU being written, between beginFpdu and endFpdu.
  private boolean open;
  private int ulpduLength;
  private int payloadExpected;
  private int payloadAdded;
  /** Stream position of the first octet of the open FPDU's ULPDU_Length. */
  private long lengthFieldPosition;
  /** Whether the open FPDU's payload is copied into the batch (see {@link #INLINE_THRESHOLD}). */
  private boolean inline;
  /** The batch buffer a caller is writing the open FPDU's header into, or null. */
  private ByteBuf headerInPlace;
  private int headerInPlaceIndex;

  /**
   * @param ctx the context writes go through (the MPA handler's)
   * @param crc whether to compute the CRC (otherwise the field is sent as zero)
   * @param markers whether to insert Markers (the peer's M bit)
   * @param maxUlpduLength the largest ULPDU accepted from the upper layer (MULPDU): 1..65535,
   *     and at most {@link #MAX_ULPDU_LENGTH_WITH_MARKERS} with Markers
   */
  public FpduFramer(ChannelHandlerContext ctx, boolean crc, boolean markers, int maxUlpduLength) {
    this.ctx = Objects.requireNonNull(ctx, "ctx");
    int limit = markers ? MAX_ULPDU_LENGTH_WITH_MARKERS : FpduHeader.MAX_ULPDU_LENGTH;
    if (maxUlpduLength < 1 || maxUlpduLength > limit) {
      throw new IllegalArgumentException("maxUlpduLength must be 1.." + limit
          + (markers ? " with Markers" : "") + ", not " + maxUlpduLength);
    }
    this.crcOn = crc;
    this.markers = markers;
    this.maxUlpduLength = maxUlpduLength;
    this.voidPromise = ctx.voidPromise();
    this.trailers = new SmallBufferRing(ctx.channel(), TRAILER_CAPACITY, TRAILER_SLOTS);
    this.batch = markers ? null : new FpduBatch(ctx);
  }

  /**
   * The largest ULPDU {@link #write} accepts (MULPDU).
   *
   * @return the largest ULPDU {@link #write} accepts (MULPDU)
   */
  public int maxUlpduLength() {
    return maxUlpduLength;
  }

  /**
   * Octets handed to the transport since Full Operation began, Markers included.
   *
   * @return octets handed to the transport since Full Operation began, Markers included
   */
  public long streamPosition() {
    return position;
  }

  /**
   * Whether an FPDU is open: {@link #beginFpdu} was called and {@link #endFpdu} not yet.
   *
   * @return whether an FPDU is open: {@link #beginFpdu} was called and {@link #endFpdu} not yet
   */
  public boolean isFpduOpen() {
    return open;
  }

  /**
   * Writes one FPDU whose ULPDU is the readable bytes of {@code header} followed by the readable
   * bytes of {@code payload} (may be null). Takes ownership of both buffers: each is released
   * once, after the socket has taken its bytes. Not flushed.
   *
   * @param header the ULPDU header
   * @param payload the payload
   * @throws IllegalArgumentException if the ULPDU is longer than {@link #maxUlpduLength()}
   * @throws IllegalStateException if an FPDU opened with {@link #beginFpdu} is still open
   */
  public void write(ByteBuf header, ByteBuf payload) {
    int payloadLength = payload == null ? 0 : payload.readableBytes();
    try {
      beginFpdu(header, payloadLength);
    } catch (RuntimeException e) {
      if (payload != null) {
        payload.release();
      }
      throw e;
    }
    if (payload != null) {
      addPayload(payload);
    }
    endFpdu();
  }

  /**
   * Opens an FPDU whose ULPDU is the readable bytes of {@code header} followed by
   * {@code payloadLength} octets that the caller adds with {@link #addPayload} before
   * {@link #endFpdu}. Writes the ULPDU_Length and the header at once. Takes ownership of
   * {@code header}.
   *
   * @param header the ULPDU header
   * @param payloadLength the payload octets that will follow
   * @throws IllegalArgumentException if the ULPDU would exceed {@link #maxUlpduLength()} or
   *     {@code payloadLength} is negative (the header is released)
   * @throws IllegalStateException if another FPDU is still open (the header is released)
   */
  public void beginFpdu(ByteBuf header, int payloadLength) {
    Objects.requireNonNull(header, "header");
    int headerLength = header.readableBytes();
    try {
      open(headerLength, payloadLength);
    } catch (RuntimeException e) {
      header.release();
      throw e;
    }
    if (batch != null) {
      beginInBatch(header, headerLength, payloadLength);
      return;
    }
    boolean leadingMarker = markers && MpaMarker.isMarkerPosition(position);
    int prefixLength = FpduHeader.ULPDU_LENGTH_SIZE + (leadingMarker ? MpaMarker.SIZE : 0);
    ByteBuf prefix = ctx.alloc().ioBuffer(prefixLength);
    if (leadingMarker) {
      // Due at the FPDU boundary: it belongs to this FPDU and points at its ULPDU_Length (§4.3).
      MpaMarker.write(prefix, 0);
    }
    lengthFieldPosition = position + (leadingMarker ? MpaMarker.SIZE : 0);
    prefix.writeShort(ulpduLength);
    if (crcOn) {
      crc.reset();
      // Octet by octet: cheaper than a buffer range for a field this small.
      if (leadingMarker) {
        crc.update(ZERO_MARKER, 0, MpaMarker.SIZE);
      }
      crc.update(ulpduLength >>> 8);
      crc.update(ulpduLength);
    }
    position += prefixLength;
    ctx.write(prefix, voidPromise);
    emit(header);
  }

  /**
   * Opens an FPDU like {@link #beginFpdu(ByteBuf, int)}, but the caller writes the
   * {@code headerLength} octets of ULPDU header itself, straight into the returned buffer at its
   * writer index, before any other call to this framer (no header buffer, no copy). Returns null,
   * opening nothing, when this framer cannot take a header in place (Markers on): the caller then
   * uses {@link #beginFpdu(ByteBuf, int)}.
   *
   * @param headerLength the ULPDU header octets the caller writes next
   * @param payloadLength the payload octets that will follow
   * @return the buffer to write the header into, or null
   * @throws IllegalArgumentException as {@link #beginFpdu(ByteBuf, int)}
   * @throws IllegalStateException as {@link #beginFpdu(ByteBuf, int)}
   */
  public ByteBuf beginFpduInPlace(int headerLength, int payloadLength) {
    if (batch == null) {
      return null;
    }
    open(headerLength, payloadLength);
    ByteBuf out = openInBatch(headerLength, payloadLength);
    headerInPlace = out;
    headerInPlaceIndex = out.writerIndex();
    return out;
  }

  /** Checks the FPDU's sizes and opens it (nothing is written yet). */
  private void open(int headerLength, int payloadLength) {
    if (open) {
      throw new IllegalStateException("beginFpdu while an FPDU with a ULPDU of " + ulpduLength
          + " octets is still open (" + payloadAdded + " of " + payloadExpected
          + " payload octets added): call endFpdu first");
    }
    if (headerLength < 0 || payloadLength < 0
        || (long) headerLength + payloadLength > maxUlpduLength) {
      throw new IllegalArgumentException("ULPDU of " + ((long) headerLength + payloadLength)
          + " octets (header " + headerLength + " + payload " + payloadLength
          + ") is outside 0.." + maxUlpduLength + " (MULPDU)");
    }
    open = true;
    ulpduLength = headerLength + payloadLength;
    payloadExpected = payloadLength;
    payloadAdded = 0;
  }

  /** Without Markers: ULPDU_Length and header go into the batch (the header is given back). */
  private void beginInBatch(ByteBuf header, int headerLength, int payloadLength) {
    ByteBuf out;
    try {
      out = openInBatch(headerLength, payloadLength);
      out.writeBytes(header, header.readerIndex(), headerLength);
    } finally {
      header.release();
    }
    headerWritten(out, out.writerIndex() - headerLength, headerLength);
  }

  /**
   * Reserves the whole FPDU in the batch (all of it, or up to the payload when the payload goes
   * zero-copy) and writes ULPDU_Length; the header goes next.
   */
  private ByteBuf openInBatch(int headerLength, int payloadLength) {
    inline = payloadLength <= INLINE_THRESHOLD;
    int room = FpduHeader.ULPDU_LENGTH_SIZE + headerLength + (inline ? payloadLength : 0)
        + MAX_PAD + FpduHeader.CRC_SIZE;
    ByteBuf out = batch.reserve(room);
    out.writeShort(ulpduLength);
    if (crcOn) {
      crc.reset();
      crc.update(ulpduLength >>> 8);
      crc.update(ulpduLength);
    }
    lengthFieldPosition = position;
    position += FpduHeader.ULPDU_LENGTH_SIZE;
    return out;
  }

  /** The header is in the batch at {@code index}: covers it with the CRC. */
  private void headerWritten(ByteBuf out, int index, int headerLength) {
    if (crcOn) {
      Crc32c.update(crc, out, index, headerLength, crcScratch);
    }
    position += headerLength;
    if (!inline) {
      batch.writePending(); // the zero-copy payload follows in buffers of its own
    }
  }

  /** Accounts for a header written in place, before the FPDU goes on (no-op otherwise). */
  private void takeHeaderInPlace() {
    ByteBuf out = headerInPlace;
    if (out == null) {
      return;
    }
    headerInPlace = null;
    int headerLength = ulpduLength - payloadExpected;
    int written = out.writerIndex() - headerInPlaceIndex;
    if (written != headerLength) {
      open = false;
      throw new IllegalStateException(written + " header octets were written in place, not the "
          + headerLength + " announced in beginFpduInPlace");
    }
    headerWritten(out, headerInPlaceIndex, headerLength);
  }

  /**
   * Adds {@code length} octets of {@code source} from absolute index {@code index} to the payload
   * of the open FPDU: copied into the outgoing buffer when the FPDU's payload is at most
   * {@link #INLINE_THRESHOLD} octets and Markers are off, else written as a retained slice (zero
   * copy). {@code source} stays the caller's; a slice is released after the transport took it.
   *
   * @param source the buffer holding the octets
   * @param index where they start
   * @param length how many
   * @throws IllegalStateException as {@link #addPayload(ByteBuf)}
   */
  public void addPayload(ByteBuf source, int index, int length) {
    takeHeaderInPlace();
    if (open && inline && batch != null) {
      if (length > payloadExpected - payloadAdded) {
        throw new IllegalStateException("payload piece of " + length + " octets would make "
            + ((long) payloadAdded + length) + " payload octets, more than the "
            + payloadExpected + " announced in beginFpdu");
      }
      copyIntoBatch(source, index, length);
      return;
    }
    addPayload(source.retainedSlice(index, length));
  }

  private void copyIntoBatch(ByteBuf source, int index, int length) {
    // reserve() at beginFpdu made room for the whole payload: this never changes buffers.
    batch.reserve(length).writeBytes(source, index, length);
    updateCrc(source, index, length);
    payloadAdded += length;
    position += length;
    if (CopyCounters.ENABLED) {
      CopyCounters.sendInlined(length);
    }
  }

  /**
   * Adds the readable bytes of {@code piece} to the payload of the open FPDU and writes them.
   * Takes ownership of {@code piece}.
   *
   * @param piece a payload piece
   * @throws IllegalStateException if no FPDU is open, or the pieces would exceed the payload
   *     length announced in {@link #beginFpdu} (the piece is released; the FPDU stays open)
   */
  public void addPayload(ByteBuf piece) {
    Objects.requireNonNull(piece, "piece");
    try {
      takeHeaderInPlace();
    } catch (RuntimeException e) {
      piece.release();
      throw e;
    }
    if (!open) {
      piece.release();
      throw new IllegalStateException("addPayload without an open FPDU: call beginFpdu first");
    }
    int n = piece.readableBytes();
    if (n > payloadExpected - payloadAdded) {
      piece.release();
      throw new IllegalStateException("payload piece of " + n + " octets would make "
          + ((long) payloadAdded + n) + " payload octets, more than the " + payloadExpected
          + " announced in beginFpdu");
    }
    if (inline && batch != null) {
      try {
        copyIntoBatch(piece, piece.readerIndex(), n);
      } finally {
        piece.release();
      }
      return;
    }
    payloadAdded += n;
    if (CopyCounters.ENABLED && !piece.isDirect()) {
      // Netty's socket channels copy heap buffers into direct memory before writing them.
      CopyCounters.sendCopied(n);
    }
    emit(piece);
  }

  /**
   * Closes the open FPDU: writes PAD, a Marker if one is due before the CRC, and the CRC.
   *
   * @throws IllegalStateException if no FPDU is open, or fewer payload octets were added than
   *     announced (the FPDU stays open so the rest can still be added)
   */
  public void endFpdu() {
    takeHeaderInPlace();
    if (!open) {
      throw new IllegalStateException("endFpdu without an open FPDU: call beginFpdu first");
    }
    if (payloadAdded != payloadExpected) {
      throw new IllegalStateException("endFpdu after " + payloadAdded + " of the "
          + payloadExpected + " payload octets announced in beginFpdu");
    }
    int pad = FpduHeader.padLength(ulpduLength);
    if (batch != null) {
      endInBatch(pad);
      return;
    }
    // FPDUs are multiples of 4 and the Marker grid is anchored at an FPDU start, so a Marker
    // never falls inside PAD: it can only be due once PAD is done, right before the CRC.
    boolean markerBeforeCrc = markers && MpaMarker.isMarkerPosition(position + pad);
    int covered = pad + (markerBeforeCrc ? MpaMarker.SIZE : 0);
    ByteBuf trailer = trailers.acquire();
    for (int i = 0; i < pad; i++) {
      trailer.writeByte(0);
    }
    if (markerBeforeCrc) {
      MpaMarker.write(trailer, (int) (position + pad - lengthFieldPosition));
    }
    int crcValue = 0;
    if (crcOn) {
      for (int i = 0; i < covered; i++) {
        crc.update(trailer.getByte(trailer.readerIndex() + i));
      }
      crcValue = (int) crc.getValue();
    }
    FpduHeader.writeCrc(trailer, crcValue);
    position += covered + FpduHeader.CRC_SIZE;
    open = false;
    ctx.write(trailer, voidPromise);
  }

  private void endInBatch(int pad) {
    ByteBuf out = batch.reserve(pad + FpduHeader.CRC_SIZE);
    int crcValue = 0;
    if (crcOn) {
      for (int i = 0; i < pad; i++) {
        crc.update(0);
      }
      crcValue = (int) crc.getValue();
    }
    out.writeZero(pad);
    FpduHeader.writeCrc(out, crcValue);
    position += pad + FpduHeader.CRC_SIZE;
    open = false;
    if (batch.isClosed()) {
      batch.release(); // nothing will flush it any more: let the close drop it now
    }
  }

  /**
   * Writes the FPDUs gathered so far to the channel, not flushed: call it before writing anything
   * to the channel other than through this framer, so that it follows them.
   */
  public void writePending() {
    if (batch != null) {
      batch.writePending();
    }
  }

  /** Flushes everything written so far. */
  public void flush() {
    if (batch != null) {
      batch.release();
    }
    ctx.flush();
  }

  /** Writes the readable bytes of {@code buf} as ULPDU octets, splitting it around Markers. */
  private void emit(ByteBuf buf) {
    int index = buf.readerIndex();
    int remaining = buf.readableBytes();
    if (markers) {
      while (remaining > 0) {
        int toMarker = MpaMarker.octetsToNextMarker(position);
        if (toMarker == 0) {
          writeMarker();
          continue;
        }
        if (remaining <= toMarker) {
          // The rest fits before the next Marker; one due right after it is left to whatever
          // comes next (more ULPDU octets, or the trailer).
          break;
        }
        // The slice keeps buf alive until this part is written; buf itself goes out last.
        ByteBuf part = buf.retainedSlice(index, toMarker);
        updateCrc(buf, index, toMarker);
        position += toMarker;
        index += toMarker;
        remaining -= toMarker;
        ctx.write(part, voidPromise);
      }
      buf.readerIndex(index);
    }
    updateCrc(buf, index, remaining);
    position += remaining;
    ctx.write(buf, voidPromise);
  }

  private void writeMarker() {
    ByteBuf marker = ctx.alloc().ioBuffer(MpaMarker.SIZE);
    MpaMarker.write(marker, (int) (position - lengthFieldPosition));
    if (crcOn) {
      // Octet by octet, like the trailer: a tiny pooled buffer may have no cached NIO view, and
      // creating one per Marker would allocate ~128 times per 64 KiB.
      for (int i = 0; i < MpaMarker.SIZE; i++) {
        crc.update(marker.getByte(marker.readerIndex() + i));
      }
    }
    position += MpaMarker.SIZE;
    ctx.write(marker, voidPromise);
  }

  private void updateCrc(ByteBuf buf, int index, int length) {
    if (crcOn) {
      Crc32c.update(crc, buf, index, length, crcScratch);
    }
  }
}
