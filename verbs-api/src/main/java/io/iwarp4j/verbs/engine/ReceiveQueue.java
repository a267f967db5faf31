package io.iwarp4j.verbs.engine;

import io.iwarp4j.verbs.LocalBuffer;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.ScatterGatherList;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The receive queue of a {@link QueuePair}: the posting ring application threads fill, and, on
 * the connection's event loop, the table of receive work requests taken from it.
 *
 * <pre>
 *   head             handed              tail
 *    │ posted to the   │ taken from the     │
 *    │ RDMAP endpoint  │ ring, not yet      │
 *    │                 │ posted (no stream) │
 * </pre>
 *
 * A receive's sequence number is the buffer id the endpoint reports it with. Sends consume the
 * posted buffers in order, so completions arrive, and are retired, in order. Receives posted
 * before the connection exists wait in the table and are handed to the endpoint once it does.
 * The depth bounds receives posted and not retired, counted by an atomic credit taken at
 * posting. Posting is lock-free and allocation-free; the rest is event-loop confined. The ring,
 * the table and the positions are {@link WorkQueue}'s.
 */
public final class ReceiveQueue extends WorkQueue<RecvWorkRequest, ReceiveQueue.Entry> {
  private static final BiConsumer<RecvWorkRequest, Entry> COPY =
      (from, to) -> to.wr.copyFrom(from);

  /** One receive taken from the ring, until it is retired. */
  public static final class Entry {
    public final RecvWorkRequest wr;
    /** The pieces handed to the endpoint (views of the SGEs' memory). */
    public final ByteBuf[] pieces;
    public int pieceCount;
    /**
     * Per SGE position, a private view of the last buffer posted there and that buffer.
     * Applications post the same regions again and again, so the duplicate is reused with new
     * indexes and a receive allocates nothing; it is private to this slot, so moving its
     * indexes races with nobody.
     */
    private final ByteBuf[] views;
    private final LocalBuffer[] viewSources;

    Entry(int maxSge) {
      this.wr = new RecvWorkRequest(maxSge);
      this.pieces = new ByteBuf[Math.max(1, maxSge)];
      this.views = new ByteBuf[Math.max(1, maxSge)];
      this.viewSources = new LocalBuffer[Math.max(1, maxSge)];
    }

    /**
     * Fills {@link #pieces} with the SGEs' memory as readable ranges, each from the view
     * {@code views} gives for its buffer (the verbs layer decides: a region's receive view names
     * the region, so placement pins it around each copy).
     */
    public void preparePieces(Function<LocalBuffer, ByteBuf> receiveViews) {
      ScatterGatherList sgl = wr.sgl();
      int n = sgl.count();
      for (int i = 0; i < n; i++) {
        LocalBuffer b = sgl.buffer(i);
        if (viewSources[i] != b) {
          views[i] = receiveViews.apply(b);
          viewSources[i] = b;
        }
        int from = (int) sgl.offset(i);
        pieces[i] = views[i].setIndex(from, from + (int) sgl.length(i));
      }
      pieceCount = n;
    }
  }

  /**
   * @param depth the most receives posted and not retired
   * @param maxSge the SGE capacity of each slot
   * @param wakeUp run by a poster when the loop should drain the ring
   */
  public ReceiveQueue(int depth, int maxSge, Runnable wakeUp) {
    super("receive", depth, () -> new Entry(maxSge), COPY, wakeUp);
  }

  // ---- event loop ----

  @Override
  void load(Entry e) {
    e.pieceCount = 0;
  }

  @Override
  void clear(Entry e) {
    e.wr.sgl().clear();
    Arrays.fill(e.pieces, 0, e.pieceCount, null);
    e.pieceCount = 0;
  }

  /**
   * Drops every entry's cached receive views and their buffers (views of registered memory),
   * so that an emptied queue references no registered memory: for a queue pair being reset.
   * Only with nothing outstanding and nobody posting; not for the data path.
   *
   * @throws IllegalStateException when receives are outstanding
   */
  public void forgetViews() {
    forEachIdleEntry(FORGET_VIEWS);
  }

  private static final java.util.function.Consumer<Entry> FORGET_VIEWS = e -> {
    Arrays.fill(e.views, null);
    Arrays.fill(e.viewSources, null);
    Arrays.fill(e.pieces, null);
    e.pieceCount = 0;
  };

  /** How many entries cache a receive view (for tests). */
  int cachedViews() {
    int[] n = new int[1];
    forEachIdleEntry(e -> {
      for (ByteBuf v : e.views) {
        if (v != null) {
          n[0]++;
        }
      }
    });
    return n[0];
  }

  /**
   * The receive a delivery with {@code bufferId} completes: the oldest handed one, or null when
   * the id does not name it (ignored).
   */
  public Entry deliveredTo(long bufferId) {
    if (bufferId != oldestSequence() || !isHanded(bufferId)) {
      return null;
    }
    return entry(bufferId);
  }
}
