package io.iwarp4j.verbs;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A protection domain, the counterpart of {@code ibv_pd}: the owner of memory regions and of the
 * queue pairs that may use them. A peer's tagged access through a queue pair may only name an
 * STag of the queue pair's own domain (RFC 5040 §8.1.1).
 *
 * <p>Created by {@link RdmaDevice#allocateProtectionDomain()}. Registration copies nothing and
 * pins nothing but a reference: the region is the caller's off-heap memory (or memory the domain
 * allocates, zeroed and 8-octet aligned). Registration and closing are control-path operations
 * for application threads; they may take locks and allocate.
 */
public final class ProtectionDomain implements AutoCloseable {
  private final RdmaDevice device;
  private final io.iwarp4j.ddp.mem.ProtectionDomain pd;
  private final Set<MemoryRegion> regions = ConcurrentHashMap.newKeySet();
  /** The fast-register regions by STag index, for {@link #fastRegisterRegion(int)}. */
  private final Map<Integer, FastRegisterRegion> fastRegions = new ConcurrentHashMap<>();
  private final Set<MemoryWindow> windows = ConcurrentHashMap.newKeySet();
  private final AtomicInteger queuePairs = new AtomicInteger();
  /** The queue pairs open in this domain, for {@link #collectUses}. */
  private final Set<QueuePair> openQueuePairs = ConcurrentHashMap.newKeySet();
  /** The shared receive queues open in this domain. */
  private final Set<SharedReceiveQueue> sharedReceiveQueues = ConcurrentHashMap.newKeySet();

  ProtectionDomain(RdmaDevice device, io.iwarp4j.ddp.mem.ProtectionDomain pd) {
    this.device = device;
    this.pd = pd;
  }

  /**
   * Registers a direct buffer's whole capacity with the base TO at its native address.
   *
   * @param buf a direct, contiguous {@link ByteBuf}; the region retains it until closed
   * @param access an {@link AccessFlags} bit set
   * @return the region
   * @throws IllegalArgumentException for a heap or composite buffer, or illegal access flags
   * @throws IllegalStateException when the domain is closed or the device's region limit reached
   */
  public MemoryRegion register(ByteBuf buf, int access) {
    return adopt(pd.register(buf, access));
  }

  /**
   * Registers octets {@code [index, index + length)} of a direct buffer.
   *
   * @param buf a direct, contiguous {@link ByteBuf}; the region retains it until closed
   * @param index the first octet, which becomes region offset 0
   * @param length the number of octets, at least 1
   * @param access an {@link AccessFlags} bit set
   * @param options where the base TO comes from and whether peers may invalidate the STag
   * @return the region
   * @throws IllegalArgumentException for a heap or composite buffer, a bad range, or illegal
   *     access flags
   * @throws IllegalStateException when the domain is closed or the device's region limit reached
   */
  public MemoryRegion register(ByteBuf buf, int index, int length, int access,
      RegionOptions options) {
    return adopt(pd.register(buf, index, length, access, options.ddp()));
  }

  /**
   * Registers a direct {@link ByteBuffer}'s octets {@code [position, limit)} with the base TO at
   * their native address. The buffer must stay allocated until the region is closed.
   *
   * @param buf a direct buffer
   * @param access an {@link AccessFlags} bit set
   * @return the region
   * @throws IllegalArgumentException for a heap buffer, no remaining octets, or illegal access
   *     flags
   * @throws IllegalStateException when the domain is closed or the device's region limit reached
   */
  public MemoryRegion register(ByteBuffer buf, int access) {
    return adopt(pd.register(buf, access));
  }

  /**
   * Registers a direct {@link ByteBuffer}'s octets {@code [position, limit)}.
   *
   * @param buf a direct buffer
   * @param access an {@link AccessFlags} bit set
   * @param options where the base TO comes from and whether peers may invalidate the STag
   * @return the region
   * @throws IllegalArgumentException for a heap buffer, no remaining octets, or illegal access
   *     flags
   * @throws IllegalStateException when the domain is closed or the device's region limit reached
   */
  public MemoryRegion register(ByteBuffer buf, int access, RegionOptions options) {
    return adopt(pd.register(buf, access, options.ddp()));
  }

  /**
   * Allocates {@code length} zeroed, 8-octet aligned off-heap octets and registers them with the
   * base TO at their native address. The memory is freed when the region is closed.
   *
   * @param length at least 1
   * @param access an {@link AccessFlags} bit set
   * @return the region
   * @throws IllegalArgumentException for {@code length < 1} or illegal access flags
   * @throws IllegalStateException when the domain is closed or the device's region limit reached
   */
  public MemoryRegion allocate(int length, int access) {
    return adopt(pd.allocate(length, access));
  }

  /**
   * Allocates {@code length} zeroed, 8-octet aligned off-heap octets and registers them.
   *
   * @param length at least 1
   * @param access an {@link AccessFlags} bit set
   * @param options where the base TO comes from and whether peers may invalidate the STag
   * @return the region
   * @throws IllegalArgumentException for {@code length < 1} or illegal access flags
   * @throws IllegalStateException when the domain is closed or the device's region limit reached
   */
  public MemoryRegion allocate(int length, int access, RegionOptions options) {
    return adopt(pd.allocate(length, access, options.ddp()));
  }

  /**
   * Allocates a fast-register region, like {@code ibv_alloc_mr} / {@code ib_alloc_mr(pd,
   * IB_MR_TYPE_MEM_REG, max_num_sg)}: an STag of this domain with no memory bound (INVALID)
   * until a {@link WorkRequestOpcode#REG_MR} work request binds up to {@code maxLength} octets
   * of a direct buffer to it (see {@link FastRegisterRegion}).
   *
   * @param maxLength the most octets one registration may bind (a byte count: there are no
   *     pages here), at least 1
   * @return the region, INVALID
   * @throws IllegalArgumentException for {@code maxLength < 1}
   * @throws IllegalStateException when the domain is closed or the device's region limit reached
   */
  public FastRegisterRegion allocateFastRegisterRegion(int maxLength) {
    FastRegisterRegion fr = new FastRegisterRegion(this, pd.allocateFastRegister(maxLength));
    fastRegions.put(io.iwarp4j.ddp.mem.StagTable.indexOf(fr.stag()), fr);
    return fr;
  }

  /**
   * Creates a shared receive queue in this domain, like {@code ibv_create_srq}: queue pairs of
   * this domain created with it ({@link QueuePairConfig.Builder#sharedReceiveQueue}) take their
   * receives from it. Control path: allocates the queue's slots.
   *
   * @param config depth, SGEs, initial limit, limit listener
   * @return the queue
   * @throws IllegalArgumentException when the depth exceeds the device's
   *     {@link DeviceConfig#maxSrqWr()}, the SGEs its {@link DeviceConfig#maxSge()}, or the
   *     limit the depth
   * @throws IllegalStateException when the domain is closed
   */
  public SharedReceiveQueue createSharedReceiveQueue(SharedReceiveQueueConfig config) {
    java.util.Objects.requireNonNull(config, "config");
    if (pd.isClosed()) {
      throw new IllegalStateException(this + " is closed");
    }
    DeviceConfig dc = device != null ? device.config() : DeviceConfig.defaults();
    int maxWr = config.maxWr() == SharedReceiveQueueConfig.DEVICE_DEFAULT
        ? Math.min(dc.defaultRecvWr(), dc.maxSrqWr()) : config.maxWr();
    if (maxWr > dc.maxSrqWr()) {
      throw new IllegalArgumentException("shared receive queue maxWr " + maxWr
          + " exceeds the device's limit of " + dc.maxSrqWr() + " (DeviceConfig.maxSrqWr)");
    }
    int maxSge = config.maxSge() == SharedReceiveQueueConfig.DEVICE_DEFAULT ? dc.defaultSge()
        : config.maxSge();
    if (maxSge > dc.maxSge()) {
      throw new IllegalArgumentException("shared receive queue maxSge " + maxSge
          + " exceeds the device's limit of " + dc.maxSge() + " (DeviceConfig.maxSge)");
    }
    SharedReceiveQueue srq = new SharedReceiveQueue(this, maxWr, maxSge, config.limit(),
        config.listener());
    sharedReceiveQueues.add(srq);
    return srq;
  }

  /**
   * Allocates a memory window ({@code ibv_alloc_mw}), INVALID until bound: a
   * {@link MemoryWindowType#TYPE_2} window by a {@link WorkRequestOpcode#BIND_MW} work request.
   * {@link MemoryWindow#close()} deallocates it ({@code ibv_dealloc_mw}).
   *
   * @param type the window type
   * @return the window
   * @throws IllegalStateException when the domain is closed or the device's STag table is full
   */
  public MemoryWindow allocateMemoryWindow(MemoryWindowType type) {
    java.util.Objects.requireNonNull(type, "type");
    MemoryWindow w = new MemoryWindow(this, type, pd.allocateMemoryWindow());
    windows.add(w);
    return w;
  }

  /**
   * The number of regions registered in this domain now.
   *
   * @return the count
   */
  public int regionCount() {
    return regions.size();
  }

  /**
   * Whether {@link #close()} succeeded.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return pd.isClosed();
  }

  /**
   * Closes the domain, like {@code ibv_dealloc_pd}. Idempotent.
   *
   * @throws IllegalStateException while regions are registered or queue pairs open in it
   *     (naming how many)
   */
  @Override
  public void close() {
    int qps = queuePairs.get();
    if (qps > 0 && !pd.isClosed()) {
      throw new IllegalStateException("protection domain " + pd.id() + " still has " + qps
          + " open queue pair(s); close them first");
    }
    int srqs = sharedReceiveQueues.size();
    if (srqs > 0 && !pd.isClosed()) {
      throw new IllegalStateException("protection domain " + pd.id() + " still has " + srqs
          + " open shared receive queue(s); close them first");
    }
    pd.close();
    if (device != null) {
      device.forget(this);
    }
  }

  /** Closes every region, then the domain (device shutdown). */
  void closeAll() {
    List<MemoryRegion> all = new ArrayList<>(regions);
    for (MemoryRegion r : all) {
      r.close();
    }
    for (FastRegisterRegion r : new ArrayList<>(fastRegions.values())) {
      r.close();
    }
    for (MemoryWindow w : new ArrayList<>(windows)) {
      w.close();
    }
    queuePairs.set(0);
    for (SharedReceiveQueue srq : new ArrayList<>(sharedReceiveQueues)) {
      srq.closeForced();
    }
    pd.close();
  }

  /** The DDP domain underneath. */
  io.iwarp4j.ddp.mem.ProtectionDomain ddp() {
    return pd;
  }

  /** The device, or null for a domain built directly on a DDP one (tests). */
  RdmaDevice device() {
    return device;
  }

  void queuePairOpened(QueuePair qp) {
    queuePairs.incrementAndGet();
    openQueuePairs.add(qp);
  }

  void queuePairClosed(QueuePair qp) {
    queuePairs.decrementAndGet();
    openQueuePairs.remove(qp);
  }

  /**
   * Appends the outstanding work requests of this domain's queue pairs that use {@code region}
   * (see {@link MemoryRegion#closeChecked()}); waits for each queue pair's event loop.
   *
   * @return how many were found
   */
  int collectUses(MemoryRegion region, StringBuilder into) {
    int n = 0;
    for (QueuePair qp : openQueuePairs) {
      n += qp.binding().collectUses(region, into);
    }
    for (SharedReceiveQueue srq : sharedReceiveQueues) {
      n += srq.collectUses(region, into);
    }
    return n;
  }

  void sharedReceiveQueueClosed(SharedReceiveQueue srq) {
    sharedReceiveQueues.remove(srq);
  }

  void forget(MemoryRegion region) {
    regions.remove(region);
  }

  void forget(FastRegisterRegion region) {
    fastRegions.remove(io.iwarp4j.ddp.mem.StagTable.indexOf(region.stag()), region);
  }

  /** This domain's open fast-register region whose STags have {@code stag}'s index, or null. */
  void forget(MemoryWindow window) {
    windows.remove(window);
  }

  FastRegisterRegion fastRegisterRegion(int stag) {
    return fastRegions.get(io.iwarp4j.ddp.mem.StagTable.indexOf(stag));
  }

  private MemoryRegion adopt(io.iwarp4j.ddp.mem.MemoryRegion region) {
    MemoryRegion mr = new MemoryRegion(this, region);
    regions.add(mr);
    return mr;
  }

  @Override
  public String toString() {
    return "ProtectionDomain{" + pd.id() + ", regions=" + regions.size() + ", queuePairs="
        + queuePairs.get() + '}';
  }
}
