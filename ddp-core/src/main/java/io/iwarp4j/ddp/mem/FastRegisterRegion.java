package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fast-register region ({@code ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, ...)}): one STag slot of a
 * {@link ProtectionDomain} that a work request binds to memory, access rights and a new key
 * ({@code IB_WR_REG_MR}) and that local or remote invalidation unbinds, as often as the
 * application likes.
 *
 * <p><b>States.</b> INVALID (allocated, or its last registration invalidated) → {@link #register}
 * → VALID → {@link #invalidate()}, a peer's Send with Invalidate or {@link #close()} → INVALID
 * (CLOSED after {@code close()}). A registration is refused unless the region is INVALID, the
 * STag names this slot with a key other than the last one, and the length fits the capacity.
 *
 * <p><b>Memory.</b> Each registration is a {@link MemoryRegion} of its own over the bound octets
 * (its {@link MemoryRegion#fastRegisterOwner()} is this), published in this region's slot under
 * the registration's STag: lookups, checks, pins, placement, remote invalidation and the
 * memory-lifetime rules are exactly those of any region. The capacity is a byte count (Java has
 * no pages to count). Invalidation leaves the registration's memory reference in place (the
 * octets stay readable locally, nothing is placed any more); the next registration, or
 * {@link #close()}, deregisters it, which drops that reference once nothing is in flight.
 *
 * <p><b>Threading.</b> {@link #register}, {@link #invalidate()} and {@link #close()} take this
 * object's monitor (uncontended unless the application closes the region while a work request
 * registers it); the read side ({@link #binding()}, {@link #stag()}) is lock-free.
 */
public final class FastRegisterRegion extends StagSlot {
  private static final Logger log = LoggerFactory.getLogger(FastRegisterRegion.class);

  private final int maxLength;

  FastRegisterRegion(StagTable table, ProtectionDomain pd, int stag, int maxLength) {
    super(table, pd, stag);
    this.maxLength = maxLength;
  }

  /**
   * The most octets one registration may bind.
   *
   * @return the capacity in octets
   */
  public int maxLength() {
    return maxLength;
  }

  /**
   * Binds {@code [index, index + length)} of a direct buffer under {@code newStag}
   * ({@code IB_WR_REG_MR}): the previous registration (invalid by now) is deregistered, the new
   * one is published and valid at once, its base TO the memory's native address. The region
   * retains {@code buf} until the registration is deregistered (the next registration or
   * {@link #close()}).
   *
   * @param newStag this region's slot with a key other than the current one ({@link #nextStag()})
   * @param buf a direct, contiguous buffer
   * @param index the first octet bound
   * @param length the octets bound, 1..{@link #maxLength()}
   * @param access an {@link AccessFlags} bit set
   * @return the new registration
   * @throws IllegalStateException when the region is closed or still VALID
   * @throws IllegalArgumentException for an STag of another slot or with the current key, a
   *     length beyond the capacity, illegal access, or memory {@link ProtectionDomain#register}
   *     would refuse
   */
  public synchronized MemoryRegion register(int newStag, ByteBuf buf, int index, int length,
      int access) {
    Objects.requireNonNull(buf, "buf");
    checkNewStag(newStag, "fast-register region", "is still valid: invalidate it (LOCAL_INV or a"
        + " peer's Send with Invalidate) before registering it again", "registration");
    MemoryRegion old = binding;
    if (length > maxLength) {
      throw new IllegalArgumentException("registration of " + length + " octets exceeds the"
          + " fast-register region's capacity of " + maxLength + " octets");
    }
    AccessFlags.validate(access);
    ByteBuf memory = ProtectionDomain.registeredMemory(buf, index, length, access);
    MemoryRegion next = pd.bindFastRegistration(this, newStag, memory, access, buf.isReadOnly());
    if (old != null) {
      try {
        old.close(); // invalid and drained: drops the old memory reference, keeps the slot
      } catch (RuntimeException e) {
        next.close(); // never published: only its memory reference goes
        throw e;
      }
    }
    publish(next, newStag);
    if (log.isDebugEnabled()) {
      log.debug("fast-registered {}", next);
    }
    return next;
  }

  /**
   * Deregisters the current registration (see {@link MemoryRegion#close()}) and gives the slot
   * back. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (!closed) {
      closeSlot();
    }
  }

  @Override
  public String toString() {
    return "FastRegisterRegion{stag=0x" + Integer.toHexString(stag) + ", maxLength=" + maxLength
        + ", pd=" + pd.id() + ", " + stateName() + "}";
  }
}
