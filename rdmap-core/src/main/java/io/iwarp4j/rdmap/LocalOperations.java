package io.iwarp4j.rdmap;

/**
 * The operations this end issued (RDMA Writes, Sends, RDMA Reads) in issue order, each with the
 * condition that completes it, so that completions are reported in issue order (RFC 5040 §5.5
 * rule 15): a Write or Send is done once the transport took its last octet (rule 14: a
 * {@link TransportBarrier} after it was released), a Read once its Read Response was delivered
 * (rule 19). A later operation that is done waits for every earlier one.
 *
 * <p>A ring of parallel primitive arrays indexed by position; it doubles when full (the queue
 * pair's send queue depth bounds it), so the steady state allocates nothing. Event-loop confined.
 */
final class LocalOperations {
  /** Condition of a Read not yet delivered: no transmit horizon reaches it. */
  private static final long READ_PENDING = Long.MAX_VALUE;
  /** Condition of a delivered Read: below every transmit horizon. */
  private static final long READ_DONE = -1;

  private long[] tokens;
  /** Write/Send: the message's transmit sequence number; Read: READ_PENDING or READ_DONE. */
  private long[] conditions;
  /** Read: its length; Write/Send: -1. */
  private long[] readLengths;
  private int mask;
  private long head;
  private long tail;

  LocalOperations(int initialCapacity) {
    int n = RingSize.powerOfTwoAtLeast(initialCapacity);
    tokens = new long[n];
    conditions = new long[n];
    readLengths = new long[n];
    mask = n - 1;
  }

  /** Operations issued and not yet reported. */
  int size() {
    return (int) (tail - head);
  }

  /**
   * Adds a Write or Send carried by transmit message {@code txSeq}.
   *
   * @return its position
   */
  long addTransmit(long token, long txSeq) {
    return add(token, txSeq, -1);
  }

  /**
   * Adds a Read of {@code length} octets.
   *
   * @return its position, for {@link #readDelivered}
   */
  long addRead(long token, long length) {
    return add(token, READ_PENDING, length);
  }

  private long add(long token, long condition, long readLength) {
    if (tail - head == tokens.length) {
      grow();
    }
    int i = (int) tail & mask;
    tokens[i] = token;
    conditions[i] = condition;
    readLengths[i] = readLength;
    return tail++;
  }

  /** Marks the Read at {@code position} done: its Read Response was delivered. */
  void readDelivered(long position) {
    if (position < head || position >= tail) {
      throw new IllegalStateException("no operation at position " + position);
    }
    conditions[(int) position & mask] = READ_DONE;
  }

  /** Whether the oldest operation is done, given that transmit messages below {@code sent} left. */
  boolean headDone(long sent) {
    return head < tail && conditions[(int) head & mask] < sent;
  }

  /** Whether the oldest operation is a Read. */
  boolean headIsRead() {
    return readLengths[(int) head & mask] >= 0;
  }

  /** The token of the operation at {@code position}. */
  long tokenAt(long position) {
    if (position < head || position >= tail) {
      throw new IllegalStateException("no operation at position " + position);
    }
    return tokens[(int) position & mask];
  }

  /** The token of the oldest operation. */
  long headToken() {
    return tokens[(int) head & mask];
  }

  /** The length of the oldest operation, a Read. */
  long headReadLength() {
    return readLengths[(int) head & mask];
  }

  /** Forgets the oldest operation (it was reported). */
  void removeHead() {
    head++;
  }

  /** Forgets every operation: the stream ended and the owner completes them in error. */
  void clear() {
    head = tail;
  }

  private void grow() {
    tokens = RingArrays.doubled(tokens, head, tail);
    conditions = RingArrays.doubled(conditions, head, tail);
    readLengths = RingArrays.doubled(readLengths, head, tail);
    mask = tokens.length - 1;
  }

  @Override
  public String toString() {
    return "LocalOperations{outstanding=" + size() + ", capacity=" + tokens.length + "}";
  }
}
