package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.WrappedByteBuf;

/**
 * A view of a region's memory for a posted receive (index 0 = base TO) that names its region,
 * so that whoever places a Send into it can pin the region first ({@link MemoryRegion#regionOf}).
 * A posted receive may wait for a Send for as long as the application likes, so it holds no pin
 * (deregistration would wait for it) and no reference (deregistration must not leave the memory
 * to be written later): the placement pins the region for each copy and, when the pin fails, the
 * region was deregistered and nothing is written. Its indexes belong to the one receive slot that
 * made it; it never releases the memory.
 */
final class ReceiveView extends WrappedByteBuf {
  final MemoryRegion region;

  ReceiveView(MemoryRegion region, ByteBuf memory) {
    super(memory.duplicate().setIndex(0, memory.capacity()));
    this.region = region;
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
