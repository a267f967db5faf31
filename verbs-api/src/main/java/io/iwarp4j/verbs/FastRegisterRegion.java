package io.iwarp4j.verbs;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.netty.buffer.ByteBuf;

/**
 * A fast-register memory region, the counterpart of {@code ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG,
 * max_num_sg)} / {@code ibv_alloc_mr}: an STag with no memory bound until a
 * {@link WorkRequestOpcode#REG_MR} work request binds some, as storage protocols (NVMe-oF, iSER,
 * NFS/RDMA) register each I/O's buffer.
 *
 * <p><b>States.</b> INVALID after {@link ProtectionDomain#allocateFastRegisterRegion}: every
 * access by its STag, remote or local, fails as an invalid STag does. A REG_MR work request,
 * when its turn in the send queue comes, binds a direct buffer range, access rights and a new
 * key: VALID, under {@link #stag()}. {@link WorkRequestOpcode#LOCAL_INV}, a peer's Send with
 * Invalidate naming the STag, or {@link #close()} make it INVALID again; then the next REG_MR may
 * bind other memory under another key. The key part of the STag changes on every registration
 * ({@link #nextStag()}); an old STag never names a later registration (for 255 registrations).
 *
 * <p><b>Capacity.</b> {@link #maxLength()} octets of one contiguous direct buffer: the Java stack
 * has no pages, so the capacity is a byte count rather than {@code max_num_sg} pages.
 *
 * <p><b>Memory.</b> A registration retains the buffer until it is deregistered (by the next
 * REG_MR or by {@link #close()}), and obeys the memory-lifetime rules of any region: nothing is
 * placed into it after the work request, the Send with Invalidate or {@code close()} that
 * invalidated it, and a work request that meets it invalidated completes with
 * {@link WcStatus#LOC_PROT_ERR}. As a {@link LocalBuffer} in an SGE it names the registration
 * current when the work request is issued (the {@code lkey} of the last REG_MR before it in the
 * send queue); it cannot take posted receives.
 *
 * <p>Remote invalidation is always allowed on these regions (their purpose: the peer ends the
 * I/O with a Send with Invalidate). Registration allocates the registration's bookkeeping (one
 * region object and its views), unlike the allocation-free data path.
 */
public final class FastRegisterRegion implements LocalBuffer, AutoCloseable {
  private final ProtectionDomain pd;
  private final io.iwarp4j.ddp.mem.FastRegisterRegion region;
  /** The registration {@link #buffer()} last made a view of, and that view. */
  private volatile View view;

  private record View(MemoryRegion binding, ByteBuf buffer) {
  }

  FastRegisterRegion(ProtectionDomain pd, io.iwarp4j.ddp.mem.FastRegisterRegion region) {
    this.pd = pd;
    this.region = region;
  }

  /**
   * The STag of the current registration (the verbs {@code lkey} and {@code rkey}), or before the
   * first one the STag reserved at allocation; it names memory only while {@link #isValid()}.
   *
   * @return the STag
   */
  @Override
  public int stag() {
    return region.stag();
  }

  /**
   * An STag for the next REG_MR: this region's index with its next key ({@code ib_inc_rkey} and
   * {@code ib_update_fast_reg_key} in one). Keys follow a per-slot secret odd step, so the next
   * key cannot be guessed from an old STag. Thread-safe.
   *
   * @return the STag to put in the REG_MR work request and to advertise to the peer
   */
  public int nextStag() {
    return region.nextStag();
  }

  /**
   * The most octets one registration may bind.
   *
   * @return the capacity in octets
   */
  public int maxLength() {
    return region.maxLength();
  }

  /**
   * Whether the current registration is valid (state VALID).
   *
   * @return true when VALID
   */
  public boolean isValid() {
    return region.isValid();
  }

  /**
   * The Tagged Offset of the current registration's first octet: its native address.
   *
   * @return the base TO
   * @throws IllegalStateException before the first registration
   */
  public long address() {
    return binding().baseTo();
  }

  /**
   * As a {@link LocalBuffer}: {@link #maxLength()}, so that an SGE may name any range within the
   * capacity when it is built; the range is checked against the registration current when the
   * work request is issued ({@link #registeredLength()}), as the {@code lkey}'s is in verbs.
   *
   * @return the capacity in octets
   */
  @Override
  public long length() {
    return region.maxLength();
  }

  /**
   * The octets of the current registration, 0 before the first one.
   *
   * @return the registered length
   */
  public long registeredLength() {
    MemoryRegion b = region.binding();
    return b == null ? 0 : b.length();
  }

  /**
   * The access rights of the current registration.
   *
   * @return an {@link AccessFlags} bit set
   * @throws IllegalStateException before the first registration
   */
  public int access() {
    return binding().access();
  }

  /**
   * What a peer needs to address the current registration: STag, base TO, length.
   *
   * @return the remote descriptor
   * @throws IllegalStateException before the first registration
   */
  public RemoteBuffer remote() {
    MemoryRegion b = binding();
    return new RemoteBuffer(b.stag(), b.baseTo(), b.length());
  }

  /**
   * The current registration's memory: index 0 is its first octet. The octets stay readable
   * after an invalidation, until the next registration or {@link #close()}.
   *
   * @return the view; releasing it does nothing
   * @throws IllegalStateException before the first registration, or once closed
   */
  @Override
  public ByteBuf buffer() {
    MemoryRegion b = binding();
    View v = view;
    if (v == null || v.binding() != b) {
      v = new View(b, b.buffer());
      view = v;
    }
    return v.buffer();
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
   * Whether {@link #close()} ran.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return region.isClosed();
  }

  /**
   * Deregisters the current registration (nothing is placed into it after this returns; its
   * memory reference goes once nothing is in flight) and frees the STag, like
   * {@code ibv_dereg_mr}. Work requests that still use it complete with
   * {@link WcStatus#LOC_PROT_ERR}. Idempotent.
   */
  @Override
  public void close() {
    try {
      region.close();
    } finally {
      view = null;
      pd.forget(this);
    }
  }

  @Override
  public String toString() {
    return region.toString();
  }

  /** The DDP region underneath. */
  io.iwarp4j.ddp.mem.FastRegisterRegion ddp() {
    return region;
  }

  /** The current registration, or null (the engine's view: never throws). */
  MemoryRegion currentBinding() {
    return region.binding();
  }

  private MemoryRegion binding() {
    MemoryRegion b = region.binding();
    if (b == null) {
      throw new IllegalStateException("fast-register region " + region
          + (region.isClosed() ? " is closed" : " has no registration yet: post a REG_MR"));
    }
    return b;
  }
}
