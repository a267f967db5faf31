package io.iwarp4j.ddp.mem;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.MemTestSupport.seededTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

/**
 * The owning thread's send view: retained slices are slices of the region's own memory (same
 * addresses, so sends copy nothing), released once by whoever sends them; the view itself and
 * its plain derivatives can never release the region's memory.
 */
class SendViewTest {

  @Test
  void retainedSlicesAreTheRegionsOwnOctetsAndKeepThemAliveUntilReleased() {
    StagTable table = seededTable(4, 11);
    ProtectionDomain pd = table.newProtectionDomain();
    MemoryRegion region = pd.allocate(4096, LOCAL_WRITE | REMOTE_READ);
    try {
      ByteBuf local = region.buffer();
      for (int i = 0; i < 4096; i++) {
        local.setByte(i, i * 7);
      }
      ByteBuf view = region.sendView();
      assertSame(view, region.sendView(), "the owning thread always gets the same view");
      ByteBuf slice = view.retainedSlice(100, 200);
      assertEquals(200, slice.readableBytes());
      if (slice.hasMemoryAddress() && local.hasMemoryAddress()) {
        assertEquals(local.memoryAddress() + 100, slice.memoryAddress(),
            "the slice is the region's memory, not a copy");
      }
      for (int i = 0; i < 200; i++) {
        assertEquals((byte) ((100 + i) * 7), slice.getByte(i));
      }
      assertFalse(view.release(), "the view cannot release the region's memory");
      assertFalse(view.slice(0, 10).release(), "nor can a plain slice of it");
      assertFalse(view.duplicate().release(), "nor a duplicate");
      region.close();
      pd.close();
      assertTrue(region.isClosed());
      // The slice still holds its reference: the octets stay readable until it is released.
      assertEquals((byte) (100 * 7), slice.getByte(0));
      assertTrue(slice.release(), "releasing the last slice frees the memory");
    } finally {
      region.close();
      pd.close();
    }
  }
}
