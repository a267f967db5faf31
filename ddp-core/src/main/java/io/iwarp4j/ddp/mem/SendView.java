package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;

/**
 * The view the owning thread takes send-side slices of a region from: a view of the region's
 * memory (index 0 = base TO) that cannot release the memory, whose {@link #retainedSlice} is a
 * retained slice of the memory itself. For pooled memory that slice is a recycled object, so
 * sending from a region allocates nothing per segment; {@code Unpooled.unreleasableBuffer} would
 * allocate a wrapper and a slice of a duplicate for each one.
 *
 * <p>A retained slice shares the memory's reference count and must be released once (the framer
 * does, after the transport took its octets); it keeps the memory allocated until then, even past
 * the region's {@code close()}. Everything else derived from the view is unreleasable, like the
 * view itself.
 */
final class SendView extends UnreleasableView {
  private final ByteBuf memory;

  /**
   * @param memory the region's memory, exactly its octets
   */
  SendView(ByteBuf memory) {
    super(memory);
    this.memory = memory;
  }

  @Override
  public ByteBuf retainedSlice(int index, int length) {
    return memory.retainedSlice(index, length);
  }

  @Override
  public ByteBuf retainedSlice() {
    return memory.retainedSlice(readerIndex(), readableBytes());
  }

  @Override
  public ByteBuf readRetainedSlice(int length) {
    ByteBuf slice = memory.retainedSlice(readerIndex(), length);
    skipBytes(length);
    return slice;
  }
}
