package io.iwarp4j.rdmap;

/**
 * The RDMA Reads and RFC 7306 Atomics this end issued and whose response has not been delivered
 * yet, oldest first, at most ORD of them together (RFC 5040 §6.1: the outbound limit MUST NOT be
 * exceeded; RFC 7306 §5.2: Atomic Requests share QN 1 and ORD with Read Requests). The responder
 * answers both kinds in request order (RFC 7306 §7: neither response is generated before the
 * other's that precedes it), so every response must belong to the oldest entry. The peer answers
 * in request order (§5.2.2), so every Read Response segment must belong to the oldest Read: its
 * sink STag, the next Tagged Offset of its sink range, and no octet past its size (the Data Sink
 * MAY validate this, §5.2.2; doing so keeps a peer from placing "Read Responses" into any local
 * region that merely grants LOCAL_WRITE).
 *
 * <p>A ring of primitive arrays that starts with room for {@value #INITIAL_SLOTS} and doubles up to
 * ORD when a Read finds it full (so an idle queue pair does not carry arrays sized by ORD):
 * nothing is allocated per Read in steady state. Event-loop confined.
 */
final class OutstandingReads {
  /** Outcome of {@link #checkAtomicResponse}. */
  enum AtomicCheck {
    /** The response answers the oldest entry, an Atomic, and echoes its Request Identifier. */
    OK,
    /** Nothing is outstanding, or the oldest entry is a Read: the response is unexpected. */
    NO_ATOMIC_OUTSTANDING,
    /** The echoed Original Request Identifier is not the oldest Atomic's. */
    WRONG_REQUEST_ID
  }

  /** Outcome of {@link #checkSegment}. */
  enum ResponseCheck {
    /** The segment continues the oldest Read. */
    OK,
    /** No Read is outstanding: the Read Response is unexpected. */
    NO_READ_OUTSTANDING,
    /** The segment's STag is not the oldest Read's sink STag. */
    WRONG_STAG,
    /** The segment's TO or length does not continue the oldest Read's sink range exactly. */
    OUT_OF_RANGE
  }

  /** Entries the arrays hold at first (a power of two). */
  static final int INITIAL_SLOTS = 4;

  private final int ord;
  private int mask;
  private long[] positions;
  private int[] sinkStags;
  private long[] sinkTos;
  private long[] lengths;
  private long[] placed;
  /** The Request Identifier of an Atomic entry; unused for a Read. */
  private int[] requestIds;
  private boolean[] atomic;
  private long head;
  private long tail;

  /** @param ord the most Reads outstanding at once (0: none may be issued) */
  OutstandingReads(int ord) {
    if (ord < 0) {
      throw new IllegalArgumentException("ORD " + ord + " is negative");
    }
    this.ord = ord;
    int n = Math.min(INITIAL_SLOTS, RingSize.powerOfTwoAtLeast(Math.max(1, ord)));
    mask = n - 1;
    positions = new long[n];
    sinkStags = new int[n];
    sinkTos = new long[n];
    lengths = new long[n];
    placed = new long[n];
    requestIds = new int[n];
    atomic = new boolean[n];
  }

  /** Makes room for one more entry: doubles the arrays when they are full (ORD allows more). */
  private void growIfFull() {
    if (tail - head < positions.length) {
      return;
    }
    positions = RingArrays.doubled(positions, head, tail);
    sinkStags = RingArrays.doubled(sinkStags, head, tail);
    sinkTos = RingArrays.doubled(sinkTos, head, tail);
    lengths = RingArrays.doubled(lengths, head, tail);
    placed = RingArrays.doubled(placed, head, tail);
    requestIds = RingArrays.doubled(requestIds, head, tail);
    atomic = RingArrays.doubled(atomic, head, tail);
    mask = positions.length - 1;
  }

  /** The ORD this ring enforces. */
  int ord() {
    return ord;
  }

  /** Reads outstanding. */
  int size() {
    return (int) (tail - head);
  }

  /** Whether another Read may be issued: fewer than ORD are outstanding. */
  boolean canIssue() {
    return tail - head < ord;
  }

  /**
   * Records a Read just issued.
   *
   * @param position its position in {@link LocalOperations}
   * @param length RDMARDSZ, unsigned
   * @throws IllegalStateException when ORD Reads are outstanding
   */
  void add(long position, int sinkStag, long sinkTo, long length) {
    if (!canIssue()) {
      throw new IllegalStateException("ORD " + ord + " RDMA Reads are outstanding");
    }
    growIfFull();
    int i = (int) tail & mask;
    positions[i] = position;
    sinkStags[i] = sinkStag;
    sinkTos[i] = sinkTo;
    lengths[i] = length;
    placed[i] = 0;
    atomic[i] = false;
    tail++;
  }

  /**
   * Records an Atomic just issued; it counts against ORD like a Read.
   *
   * @param position its position in {@link LocalOperations}
   * @param resultStag the local STag its original value goes to
   * @param resultTo the Tagged Offset of those 8 octets
   * @param requestId the Request Identifier it was sent with
   * @throws IllegalStateException when ORD Reads and Atomics are outstanding
   */
  void addAtomic(long position, int resultStag, long resultTo, int requestId) {
    if (!canIssue()) {
      throw new IllegalStateException("ORD " + ord + " RDMA Reads and Atomics are outstanding");
    }
    growIfFull();
    int i = (int) tail & mask;
    positions[i] = position;
    sinkStags[i] = resultStag;
    sinkTos[i] = resultTo;
    lengths[i] = Long.BYTES;
    placed[i] = 0;
    requestIds[i] = requestId;
    atomic[i] = true;
    tail++;
  }

  /**
   * Checks a delivered Atomic Response against the oldest entry.
   *
   * @param requestId the response's Original Request Identifier
   */
  AtomicCheck checkAtomicResponse(int requestId) {
    if (head == tail || !atomic[(int) head & mask]) {
      return AtomicCheck.NO_ATOMIC_OUTSTANDING;
    }
    return requestIds[(int) head & mask] == requestId ? AtomicCheck.OK
        : AtomicCheck.WRONG_REQUEST_ID;
  }

  /** The oldest entry's sink (Read) or result (Atomic) STag; only while one is outstanding. */
  int oldestSinkStag() {
    return sinkStags[(int) head & mask];
  }

  /** The oldest entry's sink or result Tagged Offset; only while one is outstanding. */
  long oldestSinkTo() {
    return sinkTos[(int) head & mask];
  }

  /**
   * Checks one Read Response segment against the oldest Read and, when it fits, counts its
   * payload as placed. A zero-length Read's response is one empty L=1 segment whose STag and TO
   * are not checked (RFC 5041 §5.2).
   *
   * @param payload the segment's payload octets
   * @param last its L bit
   */
  ResponseCheck checkSegment(int stag, long to, int payload, boolean last) {
    if (head == tail || atomic[(int) head & mask]) {
      // None outstanding, or an Atomic is older: its Atomic Response must come first.
      return ResponseCheck.NO_READ_OUTSTANDING;
    }
    int i = (int) head & mask;
    long length = lengths[i];
    long done = placed[i];
    if (length == 0) {
      return payload == 0 && last ? ResponseCheck.OK : ResponseCheck.OUT_OF_RANGE;
    }
    if (stag != sinkStags[i]) {
      return ResponseCheck.WRONG_STAG;
    }
    if (to != sinkTos[i] + done || payload > length - done
        || (last && done + payload != length)) {
      return ResponseCheck.OUT_OF_RANGE;
    }
    placed[i] = done + payload;
    return ResponseCheck.OK;
  }

  /**
   * Removes the oldest Read or Atomic, whose response was delivered.
   *
   * @return its position in {@link LocalOperations}
   * @throws IllegalStateException when none is outstanding
   */
  long completeOldest() {
    if (head == tail) {
      throw new IllegalStateException("no RDMA Read is outstanding");
    }
    return positions[(int) head++ & mask];
  }

  /** The oldest Read's or Atomic's position in {@link LocalOperations}; only while one is outstanding. */
  long oldestPosition() {
    if (head == tail) {
      throw new IllegalStateException("no RDMA Read is outstanding");
    }
    return positions[(int) head & mask];
  }

  /** Forgets every Read: the stream ended. */
  void clear() {
    head = tail;
  }
}
