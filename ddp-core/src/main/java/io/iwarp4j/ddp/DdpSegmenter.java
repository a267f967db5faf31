package io.iwarp4j.ddp;

import io.iwarp4j.mpa.SmallBufferRing;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Data Source side of one DDP Stream (RFC 5041 §5.2, §5.3): cuts each outgoing message into
 * self-describing segments of at most MULPDU octets and hands them to a {@link SegmentWriter}
 * in order, keeping the per-queue Message Sequence Numbers of untagged messages.
 *
 * <ul>
 *   <li>Payload per segment: MULPDU - 14 (tagged) or MULPDU - 18 (untagged), less the RDMAP header
 *       in the first segment of an untagged message that has one.
 *   <li>L=1 on the last segment only, which is written last; a zero-length message is one segment.
 *   <li>Tagged: TO = starting TO + offset of the segment's first payload octet in the message.
 *   <li>Untagged: MO = that offset (an RDMAP header counts as the message's first octets, since
 *       to DDP it is ULP payload); MSN starts at 1 per queue and grows by 1 per message, mod 2^32.
 *   <li>Message length (RDMAP header + payload) &lt; 2^32.
 * </ul>
 *
 * <p>Zero copy above the writer's inline threshold: payload pieces are handed to the writer as
 * ranges of the gather list's buffers ({@link SegmentWriter#addPayload(ByteBuf, int, int)}), which
 * it copies (small ones) or keeps as retained slices of the gather
 * list's buffers, so the sender's buffers stay owned by the sender and each piece is released
 * once by the writer. Headers come from the allocator (pooled in production), so the steady state
 * creates no garbage beyond Netty's recycled slice objects.
 *
 * <p>Event-loop confined: one instance per stream, no locks. Arguments are validated before the
 * first segment is written, so a rejected call writes nothing.
 */
public final class DdpSegmenter {
  /** Untagged queues this segmenter numbers: 0..3 (RDMAP QN 0-2, RFC 7306 QN 3). */
  public static final int QUEUE_COUNT = OpcodeTable.QUEUE_COUNT;
  /** The largest message length: 2^32 - 1 octets. */
  public static final long MAX_MESSAGE_LENGTH = 0xFFFF_FFFFL;

  private static final Logger log = LoggerFactory.getLogger(DdpSegmenter.class);

  private final SegmentWriter writer;
  private final ByteBufAllocator alloc;
  private final SmallBufferRing headers;
  private final int[] nextMsn = new int[QUEUE_COUNT];
  private final boolean[] queueUsed = new boolean[QUEUE_COUNT];

  // Cursor over the gather list of the message being cut; fields, so cutting allocates nothing.
  private Gather source;
  private int entry;
  private int entryOffset;
  /** Whether the header being written went straight into the writer (see {@link #header}). */
  private boolean headerInPlace;

  /**
   * @param writer where segments go
   * @param alloc allocates the header buffers
   */
  public DdpSegmenter(SegmentWriter writer, ByteBufAllocator alloc) {
    this(writer, alloc, null);
  }

  /**
   * @param writer where segments go
   * @param alloc allocates the header buffers the ring cannot serve
   * @param headers reusable header buffers (a connection's), or null to allocate every header
   *     from {@code alloc}
   */
  public DdpSegmenter(SegmentWriter writer, ByteBufAllocator alloc, SmallBufferRing headers) {
    if (writer == null || alloc == null) {
      throw new NullPointerException(writer == null ? "writer" : "alloc");
    }
    this.writer = writer;
    this.alloc = alloc;
    this.headers = headers;
    Arrays.fill(nextMsn, 1);
  }

  /**
   * The MSN the next untagged message on {@code qn} will carry.
   *
   * @param qn the queue number
   * @return the MSN the next untagged message on {@code qn} will carry
   */
  public int nextMsn(int qn) {
    checkQueue(qn);
    return nextMsn[qn];
  }

  /**
   * Starts queue {@code qn} at MSN 2: for a queue whose MSN 1 was consumed by an RFC 6581
   * Ready-to-Receive message sent outside this segmenter. Only before the queue's first message.
   *
   * @param qn the queue number
   * @throws IllegalStateException if a message was already sent on the queue
   */
  public void startAtMsn2(int qn) {
    checkQueue(qn);
    if (queueUsed[qn]) {
      throw new IllegalStateException("queue " + qn + " is already in use (next MSN "
          + Integer.toUnsignedString(nextMsn[qn]) + "); it can start at MSN 2 only before its"
          + " first message");
    }
    queueUsed[qn] = true;
    nextMsn[qn] = 2;
  }

  /**
   * Test seam: starts queue {@code qn} at {@code msn}, so a test reaches the wrap from
   * 0xFFFFFFFF to 0 (RFC 5041 §4.3) in a few messages. Only before the queue's first message.
   */
  void startAtMsn(int qn, int msn) {
    checkQueue(qn);
    if (queueUsed[qn]) {
      throw new IllegalStateException("queue " + qn + " is already in use");
    }
    queueUsed[qn] = true;
    nextMsn[qn] = msn;
  }

  /**
   * Sends one tagged message (RDMA Write, RDMA Read Response).
   *
   * @param rsvdUlp the ULP's octet (RDMAP control field), 0..255, identical in every segment
   * @param stag the Data Sink's STag
   * @param to the Tagged Offset of the message's first octet (unsigned)
   * @param payload the message octets; null or empty for a zero-length message
   * @throws IllegalArgumentException if a field is out of range, the message is 2^32 octets or
   *     longer, or TO + length passes 2^64
   * @throws IllegalStateException if MULPDU leaves no room for payload
   */
  public void sendTagged(int rsvdUlp, int stag, long to, Gather payload) {
    if ((rsvdUlp & ~0xFF) != 0) {
      throw new IllegalArgumentException("tagged RsvdULP is one octet, got " + rsvdUlp);
    }
    long total = checkPayload(payload, 0);
    if (total > 0 && Long.compareUnsigned(to + total - 1, to) < 0) {
      throw new IllegalArgumentException("TO 0x" + Long.toHexString(to) + " + length " + total
          + " wraps past 2^64");
    }
    checkRoom(TaggedHeader.LENGTH, total);
    if (log.isDebugEnabled()) {
      log.debug("tagged message: rsvdUlp=0x{} stag=0x{} to=0x{} length={}",
          Integer.toHexString(rsvdUlp), Integer.toHexString(stag), Long.toHexString(to), total);
    }
    startCursor(payload);
    long sent = 0;
    do {
      int room = writer.maxUlpduLength() - TaggedHeader.LENGTH;
      if (room < 0 || (room == 0 && sent < total)) {
        throw lowerLayerShrank(TaggedHeader.LENGTH);
      }
      int n = (int) Math.min(total - sent, room);
      boolean last = sent + n == total;
      ByteBuf header = header(TaggedHeader.LENGTH, n);
      TaggedHeader.write(header, last, rsvdUlp, stag, to + sent);
      emit(header, n);
      sent += n;
    } while (sent < total);
    source = null;
  }

  /**
   * Sends one untagged message (the Send variants, Read Request, Terminate, RFC 7306 messages)
   * on queue {@code qn} with that queue's next MSN.
   *
   * @param rsvdUlp40 the ULP's 40 bits (RDMAP: control octet, then the 32-bit Invalidate STag),
   *     identical in every segment
   * @param qn the queue number, 0..3
   * @param rdmapHeader an upper-layer header that must travel whole at the start of the first
   *     segment (its readable octets are copied into the header buffer; the caller keeps
   *     ownership and its indexes do not move); null for none
   * @param payload the rest of the message; null or empty for none
   * @return the MSN the message was sent with
   * @throws IllegalArgumentException if a field is out of range or the message (RDMAP header +
   *     payload) is 2^32 octets or longer
   * @throws IllegalStateException if MULPDU cannot hold the header(s)
   */
  public int sendUntagged(long rsvdUlp40, int qn, ByteBuf rdmapHeader, Gather payload) {
    if ((rsvdUlp40 & ~UntaggedHeader.RSVD_ULP_MAX) != 0) {
      throw new IllegalArgumentException(
          "untagged RsvdULP is 40 bits, got 0x" + Long.toHexString(rsvdUlp40));
    }
    checkQueue(qn);
    if (rdmapHeader != null && rdmapHeader.refCnt() == 0) {
      throw new IllegalArgumentException("the RDMAP header is a released buffer");
    }
    int rdmapLength = rdmapHeader == null ? 0 : rdmapHeader.readableBytes();
    long total = checkPayload(payload, rdmapLength);
    checkRoom(UntaggedHeader.LENGTH + rdmapLength, 0);
    checkRoom(UntaggedHeader.LENGTH, total);
    // Consumed before the first segment leaves: should the writer fail mid-message, the peer may
    // have seen part of this MSN, so it must never be reused.
    int msn = nextMsn[qn];
    nextMsn[qn] = msn + 1; // wraps from 0xFFFFFFFF to 0, as RFC 5041 §4.3 requires
    queueUsed[qn] = true;
    if (log.isDebugEnabled()) {
      log.debug("untagged message: qn={} msn={} rsvdUlp=0x{} length={}", qn,
          Integer.toUnsignedString(msn), Long.toHexString(rsvdUlp40), rdmapLength + total);
    }
    startCursor(payload);
    long sent = 0;
    int mo = 0;
    boolean first = true;
    do {
      int headerLength = UntaggedHeader.LENGTH + (first ? rdmapLength : 0);
      int room = writer.maxUlpduLength() - headerLength;
      // An empty segment is fine only for a zero-length message or one carrying the RDMAP header.
      if (room < 0 || (room == 0 && sent < total && headerLength == UntaggedHeader.LENGTH)) {
        throw lowerLayerShrank(headerLength);
      }
      int n = (int) Math.min(total - sent, room);
      boolean last = sent + n == total;
      ByteBuf header = header(headerLength, n);
      UntaggedHeader.write(header, last, rsvdUlp40, qn, msn, mo);
      if (first && rdmapLength > 0) {
        header.writeBytes(rdmapHeader, rdmapHeader.readerIndex(), rdmapLength);
      }
      emit(header, n);
      mo += headerLength - UntaggedHeader.LENGTH + n;
      sent += n;
      first = false;
    } while (sent < total);
    source = null;
    return msn;
  }

  /**
   * Where the next segment's {@code length} header octets go: straight into the writer's
   * outgoing buffer when it takes them in place (the segment is then started; no header buffer,
   * no copy), else an empty header buffer from the connection's ring when it has one, for
   * {@link #emit} to hand over.
   */
  private ByteBuf header(int length, int payloadLength) {
    ByteBuf inPlace = writer.beginSegmentInPlace(length, payloadLength);
    headerInPlace = inPlace != null;
    if (headerInPlace) {
      return inPlace;
    }
    return headers != null && length <= headers.capacity() ? headers.acquire()
        : alloc.ioBuffer(length);
  }

  private static void checkQueue(int qn) {
    if (qn < 0 || qn >= QUEUE_COUNT) {
      throw new IllegalArgumentException("queue number " + qn + " outside 0.." + (QUEUE_COUNT - 1));
    }
  }

  /** Validates the gather list up front and returns its length. */
  private static long checkPayload(Gather payload, int rdmapLength) {
    long total = payload == null ? 0 : payload.totalLength();
    if (rdmapLength + total > MAX_MESSAGE_LENGTH) {
      throw new IllegalArgumentException("message length " + (rdmapLength + total)
          + " is not below 2^32 (RFC 5041 §5.2)");
    }
    if (payload != null) {
      // Not a lifetime check (the caller's pins keep registered memory): a released piece the
      // framer found later would leave a half-written FPDU. See "Memory lifetime" in the docs.
      for (int i = 0; i < payload.size(); i++) {
        if (payload.length(i) > 0 && payload.buffer(i).refCnt() == 0) {
          throw new IllegalArgumentException("gather entry " + i + " is a released buffer");
        }
      }
    }
    return total;
  }

  /** Checks that a segment with {@code headerLength} header octets fits, with room for payload. */
  private void checkRoom(int headerLength, long payloadLength) {
    int mulpdu = writer.maxUlpduLength();
    if (mulpdu < headerLength || (payloadLength > 0 && mulpdu == headerLength)) {
      throw new IllegalStateException("MULPDU " + mulpdu + " leaves no room for a "
          + headerLength + "-octet header" + (payloadLength > 0 ? " and payload" : ""));
    }
  }

  private IllegalStateException lowerLayerShrank(int headerLength) {
    return new IllegalStateException("MULPDU dropped to " + writer.maxUlpduLength()
        + " in the middle of a message; no room after a " + headerLength + "-octet header");
  }

  private void startCursor(Gather payload) {
    source = payload;
    entry = 0;
    entryOffset = 0;
  }

  /**
   * Writes one segment whose header was just written into {@code header}: starts it (unless
   * the header went in place, where it is already started), then {@code n} payload octets from
   * the cursor, and ends it.
   */
  private void emit(ByteBuf header, int n) {
    if (!headerInPlace) {
      writer.beginSegment(header, n);
    }
    while (n > 0) {
      int available = source.length(entry) - entryOffset;
      if (available == 0) {
        entry++;
        entryOffset = 0;
        continue;
      }
      int take = Math.min(available, n);
      writer.addPayload(source.buffer(entry), source.index(entry) + entryOffset, take);
      entryOffset += take;
      n -= take;
    }
    writer.endSegment();
  }
}
