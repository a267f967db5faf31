package io.iwarp4j.ddp;

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
 * <p>A posted buffer is a region of a {@link ByteBuf} plus an opaque {@code long} id. The queue
 * neither retains nor releases the buffer: its owner (registered memory) keeps it alive until its
 * id is delivered or {@link #drain drained}. The ring is bounded and preallocated; nothing is
 * allocated per post or per segment. Event-loop confined: the dispatcher and the poster share
 * one thread.
 */
public final class UntaggedReceiveQueue {
  private final ByteBuf[] targets;
  private final int[] targetIndexes;
  private final int[] targetLengths;
  private final long[] ids;
  private int head;
  private int count;

  private int expectedMsn = 1;
  private boolean started;
  private boolean inProgress;
  /** Octets placed so far for the message in progress. */
  private int received;

  /**
   * @param capacity the most buffers that can be posted and not yet consumed
   */
  public UntaggedReceiveQueue(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("receive queue capacity " + capacity + " is not positive");
    }
    targets = new ByteBuf[capacity];
    targetIndexes = new int[capacity];
    targetLengths = new int[capacity];
    ids = new long[capacity];
  }

  /**
   * Posts a receive buffer: the next message on this queue not yet assigned a buffer is placed
   * into {@code target[index, index + length)}.
   *
   * @param id returned on delivery, so the poster can tell which buffer was consumed
   * @throws IllegalStateException if the queue is full
   * @throws IndexOutOfBoundsException if the region is not inside the buffer's capacity
   */
  public void post(ByteBuf target, int index, int length, long id) {
    if (target == null) {
      throw new NullPointerException("target");
    }
    if (index < 0 || length < 0 || index > target.capacity() - length) {
      throw new IndexOutOfBoundsException("receive region [" + index + ", " + index + "+" + length
          + ") outside buffer capacity " + target.capacity());
    }
    if (count == targets.length) {
      throw new IllegalStateException("receive queue full: " + count + " buffers posted");
    }
    int slot = slot(count);
    targets[slot] = target;
    targetIndexes[slot] = index;
    targetLengths[slot] = length;
    ids[slot] = id;
    count++;
  }

  private int slot(int position) {
    int s = head + position;
    return s >= targets.length ? s - targets.length : s;
  }

  /** The most buffers the queue holds. */
  public int capacity() {
    return targets.length;
  }

  /** Buffers posted and not yet consumed (including the one a message in progress fills). */
  public int postedCount() {
    return count;
  }

  /** The MSN the next segment must carry: the message in progress's, or the next message's. */
  public int expectedMsn() {
    return expectedMsn;
  }

  /** Whether a message has been partly placed and its L=1 segment has not arrived yet. */
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
   * Removes every posted buffer, oldest first, handing each id to {@code sink} (to complete the
   * receives in error when the stream goes down), and forgets any message in progress.
   *
   * @return how many buffers were drained
   */
  public int drain(LongConsumer sink) {
    int n = count;
    while (count > 0) {
      long id = ids[head];
      targets[head] = null;
      head = slot(1);
      count--;
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
    if ((long) received + payloadLength > targetLengths[head]) {
      return DdpError.MESSAGE_TOO_LONG;
    }
    return null;
  }

  /**
   * Places a validated segment's payload after the octets already received: the one copy, from
   * the socket buffers straight into the posted buffer.
   */
  void place(Ulpdu segment, int payloadIndex, int payloadLength) {
    started = true;
    inProgress = true;
    if (payloadLength > 0) {
      segment.getBytes(payloadIndex, targets[head], targetIndexes[head] + received, payloadLength);
      received += payloadLength;
    }
  }

  /** Octets placed so far for the message in progress: its length once the L=1 segment is in. */
  int receivedLength() {
    return received;
  }

  /** Ends the message in progress: consumes its buffer, advances the MSN, returns the id. */
  long complete() {
    long id = ids[head];
    targets[head] = null;
    head = slot(1);
    count--;
    expectedMsn++; // wraps from 0xFFFFFFFF to 0, as RFC 5041 §4.3 requires
    inProgress = false;
    received = 0;
    return id;
  }
}
