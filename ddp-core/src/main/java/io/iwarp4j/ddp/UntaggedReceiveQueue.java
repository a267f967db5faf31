package io.iwarp4j.ddp;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import java.util.function.LongConsumer;

/**
 * One untagged queue (one QN) of a DDP Stream at the Data Sink (RFC 5041 §5.1, §7.1): the
 * buffers the upper layer posted, consumed one per message in posting order, and the receive
 * progress that decides which segment is legal next.
 *
 * <p>Over an in-order transport the legal MSN window is one value: the expected MSN, which is
 * the MSN of the message in progress until its L=1 segment arrives, then that MSN + 1 (mod 2^32).
 * The message in progress owns the oldest posted buffer; its segments must continue exactly where
 * the previous one ended (MO = octets received so far) and stay inside the buffer.
 *
 * <p>A posted buffer is a scatter list of up to {@code maxPieces} regions of {@link ByteBuf}s
 * (like the SGEs of a verbs receive), filled in order, plus an opaque {@code long} id. The queue
 * neither retains nor releases the buffers. A piece that is a view of registered memory
 * ({@link io.iwarp4j.ddp.mem.MemoryRegion#receiveView}) is pinned around each copy into it, so a
 * region deregistered while its buffer waits is never written ({@link #place} returns false);
 * any other buffer must stay alive until the id is delivered or {@link #drain drained}. The
 * ring is bounded by {@code capacity} posts of {@code maxPieces} pieces; it starts with room for
 * {@value #INITIAL_SLOTS} posts and doubles when a post finds it full (at most log2(capacity / 8)
 * times over the queue's life), so an idle queue pair does not carry arrays sized by its caps
 * and a busy one stops allocating once it reached its working depth: nothing is allocated per
 * post or per segment in steady state. Event-loop confined: the dispatcher and the poster share
 * one thread.
 */
public final class UntaggedReceiveQueue {
  /** Posts the arrays hold at first; they double up to the capacity as posts need. */
  static final int INITIAL_SLOTS = 8;

  private final int maxPieces;
  private final int capacity;
  /** Piece {@code p} of slot {@code s} lives at index {@code s * maxPieces + p}. */
  private ByteBuf[] pieceBuffers;
  private int[] pieceIndexes;
  private int[] pieceLengths;
  private int[] slotPieces;
  private int[] slotLengths;
  private long[] ids;
  private int head;
  private int count;

  private int expectedMsn = 1;
  private boolean started;
  private boolean inProgress;
  /** Octets placed so far for the message in progress. */
  private int received;
  /** Where the next octet of the message in progress goes: piece of the head slot, offset in it. */
  private int cursorPiece;
  private int cursorOffset;
  private long placedOctets;

  /**
   * A queue whose posted buffers are single regions.
   *
   * @param capacity the most buffers that can be posted and not yet consumed
   */
  public UntaggedReceiveQueue(int capacity) {
    this(capacity, 1);
  }

  /**
   * @param capacity the most buffers that can be posted and not yet consumed
   * @param maxPieces the most regions one posted buffer may have (its scatter list length)
   */
  public UntaggedReceiveQueue(int capacity, int maxPieces) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("receive queue capacity " + capacity + " is not positive");
    }
    if (maxPieces <= 0) {
      throw new IllegalArgumentException("receive queue maxPieces " + maxPieces
          + " is not positive");
    }
    if ((long) capacity * maxPieces > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("receive queue of " + capacity + " buffers of "
          + maxPieces + " pieces is too large");
    }
    this.maxPieces = maxPieces;
    this.capacity = capacity;
    allocate(Math.min(capacity, INITIAL_SLOTS));
  }

  private void allocate(int slots) {
    int n = slots * maxPieces;
    pieceBuffers = new ByteBuf[n];
    pieceIndexes = new int[n];
    pieceLengths = new int[n];
    slotPieces = new int[slots];
    slotLengths = new int[slots];
    ids = new long[slots];
  }

  /** Doubles the arrays (up to the capacity), moving the posted buffers to slots 0..count-1. */
  private void grow() {
    ByteBuf[] oldBuffers = pieceBuffers;
    int[] oldIndexes = pieceIndexes;
    int[] oldLengths = pieceLengths;
    int[] oldSlotPieces = slotPieces;
    int[] oldSlotLengths = slotLengths;
    long[] oldIds = ids;
    int oldSlots = oldIds.length;
    allocate((int) Math.min(capacity, 2L * oldSlots));
    for (int i = 0; i < count; i++) {
      int from = head + i >= oldSlots ? head + i - oldSlots : head + i;
      System.arraycopy(oldBuffers, from * maxPieces, pieceBuffers, i * maxPieces, maxPieces);
      System.arraycopy(oldIndexes, from * maxPieces, pieceIndexes, i * maxPieces, maxPieces);
      System.arraycopy(oldLengths, from * maxPieces, pieceLengths, i * maxPieces, maxPieces);
      slotPieces[i] = oldSlotPieces[from];
      slotLengths[i] = oldSlotLengths[from];
      ids[i] = oldIds[from];
    }
    head = 0; // the message in progress keeps its cursor: it is relative to the head slot
  }

  /**
   * Posts a receive buffer of one region: the next message on this queue not yet assigned a
   * buffer is placed into {@code target[index, index + length)}.
   *
   * @param target the buffer to receive into
   * @param index the first octet of {@code target} to use
   * @param length the number of octets
   * @param id returned on delivery, so the poster can tell which buffer was consumed
   * @throws IllegalStateException if the queue is full
   * @throws IndexOutOfBoundsException if the region is not inside the buffer's capacity
   */
  public void post(ByteBuf target, int index, int length, long id) {
    if (target == null) {
      throw new NullPointerException("target");
    }
    checkRegion(target, index, length);
    checkNotFull();
    int slot = slot(count);
    int base = slot * maxPieces;
    pieceBuffers[base] = target;
    pieceIndexes[base] = index;
    pieceLengths[base] = length;
    slotPieces[slot] = 1;
    slotLengths[slot] = length;
    ids[slot] = id;
    count++;
  }

  /**
   * Posts a receive buffer made of the regions of {@code scatter}, filled in list order. The
   * entries are copied into the queue, so the caller may clear and reuse the list at once; the
   * buffers themselves must stay alive until the id is delivered or drained. An empty list posts
   * a zero-length buffer (only a zero-length message fits it).
   *
   * @param scatter the buffer pieces to receive into, in order
   * @param id returned on delivery, so the poster can tell which buffer was consumed
   * @throws IllegalStateException if the queue is full
   * @throws IllegalArgumentException if the list has more than {@code maxPieces} entries or
   *     more than 2^31 - 1 octets
   * @throws IndexOutOfBoundsException if a region is not inside its buffer's capacity
   */
  public void post(GatherList scatter, long id) {
    if (scatter == null) {
      throw new NullPointerException("scatter");
    }
    int n = scatter.size();
    if (n > maxPieces) {
      throw new IllegalArgumentException("scatter list of " + n + " pieces; this queue takes at"
          + " most " + maxPieces + " per posted buffer");
    }
    if (scatter.totalLength() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("scatter list of " + scatter.totalLength()
          + " octets; a posted buffer holds at most " + Integer.MAX_VALUE);
    }
    for (int i = 0; i < n; i++) {
      checkRegion(scatter.buffer(i), scatter.index(i), scatter.length(i));
    }
    checkNotFull();
    int slot = slot(count);
    int base = slot * maxPieces;
    for (int i = 0; i < n; i++) {
      pieceBuffers[base + i] = scatter.buffer(i);
      pieceIndexes[base + i] = scatter.index(i);
      pieceLengths[base + i] = scatter.length(i);
    }
    slotPieces[slot] = n;
    slotLengths[slot] = (int) scatter.totalLength();
    ids[slot] = id;
    count++;
  }

  private static void checkRegion(ByteBuf target, int index, int length) {
    if (index < 0 || length < 0 || index > target.capacity() - length) {
      throw new IndexOutOfBoundsException("receive region [" + index + ", " + index + "+" + length
          + ") outside buffer capacity " + target.capacity());
    }
  }

  private void checkNotFull() {
    if (count == ids.length) {
      if (count == capacity) {
        throw new IllegalStateException("receive queue full: " + count + " buffers posted");
      }
      grow();
    }
  }

  private int slot(int position) {
    int s = head + position;
    return s >= ids.length ? s - ids.length : s;
  }

  /**
   * The most buffers the queue holds.
   *
   * @return the most buffers the queue holds
   */
  public int capacity() {
    return capacity;
  }

  /**
   * The most regions one posted buffer may have.
   *
   * @return the most regions one posted buffer may have
   */
  public int maxPieces() {
    return maxPieces;
  }

  /**
   * Payload octets this queue has placed into posted buffers so far: a debug counter to show
   * that each received payload octet is copied exactly once.
   *
   * @return the number of payload octets this queue has placed into posted buffers so far: a debug
   *     counter to show that each received payload octet is copied exactly once
   */
  public long placedOctets() {
    return placedOctets;
  }

  /**
   * Buffers posted and not yet consumed (including the one a message in progress fills).
   *
   * @return the number of buffers posted and not yet consumed (including the one a message in
   *     progress fills)
   */
  public int postedCount() {
    return count;
  }

  /**
   * The MSN the next segment must carry: the message in progress's, or the next message's.
   *
   * @return the MSN the next segment must carry: the message in progress's, or the next message's
   */
  public int expectedMsn() {
    return expectedMsn;
  }

  /**
   * Whether a message has been partly placed and its L=1 segment has not arrived yet.
   *
   * @return whether a message has been partly placed and its L=1 segment has not arrived yet
   */
  public boolean messageInProgress() {
    return inProgress;
  }

  /**
   * Expects MSN 2 as this queue's first message: MSN 1 was consumed by an RFC 6581
   * Ready-to-Receive message handled outside this queue. Only before the first message.
   *
   * @throws IllegalStateException if a message already arrived on the queue
   */
  public void startAtMsn2() {
    if (started) {
      throw new IllegalStateException("queue already expects MSN "
          + Integer.toUnsignedString(expectedMsn) + "; it can start at MSN 2 only before its first"
          + " message");
    }
    started = true;
    expectedMsn = 2;
  }

  /**
   * Test seam: expects {@code msn} as this queue's first message, so a test reaches the wrap
   * from 0xFFFFFFFF to 0 (RFC 5041 §4.3) in a few messages. Only before the first message.
   */
  void startAtMsn(int msn) {
    if (started) {
      throw new IllegalStateException("queue already expects MSN "
          + Integer.toUnsignedString(expectedMsn));
    }
    started = true;
    expectedMsn = msn;
  }

  /**
   * Removes every posted buffer, oldest first, handing each id to {@code sink} (to complete the
   * receives in error when the stream goes down), and forgets any message in progress.
   *
   * @param sink receives the id of each drained buffer
   * @return how many buffers were drained
   */
  public int drain(LongConsumer sink) {
    int n = count;
    while (count > 0) {
      long id = consumeHead();
      sink.accept(id);
    }
    inProgress = false;
    received = 0;
    return n;
  }

  /**
   * U2-U5 for a segment of this queue (RFC 5041 §7.1), without side effects.
   *
   * @param mo the segment's MO (unsigned)
   * @return null when the segment may be placed, else the Untagged Buffer error
   */
  DdpError validate(int msn, int mo, int payloadLength) {
    if (msn != expectedMsn) {
      return DdpError.INVALID_MSN_RANGE;
    }
    if (count == 0) {
      // Only possible for a new message: a message in progress holds the head buffer.
      return DdpError.INVALID_MSN_NO_BUFFER;
    }
    if (mo != received) {
      return DdpError.INVALID_MO;
    }
    if ((long) received + payloadLength > slotLengths[head]) {
      return DdpError.MESSAGE_TOO_LONG;
    }
    return null;
  }

  /**
   * Places a validated segment's payload after the octets already received: the one copy, from
   * the socket buffers straight into the posted buffer's regions. A piece of registered memory
   * ({@link MemoryRegion#receiveView}) is pinned around its copy: a posted buffer holds neither a
   * pin nor a reference while it waits, so its region may have been deregistered since.
   *
   * @return false when a piece's region was deregistered: nothing was written into that region
   *     (pieces before it may hold part of the segment); the message cannot complete
   */
  boolean place(Ulpdu segment, int payloadIndex, int payloadLength) {
    started = true;
    if (!inProgress) {
      inProgress = true;
      cursorPiece = 0;
      cursorOffset = 0;
    }
    int base = head * maxPieces;
    int src = payloadIndex;
    int remaining = payloadLength;
    while (remaining > 0) {
      int p = base + cursorPiece;
      int room = pieceLengths[p] - cursorOffset;
      if (room == 0) {
        cursorPiece++;
        cursorOffset = 0;
        continue;
      }
      int n = Math.min(room, remaining);
      ByteBuf piece = pieceBuffers[p];
      MemoryRegion region = MemoryRegion.regionOf(piece);
      if (region != null && !region.tryPin()) {
        return false;
      }
      try {
        segment.getBytes(src, piece, pieceIndexes[p] + cursorOffset, n);
      } finally {
        if (region != null) {
          region.unpin();
        }
      }
      cursorOffset += n;
      src += n;
      remaining -= n;
    }
    received += payloadLength;
    placedOctets += payloadLength;
    return true;
  }

  /**
   * The id of the oldest posted buffer (the one a message in progress fills).
   *
   * @throws IllegalStateException when nothing is posted
   */
  long headId() {
    if (count == 0) {
      throw new IllegalStateException("no buffer posted");
    }
    return ids[head];
  }

  /** Octets placed so far for the message in progress: its length once the L=1 segment is in. */
  int receivedLength() {
    return received;
  }

  /** Ends the message in progress: consumes its buffer, advances the MSN, returns the id. */
  long complete() {
    long id = consumeHead();
    expectedMsn++; // wraps from 0xFFFFFFFF to 0, as RFC 5041 §4.3 requires
    inProgress = false;
    received = 0;
    return id;
  }

  /** Removes the oldest posted buffer and returns its id. */
  private long consumeHead() {
    long id = ids[head];
    int base = head * maxPieces;
    for (int i = 0; i < slotPieces[head]; i++) {
      pieceBuffers[base + i] = null;
    }
    head = slot(1);
    count--;
    return id;
  }
}
