package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The references the engine keeps to a region outlive neither its memory nor its registration
 * (docs/architecture.md, "Memory lifetime"): a slice a second sending thread cut keeps the
 * memory allocated until released; a receive view holds nothing, and pinning its region fails
 * once the region is closed.
 */
class RegionLifetimeTest {

  @Test
  void aSliceFromASecondSendingThreadKeepsTheMemoryAllocatedPastClose() throws Exception {
    StagTable table = seededTable(4, 21);
    ProtectionDomain pd = table.newProtectionDomain();
    MemoryRegion region = pd.allocate(4096, LOCAL_WRITE);
    try {
      region.buffer().setByte(100, 0x5A);
      ByteBuf ownerView = region.sendView(); // this thread owns the region's own slices
      ByteBuf slice = CompletableFuture.supplyAsync(() -> {
        ByteBuf other = region.sendView();
        assertNotSame(ownerView, other, "a second thread gets a root of its own");
        assertSame(other, region.sendView(), "and the same one every time");
        return other.retainedSlice(100, 8);
      }).get(10, TimeUnit.SECONDS);
      region.close();
      assertTrue(region.isClosed());
      // Before: the slice held no reference and read memory the pool had taken back.
      assertEquals(1, slice.refCnt(), "the slice holds its own reference");
      assertEquals(0x5A, slice.getByte(0), "the octets stay allocated until it is released");
      assertTrue(slice.release(), "releasing the last slice releases the memory");
    } finally {
      region.close();
      pd.close();
    }
  }

  @Test
  void aReceiveViewNamesItsRegionAndHoldsNoPin() {
    StagTable table = seededTable(4, 22);
    ProtectionDomain pd = table.newProtectionDomain();
    MemoryRegion region = pd.allocate(4096, LOCAL_WRITE);
    try {
      ByteBuf view = region.receiveView();
      assertSame(region, MemoryRegion.regionOf(view));
      assertNull(MemoryRegion.regionOf(region.buffer()), "only receive views name a region");
      assertNull(MemoryRegion.regionOf(Unpooled.EMPTY_BUFFER));
      assertFalse(view.release(), "the view cannot release the region's memory");
      view.setIndex(10, 20); // its indexes are its own
      assertEquals(0, region.buffer().readerIndex());
      region.close(); // returns at once: the posted view holds no pin
      assertTrue(region.isClosed());
      assertFalse(region.tryPin(), "placement through the view is refused from now on");
      assertThrows(IllegalStateException.class, region::receiveView);
    } finally {
      region.close();
      pd.close();
    }
  }
}
