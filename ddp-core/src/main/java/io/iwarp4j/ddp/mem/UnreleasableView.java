package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.WrappedByteBuf;
import java.nio.ByteOrder;

/**
 * A view of a region's memory (index 0 = base TO) that can never release that memory: retain,
 * release and touch do nothing, and every buffer derived from it (slices, duplicates, read-only
 * and reordered views) is unreleasable too. The region, not a view, owns the memory;
 * {@link SendView} and {@link ReceiveView} add what their side needs.
 */
abstract class UnreleasableView extends WrappedByteBuf {
  /**
   * @param memory the region's memory, exactly its octets
   */
  UnreleasableView(ByteBuf memory) {
    super(memory.duplicate().setIndex(0, memory.capacity()));
  }

  @Override
  public ByteBuf slice() {
    return Unpooled.unreleasableBuffer(super.slice());
  }

  @Override
  public ByteBuf slice(int index, int length) {
    return Unpooled.unreleasableBuffer(super.slice(index, length));
  }

  @Override
  public ByteBuf readSlice(int length) {
    return Unpooled.unreleasableBuffer(super.readSlice(length));
  }

  @Override
  public ByteBuf duplicate() {
    return Unpooled.unreleasableBuffer(super.duplicate());
  }

  @Override
  public ByteBuf retainedDuplicate() {
    return duplicate();
  }

  @Override
  public ByteBuf asReadOnly() {
    return Unpooled.unreleasableBuffer(super.asReadOnly());
  }

  @Override
  @SuppressWarnings("deprecation")
  public ByteBuf order(ByteOrder endianness) {
    return Unpooled.unreleasableBuffer(super.order(endianness));
  }

  @Override
  public ByteBuf retain(int increment) {
    return this;
  }

  @Override
  public ByteBuf retain() {
    return this;
  }

  @Override
  public ByteBuf touch() {
    return this;
  }

  @Override
  public ByteBuf touch(Object hint) {
    return this;
  }

  @Override
  public boolean release() {
    return false;
  }

  @Override
  public boolean release(int decrement) {
    return false;
  }
}
