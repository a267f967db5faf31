package io.iwarp4j.ddp.mem;

import io.netty.buffer.ByteBuf;

/**
 * A view of a region's memory for a posted receive (index 0 = base TO) that names its region,
 * so that whoever places a Send into it can pin the region first ({@link MemoryRegion#regionOf}).
 * A posted receive may wait for a Send for as long as the application likes, so it holds no pin
 * (deregistration would wait for it) and no reference (deregistration must not leave the memory
 * to be written later): the placement pins the region for each copy and, when the pin fails, the
 * region was deregistered and nothing is written. Its indexes belong to the one receive slot that
 * made it; it never releases the memory, and nothing derived from it can.
 */
final class ReceiveView extends UnreleasableView {
  final MemoryRegion region;

  ReceiveView(MemoryRegion region, ByteBuf memory) {
    super(memory);
    this.region = region;
  }
}
