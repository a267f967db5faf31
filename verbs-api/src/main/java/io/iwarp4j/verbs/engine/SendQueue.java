package io.iwarp4j.verbs.engine;

import io.iwarp4j.ddp.Gather;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.ScatterGatherList;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Objects;

/**
 * The send queue of a {@link QueuePair}: the posting ring application threads fill, and, on the
 * connection's event loop, the table of work requests taken from it, with the three positions
 * that order them.
 *
 * <pre>
 *   head            issued              tail
 *    │ issued, not    │ taken from the     │
 *    │ yet retired    │ ring, waiting to   │
 *    │                │ be issued          │
 * </pre>
 *
 * Every work request gets a sequence number, its position in posting order; that number is the
 * token the RDMAP endpoint reports completions with. Work requests are issued in order and
 * retired (completed to the CQ, their slot freed) strictly in order: one that finished early
 * waits for every older one. The depth bounds work requests posted and not yet retired, counted
 * by an atomic credit taken at posting, so the ring and the table can never overflow and posting
 * beyond the depth fails at once.
 *
 * <p>Posting is lock-free and allocation-free: a credit CAS, then the one copy of the work
 * request, into the entry of a reusable ring slot, where the event loop reads it until it is
 * retired. An inline work request's payload is copied there too, into the entry's inline area
 * (made with the entry), and issued from it. Everything else is event-loop confined. The ring,
 * the table and the positions are {@link WorkQueue}'s; "issued" is its "handed".
 */
public final class SendQueue extends WorkQueue<SendWorkRequest, SendQueue.Entry> {

  /**
   * Copies the octets an inline work request's SGEs name, at post time, on the posting thread.
   * A constant (a method reference to a static method), so posting allocates nothing.
   */
  @FunctionalInterface
  public interface InlineGather {
    /**
     * Copies the octets of every SGE of {@code sgl}, in order, to {@code into} from index 0.
     *
     * @param sgl the posted work request's list, validated: its total fits {@code into}
     * @param into the entry's inline area
     * @throws RuntimeException naming the problem when an SGE's memory cannot be read (the
     *     work request then fails on the loop, see {@link Entry#inlineFailure()})
     */
    void gather(ScatterGatherList sgl, byte[] into);
  }

  /**
   * One work request taken from the ring, until it is retired. An inline work request's payload
   * lives in the entry's inline area, copied there by the poster; its list is empty.
   *
   * <p>The entry is also the payload DDP cuts a Write or Send from ({@link Gather}): DDP reads
   * the work request's scatter/gather list here, in place (the SGEs' offsets and lengths, no
   * second list); the one thing the issuer adds per SGE is the send view to slice it from
   * ({@link #sendView}), taken while the region is pinned. An inline request's payload is its one
   * piece.
   */
  public static final class Entry extends Gather {
    public final SendWorkRequest wr;
    /** {@code wr}'s list, read in place by DDP. */
    private final ScatterGatherList sgl;
    /** Per SGE, the send view its octets are sliced from; set while the request is issued. */
    private final ByteBuf[] views;
    /** Whether the endpoint reported it complete (it may still wait for older ones). */
    boolean done;
    /** Octets read, for an RDMA Read. */
    public long byteLen;
    private final int maxInlineData;
    /**
     * The inline area, maxInlineData octets, made the first time this entry carries an inline
     * work request (a queue pair that never posts inline data carries none).
     */
    private byte[] inlineArea;
    /** A heap buffer over {@link #inlineArea}, handed to the endpoint as the gather list. */
    private ByteBuf inlineView;
    /** Octets of inline payload, or -1 when the work request is not inline. */
    private int inlineLength = -1;
    private RuntimeException inlineFailure;

    Entry(int maxSge, int maxInlineData) {
      this.wr = new SendWorkRequest(maxSge);
      this.sgl = wr.sgl();
      this.views = new ByteBuf[Math.max(1, maxSge)];
      this.maxInlineData = maxInlineData;
    }

    /**
     * Issuing: the view SGE {@code i}'s octets are sliced from (the region's send view for the
     * issuing thread), taken while the region is pinned. Taken here, before DDP reads the entry,
     * rather than when DDP asks for the piece: taking a view fails once the region is closing,
     * and a failure must come before the first octet of the message is written.
     */
    public void sendView(int i, ByteBuf view) {
      views[Objects.checkIndex(i, sgl.count())] = view;
    }

    /** Issued: forgets the send views (the endpoint's slices hold the memory now). */
    public void dropSendViews() {
      Arrays.fill(views, 0, sgl.count(), null);
    }

    private boolean inlinePiece() {
      return inlineLength > 0;
    }

    @Override
    public int size() {
      return inlinePiece() ? 1 : sgl.count();
    }

    @Override
    public long totalLength() {
      return inlinePiece() ? inlineLength : sgl.totalLength();
    }

    @Override
    public ByteBuf buffer(int i) {
      if (inlinePiece()) {
        return inlineView; // an inline request's list is empty: its octets are the one piece
      }
      return views[Objects.checkIndex(i, sgl.count())];
    }

    @Override
    public int index(int i) {
      return inlinePiece() ? 0 : (int) sgl.offset(i);
    }

    @Override
    public int length(int i) {
      return inlinePiece() ? inlineLength : (int) sgl.length(i);
    }

    /**
     * The inline payload as octets {@code [0, inlineLength())} of a heap buffer the entry owns,
     * or null when the work request is not inline. The endpoint may copy them or keep a retained
     * slice: the entry is not refilled while a slice is held (see {@link #copy}).
     */
    public ByteBuf inlineData() {
      return inlineLength >= 0 ? inlineView : null;
    }

    /** Octets of inline payload; meaningful when {@link #inlineData()} is not null. */
    public int inlineLength() {
      return inlineLength;
    }

    /** Posting: copies {@code from}, and an inline request's payload, into this entry. */
    void copy(SendWorkRequest from, InlineGather gather) {
      wr.copyFrom(from);
      inlineFailure = null;
      if (!SendFlags.has(from.flags(), SendFlags.INLINE)) {
        inlineLength = -1;
        return;
      }
      if (inlineView == null || inlineView.refCnt() != 1) {
        // First use; or the transport still holds a slice of the last payload (a connection
        // that failed with it in Netty's outbound buffer): leave those octets to it and take a
        // new area. Rare.
        if (inlineView != null) {
          inlineView.release();
        }
        inlineArea = new byte[maxInlineData];
        inlineView = Unpooled.wrappedBuffer(inlineArea);
      }
      try {
        gather.gather(from.sgl(), inlineArea);
      } catch (RuntimeException ex) {
        // Never throw here: a ring slot claimed and abandoned would hold ring room its credit no
        // longer accounts for. The memory went away after validation (a region closed at the
        // same moment): the loop fails the work request as it would a non-inline one.
        inlineFailure = ex;
      }
      inlineLength = (int) from.sgl().totalLength();
      wr.sgl().clear(); // it names no memory any more: no SGE checks, pins or region uses
    }

    /**
     * Why the inline payload could not be copied when the work request was posted, or null.
     * The queue pair completes such a work request with a local protection error.
     */
    public RuntimeException inlineFailure() {
      return inlineFailure;
    }
  }

  private static final InlineGather NO_INLINE = (sgl, into) -> {
    if (sgl.totalLength() > 0) {
      throw new IllegalArgumentException("this send queue takes no inline data");
    }
  };

  // Event loop only.
  private int readsOutstanding;

  /**
   * A send queue that takes no inline data (an inline post of more than 0 octets fails
   * validation before it gets here).
   *
   * @param depth the most work requests posted and not retired
   * @param maxSge the SGE capacity of each slot
   * @param wakeUp run by a poster when the loop should drain the ring
   */
  public SendQueue(int depth, int maxSge, Runnable wakeUp) {
    this(depth, maxSge, 0, NO_INLINE, wakeUp);
  }

  /**
   * @param depth the most work requests posted and not retired
   * @param maxSge the SGE capacity of each slot
   * @param maxInlineData the inline area of each slot, in octets
   * @param gather copies an inline work request's payload at post time
   * @param wakeUp run by a poster when the loop should drain the ring
   */
  public SendQueue(int depth, int maxSge, int maxInlineData, InlineGather gather,
      Runnable wakeUp) {
    super("send", depth, () -> new Entry(maxSge, maxInlineData),
        (from, to) -> to.copy(from, gather), wakeUp);
  }

  // ---- event loop ----

  @Override
  void load(Entry e) {
    e.done = false;
    e.byteLen = 0;
  }

  @Override
  void clear(Entry e) {
    e.wr.sgl().clear(); // drop the buffer references
  }

  /** Whether a work request waits to be issued. */
  public boolean hasUnissued() {
    return hasUnhanded();
  }

  /** The next work request to issue; only when {@link #hasUnissued()}. */
  public Entry nextUnissued() {
    return nextUnhanded();
  }

  /** The sequence number {@link #nextUnissued()} gets. */
  public long nextSequence() {
    return nextUnhandedSequence();
  }

  /** Marks the next work request issued (before it is handed to the endpoint). */
  public void markIssued(boolean read) {
    markHanded();
    if (read) {
      readsOutstanding++;
    }
  }

  /** RDMA Reads issued and not completed. */
  public int readsOutstanding() {
    return readsOutstanding;
  }

  /**
   * Records the endpoint's completion of {@code token}.
   *
   * @return false when the token names no issued, unfinished work request (ignored)
   */
  public boolean markDone(long token, long byteLen, boolean read) {
    if (!isHanded(token)) {
      return false;
    }
    Entry e = entry(token);
    if (e.done) {
      return false;
    }
    e.done = true;
    e.byteLen = byteLen;
    if (read) {
      readsOutstanding--;
    }
    return true;
  }

  /** The oldest work request if it is done and may be retired, else null. */
  public Entry retirable() {
    long seq = oldestHanded();
    if (seq >= 0) {
      Entry e = entry(seq);
      if (e.done) {
        return e;
      }
    }
    return null;
  }

  /** The oldest work request that is issued and not done (the one in flight), or -1. */
  public long inFlight() {
    return oldestHanded();
  }

  /** Forgets outstanding Reads (the stream is dead). */
  public void abandonReads() {
    readsOutstanding = 0;
  }
}
