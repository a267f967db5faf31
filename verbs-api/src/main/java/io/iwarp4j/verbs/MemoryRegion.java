package io.iwarp4j.verbs;

import io.netty.buffer.ByteBuf;

/**
 * Registered memory, the counterpart of {@code ibv_mr}: off-heap octets a peer can address by
 * {@link #stag()} and Tagged Offset, and that work requests use locally as a {@link LocalBuffer}
 * in scatter/gather lists.
 *
 * <p>Created by {@link ProtectionDomain#register} or {@link ProtectionDomain#allocate}; the
 * octets {@code [baseTo, baseTo + length)} of the TO space map to offsets {@code [0, length)} of
 * {@link #buffer()}. Hand {@link #remote()} to the peer so it can target the region. {@link
 * #close()} deregisters: the STag dies at once, nothing is placed into the memory after it
 * returns, and memory the library allocated is freed.
 *
 * <p>iWARP has one STag per region for local and remote use, so the verbs {@code lkey} and
 * {@code rkey} are both {@link #stag()}. Closing a region that work requests still use is a
 * mistake, as with verbs, but a safe one: {@link #close()} deregisters anyway (as siw does), the
 * memory is never written again nor read for a request that had not started, and the request
 * that next needs it completes with {@link WcStatus#LOC_PROT_ERR} (the queue pair goes to
 * {@link QpState#ERROR} with an RDMAP Local Catastrophic Terminate); a Send or Write already
 * handed to TCP keeps the memory allocated until TCP took it and completes normally.
 * {@link #closeChecked()} refuses instead, naming the work requests.
 */
public final class MemoryRegion implements LocalBuffer, AutoCloseable {
  private final ProtectionDomain pd;
  private final io.iwarp4j.ddp.mem.MemoryRegion region;
  /** One view made at registration, so {@link #buffer()} allocates nothing per use. */
  private final ByteBuf view;

  MemoryRegion(ProtectionDomain pd, io.iwarp4j.ddp.mem.MemoryRegion region) {
    this.pd = pd;
    this.region = region;
    this.view = region.buffer();
  }

  /**
   * The STag naming this region, for local ({@code lkey}) and remote ({@code rkey}) use.
   *
   * @return the STag
   */
  @Override
  public int stag() {
    return region.stag();
  }

  /**
   * The Tagged Offset of the first octet (the verbs {@code addr}): by default the memory's
   * native address, or what the {@link RegionOptions} said.
   *
   * @return the base TO, unsigned
   */
  public long address() {
    return region.baseTo();
  }

  /**
   * Same as {@link #address()}: the base Tagged Offset, under its RFC name.
   *
   * @return the base TO, unsigned
   */
  public long baseTo() {
    return region.baseTo();
  }

  /**
   * The number of registered octets.
   *
   * @return the length
   */
  @Override
  public long length() {
    return region.length();
  }

  /**
   * The access rights granted at registration.
   *
   * @return an {@link AccessFlags} bit set
   */
  public int access() {
    return region.access();
  }

  /**
   * What a peer needs to address this region: STag, base TO, length.
   *
   * @return the remote descriptor
   */
  public RemoteBuffer remote() {
    return new RemoteBuffer(region.stag(), region.baseTo(), region.length());
  }

  /**
   * The memory: index 0 is the first octet (TO {@link #baseTo()}), capacity {@link #length()}.
   * The same view every time; releasing it does nothing (the region owns the memory). Use
   * absolute get/set methods or duplicate it before moving its indexes when several threads
   * share the region.
   *
   * @return the view
   * @throws IllegalStateException once the region is closed
   */
  @Override
  public ByteBuf buffer() {
    if (region.isClosed()) {
      throw new IllegalStateException("memory region is closed: " + this);
    }
    return view;
  }

  /**
   * Atomically adds {@code delta} to the 8-octet native-order value at {@code offset} and
   * returns the old value. Atomic with respect to the RFC 7306 Atomics the device performs on
   * the same octets for a peer ({@link AtomicCapability#DEVICE}), so local and remote updates of
   * one counter never lose each other.
   *
   * @param offset octets from the region's first octet, 8-octet aligned in memory
   * @param delta the value to add
   * @return the value before the addition
   * @throws IllegalArgumentException when the target is not 8-octet aligned in memory
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed
   */
  public long getAndAddLong(long offset, long delta) {
    return region.getAndAddLong(offset, delta);
  }

  /**
   * Atomically replaces the 8-octet native-order value at {@code offset} with {@code newValue}
   * if it equals {@code expected}, and returns the value found; atomic with respect to the
   * device's RFC 7306 Atomics, like {@link #getAndAddLong}.
   *
   * @param offset octets from the region's first octet, 8-octet aligned in memory
   * @param expected the value expected
   * @param newValue the value stored when it matches
   * @return the value found, whether or not it was replaced
   * @throws IllegalArgumentException when the target is not 8-octet aligned in memory
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed
   */
  public long compareAndExchangeLong(long offset, long expected, long newValue) {
    return region.compareAndExchangeLong(offset, expected, newValue);
  }

  /**
   * The local form of an RFC 7306 masked FetchAdd: adds field by field, each field ending at a
   * set bit of {@code addMask} (mask 0 is a plain add), and returns the old value; atomic with
   * respect to the device's Atomics.
   *
   * @param offset octets from the region's first octet, 8-octet aligned in memory
   * @param addData the value to add
   * @param addMask the field boundaries
   * @return the value before the addition
   * @throws IllegalArgumentException when the target is not 8-octet aligned in memory
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed
   */
  public long getAndAddMaskedLong(long offset, long addData, long addMask) {
    return region.getAndAddMaskedLong(offset, addData, addMask);
  }

  /**
   * The local form of an RFC 7306 masked CmpSwap: when the bits under {@code compareMask}
   * equal those of {@code compareData}, replaces the bits under {@code swapMask} with those of
   * {@code swapData}; returns the value found. Atomic with respect to the device's Atomics.
   *
   * @param offset octets from the region's first octet, 8-octet aligned in memory
   * @param compareData the comparand
   * @param compareMask the bits compared
   * @param swapData the replacement
   * @param swapMask the bits replaced
   * @return the value found, whether or not it was replaced
   * @throws IllegalArgumentException when the target is not 8-octet aligned in memory
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed
   */
  public long compareAndSwapMaskedLong(long offset, long compareData, long compareMask,
      long swapData, long swapMask) {
    return region.compareAndSwapMaskedLong(offset, compareData, compareMask, swapData,
        swapMask);
  }

  /**
   * Reads the 8-octet native-order value at {@code offset}: how a counter the device's Atomics
   * update, or an Atomic's returned original value, reads back.
   *
   * @param offset octets from the region's first octet
   * @return the value
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed
   */
  public long getLong(long offset) {
    return region.getLong(offset);
  }

  /**
   * Writes the 8-octet native-order value at {@code offset} (a plain store).
   *
   * @param offset octets from the region's first octet
   * @param value the value
   * @throws IndexOutOfBoundsException when the 8 octets are not inside the region
   * @throws IllegalStateException when the region is closed
   */
  public void putLong(long offset, long value) {
    region.putLong(offset, value);
  }

  /**
   * The protection domain the region belongs to.
   *
   * @return the domain
   */
  public ProtectionDomain pd() {
    return pd;
  }

  /**
   * Whether the STag is still valid (not invalidated locally, by a peer's Send with Invalidate,
   * or by {@link #close()}).
   *
   * @return true while valid
   */
  public boolean isValid() {
    return region.isValid();
  }

  /**
   * Invalidates the STag locally: no placement into the region happens after this returns. The
   * memory stays registered (and usable for local reads and writes) until {@link #close()}.
   * Idempotent.
   *
   * @return true if this call invalidated it, false if it was already invalid
   */
  public boolean invalidate() {
    return region.invalidate();
  }

  /**
   * Whether {@link #close()} has released the region.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return region.isClosed();
  }

  /**
   * Deregisters the region: the STag dies, placements in flight finish, then the memory is
   * released (library allocation) or the reference on the caller's buffer dropped; slices the
   * transport still holds keep it allocated until they are released. Always succeeds; work
   * requests that still use the region complete with {@link WcStatus#LOC_PROT_ERR} (see the
   * class comment). Memory windows bound into the region are invalidated first (a peer's access
   * through them then fails as for an invalid STag); {@link #closeChecked()} refuses instead, as
   * {@code ibv_dereg_mr} does. Idempotent.
   */
  @Override
  public void close() {
    try {
      region.close();
    } finally {
      pd.forget(this);
    }
  }

  /**
   * Deregisters the region like {@link #close()}, unless work requests that use it are posted
   * and not yet completed: then nothing changes (the region stays registered and usable) and an
   * {@link IllegalStateException} names each of them by queue pair and wrId. The check looks at
   * every queue pair of the region's protection domain, waiting briefly for each one's event
   * loop; it is meant for teardown code, not the data path. A work request posted while this
   * runs may be missed; it then meets {@link #close()}'s semantics (LOC_PROT_ERR). It also
   * refuses while memory windows are bound into the region ({@code ibv_dereg_mr} fails then),
   * naming them.
   *
   * @throws IllegalStateException when outstanding work requests use the region, or windows are
   *     bound into it
   */
  public void closeChecked() {
    if (region.isClosed()) {
      return;
    }
    java.util.List<io.iwarp4j.ddp.mem.MemoryWindow> windows = region.boundMemoryWindows();
    if (!windows.isEmpty()) {
      // ibv_dereg_mr refuses while type 2 windows are bound (IBA 10.6.7.2.6; rxe, EBUSY/EINVAL).
      throw new IllegalStateException("memory region STag 0x" + Integer.toHexString(stag())
          + " has " + windows.size() + " memory window(s) bound into it: " + windows + "; it"
          + " stays registered (invalidate or close the windows first, or close() to deregister"
          + " anyway: that invalidates them)");
    }
    StringBuilder uses = new StringBuilder();
    int n = pd.collectUses(this, uses);
    if (n > 0) {
      throw new IllegalStateException("memory region STag 0x" + Integer.toHexString(stag())
          + " is used by " + n + " outstanding work request(s): " + uses + "; it stays"
          + " registered (wait for their completions, or close() to deregister anyway: they"
          + " then complete with LOC_PROT_ERR)");
    }
    close();
  }

  /** The DDP region underneath. */
  io.iwarp4j.ddp.mem.MemoryRegion region() {
    return region;
  }

  @Override
  public String toString() {
    return region.toString();
  }

  /** This event loop's view to take send slices from (see the DDP region's sendView). */
  ByteBuf sendView() {
    return region.sendView();
  }
}
