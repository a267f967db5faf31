package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Protection Domain: the owner of memory regions and of the streams that may use them. A
 * tagged access on a stream may only use an STag of the stream's own domain (RFC 5040 §8.1.1
 * item 1); a region belongs to exactly one domain.
 *
 * <p>Registration copies nothing: the region is the caller's memory (or memory this domain
 * allocates), pinned for as long as the region is registered. Registration and
 * {@link #close()} are for application threads; they take a lock.
 */
public final class ProtectionDomain implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ProtectionDomain.class);

  private final StagTable table;
  private final int id;

  // Guarded by this.
  private int regions;
  private boolean closed;

  ProtectionDomain(StagTable table, int id) {
    this.table = table;
    this.id = id;
  }

  /**
   * The table this domain's STags come from.
   *
   * @return the table this domain's STags come from
   */
  public StagTable table() {
    return table;
  }

  /**
   * A number identifying this domain within its table (for logs).
   *
   * @return a number identifying this domain within its table (for logs)
   */
  public int id() {
    return id;
  }

  /**
   * Regions of this domain registered now (including invalidated ones not yet closed).
   *
   * @return the number of regions of this domain registered now (including invalidated ones not yet
   *     closed)
   */
  public synchronized int regionCount() {
    return regions;
  }

  /**
   * True once {@link #close()} succeeded.
   *
   * @return true once {@link #close()} succeeded
   */
  public synchronized boolean isClosed() {
    return closed;
  }

  /**
   * Registers a direct buffer's whole capacity, {@code [0, capacity())}, with the default
   * options (base TO = native address).
   *
   * @param buf the buffer to register
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @return the region
   * @see #register(ByteBuf, int, int, int, RegionOptions)
   */
  public MemoryRegion register(ByteBuf buf, int access) {
    return register(buf, access, RegionOptions.defaults());
  }

  /**
   * Registers a direct buffer's whole capacity, {@code [0, capacity())}.
   *
   * @param buf the buffer to register
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @param options where the base TO comes from and whether peers may invalidate the STag
   * @return the region
   * @see #register(ByteBuf, int, int, int, RegionOptions)
   */
  public MemoryRegion register(ByteBuf buf, int access, RegionOptions options) {
    Objects.requireNonNull(buf, "buf");
    return register(buf, 0, buf.capacity(), access, options);
  }

  /**
   * Registers octets {@code [index, index + length)} of a direct buffer. Region offset 0 (the
   * base TO) is {@code buf}'s index {@code index}.
   *
   * <p>The region retains {@code buf} (one reference, released when the region is closed), so
   * the memory stays valid while registered even if the caller releases its own reference. The
   * caller keeps its reference and releases it as usual. Reader and writer indexes are ignored.
   *
   * @param buf the buffer to register
   * @param index the first octet, which becomes region offset 0
   * @param length the number of octets
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @param options where the base TO comes from and whether peers may invalidate the STag
   * @return the region
   * @throws IllegalArgumentException for a heap, composite or released buffer, a range outside
   *     the capacity or of length 0, illegal access flags, write access to read-only memory, or
   *     a base TO where {@code base + length} does not fit in 64 bits
   * @throws IllegalStateException when the domain is closed or the table full, or the base TO
   *     is the native address and Netty cannot tell it
   */
  public MemoryRegion register(ByteBuf buf, int index, int length, int access, RegionOptions options) {
    Objects.requireNonNull(buf, "buf");
    Objects.requireNonNull(options, "options");
    AccessFlags.validate(access);
    ByteBuf memory = registeredMemory(buf, index, length, access);
    return adopt(memory, access, options, false, buf.isReadOnly());
  }

  /**
   * Registers a direct {@link ByteBuffer}'s octets {@code [position, limit)} with the default
   * options (base TO = native address).
   *
   * @param buf the buffer to register
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @return the region
   * @see #register(ByteBuffer, int, RegionOptions)
   */
  public MemoryRegion register(ByteBuffer buf, int access) {
    return register(buf, access, RegionOptions.defaults());
  }

  /**
   * Registers a direct {@link ByteBuffer}'s octets {@code [position, limit)}; region offset 0
   * is the buffer's position. The region keeps the buffer reachable while registered; the
   * caller must not free it by other means (a cleaner, or releasing the Netty buffer it is a
   * view of) until the region is closed. Prefer {@link #register(ByteBuf, int)} for memory
   * Netty owns.
   *
   * @param buf the buffer to register
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @param options where the base TO comes from and whether peers may invalidate the STag
   * @return the region
   * @throws IllegalArgumentException for a heap buffer, no remaining octets, illegal access
   *     flags, write access to a read-only buffer, or a base TO where {@code base + length}
   *     does not fit in 64 bits
   * @throws IllegalStateException when the domain is closed or the table full, or the base TO
   *     is the native address and Netty cannot tell it
   */
  public MemoryRegion register(ByteBuffer buf, int access, RegionOptions options) {
    Objects.requireNonNull(buf, "buf");
    Objects.requireNonNull(options, "options");
    AccessFlags.validate(access);
    if (!buf.isDirect()) {
      throw new IllegalArgumentException(
          "cannot register a heap ByteBuffer: registered memory must be off-heap; use ByteBuffer.allocateDirect or allocate()");
    }
    if (!buf.hasRemaining()) {
      throw new IllegalArgumentException("cannot register an empty range: ByteBuffer " + buf + " has no remaining octets");
    }
    checkWritable(buf.isReadOnly(), access);
    // Wrapping never frees the ByteBuffer's memory; the wrapper's reference keeps it reachable.
    return adopt(Unpooled.wrappedBuffer(buf.slice()), access, options, false, buf.isReadOnly());
  }

  /**
   * Allocates {@code length} octets of zeroed, 8-octet aligned off-heap memory and registers
   * them with the default options (base TO = native address). The memory is released exactly
   * once, when the region is closed.
   *
   * @param length the number of octets
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @return the region
   * @see #allocate(int, int, RegionOptions)
   */
  public MemoryRegion allocate(int length, int access) {
    return allocate(length, access, RegionOptions.defaults());
  }

  /**
   * Allocates {@code length} octets of off-heap memory and registers them. The memory is zeroed
   * (a peer must not read what an earlier user of pooled memory left there) and 8-octet aligned
   * (for the atomics). It is released exactly once, when the region is closed.
   *
   * @param length the number of octets
   * @param access an {@link io.iwarp4j.ddp.mem.AccessFlags} bit set
   * @param options where the base TO comes from and whether peers may invalidate the STag
   * @return the region
   * @throws IllegalArgumentException for {@code length <= 0}, illegal access flags, or a base
   *     TO where {@code base + length} does not fit in 64 bits
   * @throws IllegalStateException when the domain is closed or the table full
   */
  public MemoryRegion allocate(int length, int access, RegionOptions options) {
    Objects.requireNonNull(options, "options");
    AccessFlags.validate(access);
    if (length <= 0) {
      throw new IllegalArgumentException("region length must be positive, got " + length);
    }
    return adopt(allocateAligned(length), access, options, true, false);
  }

  /**
   * Allocates a fast-register region ({@code ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, ...)}): an
   * STag of this domain with no memory bound, invalid until a registration binds up to
   * {@code maxLength} octets ({@link FastRegisterRegion#register}). It counts as one region of
   * the domain until closed.
   *
   * @param maxLength the most octets one registration may bind, at least 1
   * @return the region, in state INVALID
   * @throws IllegalArgumentException for {@code maxLength < 1}
   * @throws IllegalStateException when the domain is closed or the table full
   */
  public FastRegisterRegion allocateFastRegister(int maxLength) {
    if (maxLength <= 0) {
      throw new IllegalArgumentException("fast-register capacity must be positive, got "
          + maxLength);
    }
    attach();
    boolean done = false;
    try {
      FastRegisterRegion r = new FastRegisterRegion(table, this, table.reserve(), maxLength);
      done = true;
      return r;
    } finally {
      if (!done) {
        detach();
      }
    }
  }

  /**
   * The memory a registration of a direct buffer's {@code [index, index + length)} holds: a
   * retained slice of pooled memory, else a root of its own (see {@link #register}).
   */
  /**
   * Allocates a memory window ({@code ibv_alloc_mw}): an STag slot with nothing bound, INVALID
   * until {@link MemoryWindow#bind}.
   *
   * @return the window
   * @throws IllegalStateException when the domain is closed or the STag table is full
   */
  public MemoryWindow allocateMemoryWindow() {
    attach();
    boolean done = false;
    try {
      MemoryWindow w = new MemoryWindow(table, this, table.reserve());
      done = true;
      return w;
    } finally {
      if (!done) {
        detach();
      }
    }
  }

  /** One binding of a window: a region over {@code memory} (released here on failure). */
  MemoryRegion bindWindow(MemoryWindow window, int stag, long baseTo, ByteBuf memory, int access,
      Object scope) {
    boolean done = false;
    try {
      // A window shared by the domain's streams may not be invalidated by a peer (RFC 5040
      // §8.1.1 item 7); one limited to a stream may.
      MemoryRegion region = new MemoryRegion(table, this, stag, baseTo, memory, access,
          scope != null, false, memory.isReadOnly(), null, window, scope);
      done = true;
      return region;
    } finally {
      if (!done) {
        memory.release();
      }
    }
  }

  static ByteBuf registeredMemory(ByteBuf buf, int index, int length, int access) {
    Objects.requireNonNull(buf, "buf");
    if (!buf.isDirect()) {
      throw new IllegalArgumentException("cannot register a heap buffer (" + buf.getClass().getSimpleName()
          + "): registered memory must be off-heap; use a direct ByteBuf or allocate()");
    }
    if (buf.nioBufferCount() != 1) {
      throw new IllegalArgumentException("cannot register a buffer made of " + buf.nioBufferCount()
          + " memory areas (" + buf.getClass().getSimpleName() + "): a region must be contiguous");
    }
    if (buf.refCnt() == 0) {
      throw new IllegalArgumentException("cannot register a released buffer");
    }
    checkRange(index, length, buf.capacity());
    checkWritable(buf.isReadOnly(), access);
    // Pooled memory is its own root and its slices are recycled: slice it. Anything else (the
    // adaptive allocator carves buffers out of shared chunks) gets a root of its own over the
    // same memory (see PrivateRoot); read-only memory cannot be wrapped that way.
    boolean ownRoot = buf.alloc() instanceof PooledByteBufAllocator || buf.isReadOnly();
    return ownRoot ? buf.retainedSlice(index, length) : PrivateRoot.over(buf, index, length);
  }

  /**
   * One registration of a fast-register region: a region over {@code memory} (owned: released
   * if this fails) named by {@code stag}, in the slot the owner keeps reserved. Not published.
   */
  MemoryRegion bindFastRegistration(FastRegisterRegion owner, int stag, ByteBuf memory,
      int access, boolean readOnly) {
    boolean done = false;
    try {
      MemoryRegion region = new MemoryRegion(table, this, stag,
          baseTo(memory, RegionOptions.defaults()), memory, access, true, false, readOnly, owner,
          null, null);
      done = true;
      return region;
    } finally {
      if (!done) {
        memory.release();
      }
    }
  }

  /**
   * Regions come from the pooled allocator, not Netty 4.2's default adaptive one: an adaptive
   * buffer is a view of a chunk shared with other allocations, and the chunk's single scratch
   * NIO view (used by Netty's socket writes and by the CRC) would then be shared by every event
   * loop sending from any region in that chunk, which puts wrong octets on the wire
   * (VerbsConcurrencyIT found it). A pooled buffer is its own root, and its slices are recycled.
   */
  private static final ByteBufAllocator REGION_ALLOCATOR = PooledByteBufAllocator.DEFAULT;

  private static ByteBuf allocateAligned(int length) {
    ByteBuf buf = REGION_ALLOCATOR.directBuffer(length, length);
    int misalignment = buf.nioBuffer(0, length).alignmentOffset(0, Long.BYTES);
    if (misalignment != 0 && length <= Integer.MAX_VALUE - (Long.BYTES - 1)) {
      // Pooled and malloc'ed memory is aligned in practice; this is the fallback.
      buf.release();
      ByteBuf bigger = REGION_ALLOCATOR.directBuffer(length + Long.BYTES - 1);
      int skip = (Long.BYTES - bigger.nioBuffer(0, 1).alignmentOffset(0, Long.BYTES)) & (Long.BYTES - 1);
      buf = bigger.retainedSlice(skip, length);
      bigger.release();
    }
    buf.setZero(0, length);
    return buf;
  }

  /** Turns owned memory into a registered region; releases the memory if that fails. */
  private MemoryRegion adopt(ByteBuf memory, int access, RegionOptions options, boolean libraryAllocated,
      boolean readOnly) {
    boolean done = false;
    try {
      long baseTo = baseTo(memory, options);
      attach();
      try {
        int stag = table.reserve();
        try {
          MemoryRegion region = new MemoryRegion(table, this, stag, baseTo, memory, access,
              options.remoteInvalidationAllowed(), libraryAllocated, readOnly, null, null, null);
          table.publish(region);
          done = true;
          if (log.isDebugEnabled()) {
            log.debug("registered {}", region);
          }
          return region;
        } finally {
          if (!done) {
            table.release(stag);
          }
        }
      } finally {
        if (!done) {
          detach();
        }
      }
    } finally {
      if (!done) {
        memory.release();
      }
    }
  }

  private static long baseTo(ByteBuf memory, RegionOptions options) {
    long base = switch (options.baseMode()) {
      case ZERO -> 0;
      case EXPLICIT -> options.explicitBaseTo();
      case NATIVE_ADDRESS -> NativeAddress.of(memory);
    };
    // The bound base + length must itself be a 64-bit value: [base, base + length) may not wrap.
    int length = memory.capacity();
    if (Long.compareUnsigned(base, -(long) length) >= 0) {
      throw new IllegalArgumentException("base TO 0x" + Long.toHexString(base) + " + length " + length
          + " does not fit in 64 bits; the region's Tagged Offsets would wrap");
    }
    return base;
  }

  private static void checkRange(int index, int length, int capacity) {
    if (length <= 0) {
      throw new IllegalArgumentException("region length must be positive, got " + length);
    }
    if (index < 0 || index > capacity - length) {
      throw new IllegalArgumentException(
          "range [" + index + ", " + index + "+" + length + ") outside the buffer's capacity " + capacity);
    }
  }

  private static void checkWritable(boolean readOnly, int access) {
    if (readOnly && (access & AccessFlags.LOCAL_WRITE) != 0) {
      throw new IllegalArgumentException("cannot grant " + AccessFlags.toString(access)
          + " on read-only memory; register it with REMOTE_READ and/or NONE only");
    }
  }

  private synchronized void attach() {
    if (closed) {
      throw new IllegalStateException("protection domain " + id + " is closed");
    }
    regions++;
  }

  /** Called once per region: when it is closed, or when its registration fails. */
  synchronized void detach() {
    regions--;
  }

  /**
   * Closes the domain. Idempotent.
   *
   * @throws IllegalStateException while any of its regions is registered (naming how many)
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    if (regions > 0) {
      throw new IllegalStateException("protection domain " + id + " still has " + regions
          + " registered memory region(s); close them first");
    }
    closed = true;
  }

  @Override
  public String toString() {
    return "ProtectionDomain{" + id + "}";
  }
}
