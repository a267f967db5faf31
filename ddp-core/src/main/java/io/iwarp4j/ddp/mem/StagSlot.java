package io.iwarp4j.ddp.mem;

/**
 * One STag slot of a {@link ProtectionDomain} that successive bindings are published in: what a
 * {@link FastRegisterRegion} and a {@link MemoryWindow} share. It holds the slot's current STag
 * and latest binding (a {@link MemoryRegion}, valid or invalidated), steps the key, and checks the
 * STag a new binding asks for. Bindings, invalidation and close take the object's monitor; the
 * read side is lock-free.
 */
abstract class StagSlot implements AutoCloseable {
  final StagTable table;
  final ProtectionDomain pd;
  /** The slot's STag index (the STag without its key). */
  final int index;
  /** The STag of the latest binding, or the one reserved at allocation before the first. */
  volatile int stag;
  /** The latest binding, valid or invalidated; null before the first and after close. */
  volatile MemoryRegion binding;
  volatile boolean closed;
  /** The keys {@link #nextStag()} hands out, a random order of all 256; guarded by the monitor. */
  private final byte[] keyOrder = new byte[256];
  /** The position in {@link #keyOrder} of the key last handed out. */
  private int keyPosition;

  StagSlot(StagTable table, ProtectionDomain pd, int stag) {
    this.table = table;
    this.pd = pd;
    this.index = StagTable.indexOf(stag);
    this.stag = stag;
    table.shuffleKeys(keyOrder, StagTable.keyOf(stag));
  }

  /**
   * The STag of the latest binding, or the one reserved at allocation before the first; valid
   * only while {@link #isValid()}.
   *
   * @return the STag
   */
  public int stag() {
    return stag;
  }

  /**
   * An STag for the next binding: this slot's index with its next key, like
   * {@code ib_inc_rkey}, but taken from a random order of all 256 keys drawn when the slot was
   * allocated (and again after each 255 keys): every key differs from the last 255 handed out,
   * and no run of old keys tells the next one. Never the current key. Any key other than the
   * current one is accepted as well.
   *
   * @return the STag to bind with
   */
  public synchronized int nextStag() {
    int current = StagTable.keyOf(stag);
    int key;
    do {
      if (++keyPosition == 256) {
        table.shuffleKeys(keyOrder, keyOrder[255] & 0xFF);
        keyPosition = 1;
      }
      key = keyOrder[keyPosition] & 0xFF;
    } while (key == current);
    return index << 8 | key;
  }

  /**
   * The domain the slot belongs to.
   *
   * @return the domain
   */
  public ProtectionDomain pd() {
    return pd;
  }

  /**
   * The latest binding (valid or invalidated), or null before the first or after close.
   *
   * @return the binding's region, or null
   */
  public MemoryRegion binding() {
    return binding;
  }

  /**
   * Whether the latest binding is valid (state VALID).
   *
   * @return true when VALID
   */
  public boolean isValid() {
    MemoryRegion b = binding;
    return b != null && b.isValid();
  }

  /**
   * Whether {@link #close()} ran.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Invalidates the current binding ({@code IB_WR_LOCAL_INV}); see
   * {@link MemoryRegion#invalidate()}: nothing is placed into it after this returns.
   *
   * @return true when this call invalidated it, false when it was not valid
   */
  public synchronized boolean invalidate() {
    MemoryRegion b = binding;
    return b != null && b.invalidate();
  }

  /**
   * Checks, under the monitor, that a new binding may take {@code newStag}: the slot is open,
   * {@code newStag} names it with a key other than the current one, and the latest binding is
   * no longer valid.
   *
   * @param kind what the slot is, for the messages ("memory window")
   * @param stillValid why the latest binding blocks a new one, after the STag ("is still bound:
   *     ...")
   * @param binding what one binding is called ("bind")
   */
  final void checkNewStag(int newStag, String kind, String stillValid, String binding) {
    if (closed) {
      throw new IllegalStateException(kind + " is closed: " + this);
    }
    if (StagTable.indexOf(newStag) != index) {
      throw new IllegalArgumentException("STag 0x" + Integer.toHexString(newStag)
          + " does not name this " + kind + " (STag index 0x" + Integer.toHexString(index) + ")");
    }
    MemoryRegion old = this.binding;
    if (old != null && old.isValid()) {
      throw new IllegalStateException(kind + " STag 0x" + Integer.toHexString(stag) + " "
          + stillValid);
    }
    if (StagTable.keyOf(newStag) == StagTable.keyOf(stag)) {
      throw new IllegalArgumentException("STag 0x" + Integer.toHexString(newStag)
          + " repeats the current key: every " + binding + " needs a new key (nextStag())");
    }
  }

  /** Makes {@code next} the slot's binding under {@code newStag} and publishes it. */
  final void publish(MemoryRegion next, int newStag) {
    binding = next;
    stag = newStag;
    table.publish(next);
  }

  /** Deregisters the latest binding, if any, and gives the slot back; under the monitor. */
  final void closeSlot() {
    MemoryRegion b = binding;
    if (b != null) {
      b.close();
    }
    closed = true;
    binding = null;
    table.release(stag);
    pd.detach();
  }

  /** VALID, INVALID or CLOSED, for toString. */
  final String stateName() {
    MemoryRegion b = binding;
    return closed ? "closed" : b != null && b.isValid() ? "valid" : "invalid";
  }
}
