package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;

/**
 * A root buffer of its own over octets of a registered buffer. Netty keeps one scratch NIO view
 * per root (socket writes, CRC32C); a buffer from an allocator that carves allocations out of
 * shared chunks (Netty 4.2's adaptive allocator) shares that view with its neighbours, which other
 * threads may be using. Registering a private root over the same memory avoids that. The root
 * holds one reference to the registered buffer and releases it when it is itself released.
 */
final class PrivateRoot {
  private PrivateRoot() {
  }

  /**
   * A root over {@code buf}'s octets {@code [index, index + length)} that owns one reference to
   * {@code buf} (taken here). Read-only buffers cannot be wrapped this way: the caller keeps
   * using a slice for those.
   */
  static ByteBuf over(ByteBuf buf, int index, int length) {
    ByteBuffer view = buf.nioBuffer(index, length).slice();
    ByteBuf owner = buf.retain();
    boolean done = false;
    try {
      ByteBuf root = PlatformDependent.hasUnsafe()
          ? new UnsafeRoot(view, owner)
          : new SafeRoot(view, owner);
      done = true;
      return root;
    } finally {
      if (!done) {
        owner.release();
      }
    }
  }

  private static final class UnsafeRoot extends UnpooledUnsafeDirectByteBuf {
    private final ByteBuf owner;

    UnsafeRoot(ByteBuffer view, ByteBuf owner) {
      super(UnpooledByteBufAllocator.DEFAULT, view, view.remaining());
      this.owner = owner;
    }

    @Override
    protected void deallocate() {
      super.deallocate();
      owner.release();
    }
  }

  private static final class SafeRoot extends UnpooledDirectByteBuf {
    private final ByteBuf owner;

    SafeRoot(ByteBuffer view, ByteBuf owner) {
      super(UnpooledByteBufAllocator.DEFAULT, view, view.remaining());
      this.owner = owner;
    }

    @Override
    protected void deallocate() {
      super.deallocate();
      owner.release();
    }
  }
}
