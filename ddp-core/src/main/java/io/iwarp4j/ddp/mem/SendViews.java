package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The views one {@link MemoryRegion} hands out for send-side slices, per sending thread.
 *
 * <p>Netty keeps one scratch NIO view per root buffer (internalNioBuffer: socket writes,
 * CRC32C), so slices of one root must only ever be sent by one thread. The first thread that
 * sends from the region owns {@link #ownerView} (slices of the region's own memory, recycled: no
 * allocation); any other sending thread gets a root of its own over the same memory
 * ({@link #threadViews}; its slices are allocated, the price of sharing a region between event
 * loops). Each such root holds one reference to the memory: its retained slices keep the root,
 * and so the memory, allocated until the transport released them, even past
 * {@link MemoryRegion#close()} (which drops the region's reference to each root,
 * {@link #releaseAll()}).
 */
final class SendViews {
  private static final VarHandle SEND_OWNER;

  static {
    try {
      SEND_OWNER = MethodHandles.lookup().findVarHandle(SendViews.class, "sendOwner",
          Thread.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final MemoryRegion region;
  private final ByteBuf memory;
  private final ByteBuffer nio;
  private final boolean readOnly;

  @SuppressWarnings("unused")
  private volatile Thread sendOwner;
  private final ByteBuf ownerView;
  /** Per other sending thread, its view; null values never occur. */
  private final ConcurrentHashMap<Thread, ThreadView> threadViews = new ConcurrentHashMap<>(4);

  SendViews(MemoryRegion region, ByteBuf memory, ByteBuffer nio, boolean readOnly) {
    this.region = region;
    this.memory = memory;
    this.nio = nio;
    this.readOnly = readOnly;
    this.ownerView = new SendView(memory);
  }

  /** Whether {@code view} is the owner's, whose slices are the region memory's own. */
  boolean isOwnerView(ByteBuf view) {
    return view == ownerView;
  }

  /** {@link MemoryRegion#sendView()} for a region that was not closing when asked. */
  ByteBuf forCurrentThread() {
    Thread t = Thread.currentThread();
    Thread owner = sendOwner;
    if (owner == t || (owner == null && SEND_OWNER.compareAndSet(this, null, t))) {
      return ownerView;
    }
    ThreadView view = threadViews.get(t);
    if (view == null) {
      view = newThreadView();
      ThreadView raced = threadViews.putIfAbsent(t, view);
      if (raced != null) {
        view.release();
        view = raced;
      } else if (region.isClosing() && threadViews.remove(t, view)) {
        // close() ran meanwhile and may have missed this view: drop its reference here.
        view.release();
        throw new IllegalStateException("region is closed: " + region);
      }
    }
    return view.view;
  }

  /**
   * Drops the region's reference to every other thread's root, once, on close: views handed out
   * must fail from now on, not read freed memory; each root goes once the transport released the
   * last slice cut from it.
   */
  void releaseAll() {
    for (Thread t : threadViews.keySet()) {
      ThreadView view = threadViews.remove(t);
      if (view != null) {
        view.release();
      }
    }
  }

  /**
   * A root of the calling thread's own over the same memory (its own scratch NIO view), holding
   * one reference to the memory so that slices of it keep the memory allocated. Read-only
   * memory cannot be wrapped that way: its view is a plain wrapper whose slices hold no
   * reference (see docs/architecture.md, "Memory lifetime").
   */
  private ThreadView newThreadView() {
    if (readOnly) {
      ByteBuf root = Unpooled.wrappedBuffer(nio.duplicate().clear());
      return new ThreadView(root, Unpooled.unreleasableBuffer(root));
    }
    ByteBuf root = PrivateRoot.over(memory, 0, memory.capacity());
    return new ThreadView(root, new SendView(root));
  }

  /** A thread's send view and the root it slices, whose one reference the region holds. */
  private record ThreadView(ByteBuf root, ByteBuf view) {
    void release() {
      root.release();
    }
  }
}
