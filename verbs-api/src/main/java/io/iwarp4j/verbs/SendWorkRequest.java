package io.iwarp4j.verbs;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * A work request for the send queue, the counterpart of {@code ibv_send_wr}: a reusable,
 * mutable object with fluent setters.
 *
 * <p>Build one per posting thread, fill it, post it, and fill it again: posting copies it, so
 * it may be changed as soon as the post returns, and nothing is allocated on the way. Fields an
 * opcode does not use are ignored (see {@link WorkRequestOpcode} for which it uses);
 * {@link #reset()} returns every field to its default. Not thread-safe.
 *
 * <p>The Atomic fields map to the RFC 7306 Atomic Request header as follows. FetchAdd sends
 * {@link #addData()} and {@link #addMask()} as "Add or Swap Data/Mask", zero as Compare Data and
 * all ones as Compare Mask. CmpSwap sends {@link #swapData()} and {@link #swapMask()} as "Add
 * or Swap Data/Mask" with {@link #compareData()} and {@link #compareMask()}. The masks default
 * to the unmasked operation: an Add Mask of 0 (one 64-bit field, carries propagate through all
 * bits, RFC 7306 §5.1.1) and Compare and Swap Masks of all ones.
 */
public final class SendWorkRequest {

  /** The longest message RDMAP can express: DDP offsets and RDMA Read sizes are 32 bits. */
  public static final long MAX_MESSAGE_LENGTH = 0xFFFF_FFFFL;

  /** Octets of an Atomic's original value and of Immediate Data (RFC 7306). */
  public static final int ATOMIC_OPERAND_LENGTH = 8;

  private final ScatterGatherList sgl;
  private long wrId;
  private WorkRequestOpcode opcode;
  private int flags;
  private int remoteStag;
  private boolean hasRemoteStag;
  private long remoteAddress;
  private int invalidateStag;
  private boolean hasInvalidateStag;
  private long addData;
  private long addMask;
  private long compareData;
  private long compareMask = -1L;
  private long swapData;
  private long swapMask = -1L;
  private long immData;
  private LocalBuffer localResultBuffer;
  private long localResultOffset;
  private final FastRegistration registration = new FastRegistration();
  private final WindowBind windowBind = new WindowBind();

  /**
   * Creates an empty work request.
   *
   * @param maxSge the capacity of its scatter/gather list, normally the queue pair's maximum
   *     send SGEs
   * @throws IllegalArgumentException if {@code maxSge} is negative or above
   *     {@link ScatterGatherList#MAX_CAPACITY}
   */
  public SendWorkRequest(int maxSge) {
    this.sgl = new ScatterGatherList(maxSge);
  }

  /**
   * Returns every field to its default and empties the scatter/gather list.
   *
   * @return this work request
   */
  public SendWorkRequest reset() {
    sgl.clear();
    wrId = 0;
    opcode = null;
    flags = 0;
    remoteStag = 0;
    hasRemoteStag = false;
    remoteAddress = 0;
    invalidateStag = 0;
    hasInvalidateStag = false;
    addData = 0;
    addMask = 0;
    compareData = 0;
    compareMask = -1L;
    swapData = 0;
    swapMask = -1L;
    immData = 0;
    localResultBuffer = null;
    localResultOffset = 0;
    registration.clear();
    windowBind.clear();
    return this;
  }

  /**
   * Makes this work request a copy of {@code other}, without allocating.
   *
   * @param other the work request to copy
   * @return this work request
   * @throws IllegalArgumentException if {@code other} has more SGEs than this one can hold
   */
  public SendWorkRequest copyFrom(SendWorkRequest other) {
    if (other == this) {
      return this;
    }
    sgl.copyFrom(other.sgl);
    wrId = other.wrId;
    opcode = other.opcode;
    flags = other.flags;
    remoteStag = other.remoteStag;
    hasRemoteStag = other.hasRemoteStag;
    remoteAddress = other.remoteAddress;
    invalidateStag = other.invalidateStag;
    hasInvalidateStag = other.hasInvalidateStag;
    addData = other.addData;
    addMask = other.addMask;
    compareData = other.compareData;
    compareMask = other.compareMask;
    swapData = other.swapData;
    swapMask = other.swapMask;
    immData = other.immData;
    localResultBuffer = other.localResultBuffer;
    localResultOffset = other.localResultOffset;
    registration.copyFrom(other.registration);
    windowBind.copyFrom(other.windowBind);
    return this;
  }

  /**
   * Checks that the work request is complete and consistent for its opcode. The queue pair
   * calls this before accepting a post; callers may call it earlier.
   *
   * @param maxSge the queue pair's maximum SGEs per send work request
   * @throws IllegalArgumentException naming the first problem found
   */
  public void validate(int maxSge) {
    validate(maxSge, Integer.MAX_VALUE);
  }

  /**
   * Checks that the work request is complete and consistent for its opcode, and that inline
   * data ({@link SendFlags#INLINE}) fits {@code maxInlineData}. The queue pair calls this with
   * its capabilities before accepting a post.
   *
   * @param maxSge the queue pair's maximum SGEs per send work request
   * @param maxInlineData the queue pair's maximum inline octets per send work request
   * @throws IllegalArgumentException naming the first problem found
   */
  public void validate(int maxSge, int maxInlineData) {
    SendRequestChecks.validate(this, maxSge, maxInlineData);
  }

  /**
   * Whether the message asks the peer for a solicited event, by its opcode or by
   * {@link SendFlags#SOLICITED}.
   *
   * @return true when a solicited event is requested
   */
  public boolean solicitsEvent() {
    return opcode != null && opcode.isSolicited() || SendFlags.has(flags, SendFlags.SOLICITED);
  }

  /**
   * Sets the caller's identifier, returned unchanged in the work completion.
   *
   * @param wrId any value
   * @return this work request
   */
  public SendWorkRequest wrId(long wrId) {
    this.wrId = wrId;
    return this;
  }

  /** {@return the caller's identifier (the work request id)} */
  public long wrId() {
    return wrId;
  }

  /**
   * Sets the operation.
   *
   * @param opcode the operation
   * @return this work request
   * @throws NullPointerException if {@code opcode} is null
   */
  public SendWorkRequest opcode(WorkRequestOpcode opcode) {
    this.opcode = Objects.requireNonNull(opcode, "opcode");
    return this;
  }

  /** {@return the operation, or null when not set yet} */
  public WorkRequestOpcode opcode() {
    return opcode;
  }

  /**
   * Sets the {@link SendFlags}, replacing any set before.
   *
   * @param flags a combination of {@link SendFlags} constants
   * @return this work request
   */
  public SendWorkRequest flags(int flags) {
    this.flags = flags;
    return this;
  }

  /** {@return the {@link SendFlags}} */
  public int flags() {
    return flags;
  }

  /** {@return whether {@link SendFlags#SIGNALED} is set}: a successful completion is reported. */
  public boolean isSignaled() {
    return SendFlags.has(flags, SendFlags.SIGNALED);
  }

  /**
   * The scatter/gather list, owned by this work request: fill it with
   * {@link ScatterGatherList#add(LocalBuffer, long, long)} or {@link #addSge}.
   *
   * @return the list
   */
  public ScatterGatherList sgl() {
    return sgl;
  }

  /**
   * Appends an entry to the scatter/gather list.
   *
   * @param buffer the memory
   * @param offset the first octet, counted from the start of {@code buffer}
   * @param length the number of octets
   * @return this work request
   * @throws IllegalArgumentException as {@link ScatterGatherList#add(LocalBuffer, long, long)}
   */
  public SendWorkRequest addSge(LocalBuffer buffer, long offset, long length) {
    sgl.add(buffer, offset, length);
    return this;
  }

  /**
   * Sets the peer memory an RDMA Write, RDMA Read or Atomic targets.
   *
   * @param stag the peer's STag (the verbs {@code rkey})
   * @param address the tagged offset within that STag's region (the verbs
   *     {@code remote_addr})
   * @return this work request
   */
  public SendWorkRequest remote(int stag, long address) {
    this.remoteStag = stag;
    this.remoteAddress = address;
    this.hasRemoteStag = true;
    return this;
  }

  /** {@return the peer's STag}, meaningful when {@link #hasRemoteStag()}. */
  public int remoteStag() {
    return remoteStag;
  }

  /** {@return whether {@link #remote(int, long)} has been called since the last reset} */
  public boolean hasRemoteStag() {
    return hasRemoteStag;
  }

  /** {@return the remote address: the tagged offset in the peer's region} */
  public long remoteAddress() {
    return remoteAddress;
  }

  /**
   * Sets the STag a Send with Invalidate asks the peer to invalidate.
   *
   * @param stag an STag the peer registered
   * @return this work request
   */
  public SendWorkRequest invalidateStag(int stag) {
    this.invalidateStag = stag;
    this.hasInvalidateStag = true;
    return this;
  }

  /** {@return the STag to invalidate at the peer}, meaningful when {@link #hasInvalidateStag()}. */
  public int invalidateStag() {
    return invalidateStag;
  }

  /** {@return whether {@link #invalidateStag(int)} has been called since the last reset} */
  public boolean hasInvalidateStag() {
    return hasInvalidateStag;
  }

  /**
   * Sets the value a FetchAdd adds.
   *
   * @param addData the 64-bit addend
   * @return this work request
   */
  public SendWorkRequest addData(long addData) {
    this.addData = addData;
    return this;
  }

  /** {@return the value a FetchAdd adds} */
  public long addData() {
    return addData;
  }

  /**
   * Sets the FetchAdd field boundaries: a set bit marks the most significant bit of a field,
   * and the carry out of it is discarded (RFC 7306 §5.1.1). 0, the default, is one plain
   * 64-bit addition.
   *
   * @param addMask the Add Mask
   * @return this work request
   */
  public SendWorkRequest addMask(long addMask) {
    this.addMask = addMask;
    return this;
  }

  /** {@return the FetchAdd Add Mask}, 0 by default. */
  public long addMask() {
    return addMask;
  }

  /**
   * Sets the value a CmpSwap compares with.
   *
   * @param compareData the 64-bit comparand
   * @return this work request
   */
  public SendWorkRequest compareData(long compareData) {
    this.compareData = compareData;
    return this;
  }

  /** {@return the value a CmpSwap compares with} */
  public long compareData() {
    return compareData;
  }

  /**
   * Sets the bits a CmpSwap compares; all ones, the default, compares all 64 bits.
   *
   * @param compareMask the Compare Mask
   * @return this work request
   */
  public SendWorkRequest compareMask(long compareMask) {
    this.compareMask = compareMask;
    return this;
  }

  /** {@return the CmpSwap Compare Mask}, all ones by default. */
  public long compareMask() {
    return compareMask;
  }

  /**
   * Sets the value a CmpSwap stores when the comparison matches.
   *
   * @param swapData the 64-bit replacement
   * @return this work request
   */
  public SendWorkRequest swapData(long swapData) {
    this.swapData = swapData;
    return this;
  }

  /** {@return the value a CmpSwap stores} */
  public long swapData() {
    return swapData;
  }

  /**
   * Sets the bits a CmpSwap replaces; all ones, the default, replaces all 64 bits.
   *
   * @param swapMask the Swap Mask
   * @return this work request
   */
  public SendWorkRequest swapMask(long swapMask) {
    this.swapMask = swapMask;
    return this;
  }

  /** {@return the CmpSwap Swap Mask}, all ones by default. */
  public long swapMask() {
    return swapMask;
  }

  /**
   * Sets the 8 octets of immediate data (RFC 7306 §6.2), sent big-endian.
   *
   * @param immData the immediate data
   * @return this work request
   */
  public SendWorkRequest immData(long immData) {
    this.immData = immData;
    return this;
  }

  /** {@return the immediate data, its 8 octets as a long} */
  public long immData() {
    return immData;
  }

  /**
   * Sets where an Atomic writes the 8-octet original value it returns.
   *
   * @param buffer local memory
   * @param offset the first of 8 octets within {@code buffer}
   * @return this work request
   * @throws NullPointerException if {@code buffer} is null
   * @throws IllegalArgumentException if the 8 octets do not lie within {@code buffer}
   */
  public SendWorkRequest localResult(LocalBuffer buffer, long offset) {
    Objects.requireNonNull(buffer, "local result buffer");
    long length = buffer.length();
    if (offset < 0 || offset > length - ATOMIC_OPERAND_LENGTH) {
      throw new IllegalArgumentException("local result: 8 octets at offset " + offset
          + " lie outside the buffer of " + length + " octets (STag 0x"
          + Integer.toHexString(buffer.stag()) + ")");
    }
    this.localResultBuffer = buffer;
    this.localResultOffset = offset;
    return this;
  }

  /** {@return where an Atomic's original value goes, or null when not set} */
  public LocalBuffer localResultBuffer() {
    return localResultBuffer;
  }

  /** {@return the offset in octets of the original value in {@link #localResultBuffer()}} */
  public long localResultOffset() {
    return localResultOffset;
  }

  /**
   * Sets what a {@link WorkRequestOpcode#REG_MR} work request binds ({@code struct ib_reg_wr}
   * with the page list of {@code ib_map_mr_sg}): octets {@code [index, index + length)} of a
   * direct buffer, under {@code stag}, with {@code access}. The region retains the buffer from
   * the registration until the registration is deregistered (the next registration, or closing
   * the region). Checked when posted (the STag's index, the range, the flags) and when executed
   * (the region's state and capacity, the key; see {@link FastRegisterRegion}).
   *
   * @param region the fast-register region
   * @param stag its new STag: {@link FastRegisterRegion#nextStag()}, or its index with any key
   *     other than the current one ({@code ib_update_fast_reg_key})
   * @param memory a direct, contiguous buffer
   * @param index the first octet bound (Tagged Offset: its native address)
   * @param length the octets bound, up to {@link FastRegisterRegion#maxLength()}
   * @param access an {@link AccessFlags} bit set
   * @return this work request
   * @throws NullPointerException if {@code region} or {@code memory} is null
   */
  public SendWorkRequest fastRegister(FastRegisterRegion region, int stag, ByteBuf memory,
      int index, int length, int access) {
    registration.set(Objects.requireNonNull(region, "region"), stag,
        Objects.requireNonNull(memory, "memory"), index, length, access);
    return this;
  }

  /**
   * Sets what a {@link WorkRequestOpcode#BIND_MW} work request binds ({@code wr.bind_mw} of
   * {@code IBV_WR_BIND_MW}: {@code mw}, {@code rkey}, {@code bind_info}): octets
   * {@code [offset, offset + length)} of {@code region} (offsets relative to the region, as in
   * SGEs; the window's base TO is the region's plus {@code offset}), with {@code access}, under
   * {@code stag}. Checked when posted (the STag names the window, a type 2 window) and when
   * executed (everything else; a failure completes with {@link WcStatus#MW_BIND_ERR}).
   *
   * @param window a type 2 window of the queue pair's protection domain
   * @param stag its new STag: {@link MemoryWindow#nextStag()}
   * @param region the region to bind into, registered with {@link AccessFlags#MW_BIND}
   * @param offset the first octet of the region bound
   * @param length the octets bound, at least 1
   * @param access {@link AccessFlags#REMOTE_READ}, {@code REMOTE_WRITE}, {@code REMOTE_ATOMIC}:
   *     each also granted by the region
   * @return this work request
   * @throws NullPointerException if {@code window} or {@code region} is null
   */
  public SendWorkRequest bindMemoryWindow(MemoryWindow window, int stag, MemoryRegion region,
      long offset, int length, int access) {
    windowBind.set(Objects.requireNonNull(window, "window"), stag,
        Objects.requireNonNull(region, "region"), offset, length, access);
    return this;
  }

  /** A type 1 bind, for {@link QueuePair#bindMemoryWindow}. */
  SendWorkRequest bindType1(MemoryWindow window, int stag, MemoryRegion region, long offset,
      int length, int access) {
    bindMemoryWindow(window, stag, region, offset, length, access);
    windowBind.markVerbCall();
    return this;
  }

  /** What a BIND_MW binds; the engine's view. */
  WindowBind windowBind() {
    return windowBind;
  }

  /** What a REG_MR binds; the engine's view. */
  FastRegistration registration() {
    return registration;
  }

  /**
   * A readable form for diagnostics; it allocates.
   *
   * @return the fields this opcode uses
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("SendWorkRequest{wrId=").append(wrId)
        .append(", opcode=").append(opcode)
        .append(", flags=").append(SendFlags.toString(flags))
        .append(", sgl=").append(sgl);
    if (opcode == null || opcode.needsRemoteBuffer()) {
      sb.append(", remote=").append(hasRemoteStag ? "0x" + Integer.toHexString(remoteStag)
          : "unset").append("@0x").append(Long.toHexString(remoteAddress));
    }
    if (opcode == WorkRequestOpcode.REG_MR) {
      sb.append(", registration={").append(registration).append('}');
    }
    if (opcode == WorkRequestOpcode.BIND_MW) {
      sb.append(", bind={").append(windowBind).append('}');
    }
    if (opcode != null && (opcode.carriesInvalidateStag()
        || opcode == WorkRequestOpcode.LOCAL_INV)) {
      sb.append(", invalidateStag=").append(hasInvalidateStag
          ? "0x" + Integer.toHexString(invalidateStag) : "unset");
    }
    if (opcode == WorkRequestOpcode.ATOMIC_FETCH_ADD) {
      sb.append(", addData=0x").append(Long.toHexString(addData))
          .append(", addMask=0x").append(Long.toHexString(addMask));
    } else if (opcode == WorkRequestOpcode.ATOMIC_CMP_SWAP) {
      sb.append(", compareData=0x").append(Long.toHexString(compareData))
          .append(", compareMask=0x").append(Long.toHexString(compareMask))
          .append(", swapData=0x").append(Long.toHexString(swapData))
          .append(", swapMask=0x").append(Long.toHexString(swapMask));
    }
    if (opcode != null && opcode.carriesImmediateData()) {
      sb.append(", immData=0x").append(Long.toHexString(immData));
    }
    return sb.append('}').toString();
  }
}
