package io.iwarp4j.verbs;

import io.iwarp4j.ddp.mem.MemoryRegion;

/**
 * A memory window, the counterpart of {@code ibv_mw}: an STag that grants a peer remote access
 * to a range of a {@link MemoryRegion} registered with {@link AccessFlags#MW_BIND}, with access
 * rights of its own (a subset of the region's) and, for a {@link MemoryWindowType#TYPE_2}
 * window, on one connection only.
 *
 * <p>Allocated INVALID by {@link ProtectionDomain#allocateMemoryWindow}; a
 * {@link WorkRequestOpcode#BIND_MW} work request binds it with a new key ({@link #nextStag()}),
 * scoped to the connection of the queue pair that ran the bind; {@code LOCAL_INV} of its STag,
 * the peer's Send with Invalidate on that connection, closing the region it is bound into, or
 * {@link #close()} invalidate it. A type 2 window is bound again only once invalid. A window is
 * not a local buffer: work requests name the region's memory, the peer names the window's STag.
 *
 * <p>Threading: any thread may read the state; binds run on the queue pair's event loop.
 */
public final class MemoryWindow implements AutoCloseable {
  private final ProtectionDomain pd;
  private final MemoryWindowType type;
  private final io.iwarp4j.ddp.mem.MemoryWindow window;

  MemoryWindow(ProtectionDomain pd, MemoryWindowType type,
      io.iwarp4j.ddp.mem.MemoryWindow window) {
    this.pd = pd;
    this.type = type;
    this.window = window;
  }

  /**
   * The STag of the latest bind (the {@code rkey}), or the one reserved at allocation before the
   * first; valid only while {@link #isValid()}.
   *
   * @return the STag
   */
  public int stag() {
    return window.stag();
  }

  /**
   * An STag for the next bind: the window's index with its next key ({@code ibv_inc_rkey}, but
   * with the slot's secret step, so it cannot be guessed from an old one).
   *
   * @return the STag to bind with
   */
  public int nextStag() {
    return window.nextStag();
  }

  /**
   * The window's type.
   *
   * @return the type
   */
  public MemoryWindowType type() {
    return type;
  }

  /**
   * The protection domain the window belongs to.
   *
   * @return the domain
   */
  public ProtectionDomain pd() {
    return pd;
  }

  /**
   * Whether the window is bound (VALID).
   *
   * @return true while bound and not invalidated
   */
  public boolean isValid() {
    return window.isValid();
  }

  /**
   * Whether {@link #close()} ran.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return window.isClosed();
  }

  /**
   * What to advertise to the peer: the current binding's STag, base TO and length.
   *
   * @return the remote buffer
   * @throws IllegalStateException before the first bind or after close
   */
  public RemoteBuffer remote() {
    MemoryRegion b = window.binding();
    if (b == null) {
      throw new IllegalStateException("memory window " + window
          + (window.isClosed() ? " is closed" : " is not bound yet: post a BIND_MW"));
    }
    return new RemoteBuffer(b.stag(), b.baseTo(), b.length());
  }

  /**
   * Deallocates the window ({@code ibv_dealloc_mw}): its binding is invalidated (placements in
   * flight finish first) and the STag slot is freed. Idempotent.
   */
  @Override
  public void close() {
    try {
      window.close();
    } finally {
      pd.forget(this);
    }
  }

  @Override
  public String toString() {
    return window.toString();
  }

  io.iwarp4j.ddp.mem.MemoryWindow ddp() {
    return window;
  }
}
