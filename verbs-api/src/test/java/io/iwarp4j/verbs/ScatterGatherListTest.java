package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ScatterGatherListTest {

  private final FakeBuffer a = new FakeBuffer(100, 0x11);
  private final FakeBuffer b = new FakeBuffer(4096, 0x22);

  @Test
  void addKeepsEntriesInOrderAndSumsLengths() {
    ScatterGatherList sgl = new ScatterGatherList(3);
    sgl.add(a, 10, 90).add(b, 0, 4096).add(a, 100, 0);
    assertEquals(3, sgl.count());
    assertEquals(3, sgl.capacity());
    assertEquals(90 + 4096, sgl.totalLength());
    assertSame(a, sgl.buffer(0));
    assertEquals(10, sgl.offset(0));
    assertEquals(90, sgl.length(0));
    assertSame(b, sgl.buffer(1));
    assertEquals(0, sgl.length(2));
    assertEquals("[0x11@10+90, 0x22@0+4096, 0x11@100+0]", sgl.toString());
  }

  @Test
  void addWholeBufferCoversItsLength() {
    ScatterGatherList sgl = new ScatterGatherList(1).add(b);
    assertEquals(0, sgl.offset(0));
    assertEquals(4096, sgl.totalLength());
  }

  @Test
  void addingBeyondCapacityNamesTheCapacity() {
    ScatterGatherList sgl = new ScatterGatherList(2).add(a).add(b);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sgl.add(a));
    assertEquals("scatter/gather list is full: capacity 2 SGEs", e.getMessage());
    assertEquals(2, sgl.count());
  }

  @Test
  void rangeOutsideTheBufferIsRejectedWithItsBounds() {
    ScatterGatherList sgl = new ScatterGatherList(4);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> sgl.add(a, 50, 51));
    assertEquals("SGE 0: range [50, 50 + 51) lies outside the buffer of 100 octets (STag 0x11)",
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> sgl.add(a, 101, 0));
    assertTrue(e.getMessage().contains("outside the buffer of 100 octets"), e.getMessage());
    // offset + length overflowing a long must not sneak through
    e = assertThrows(IllegalArgumentException.class, () -> sgl.add(a, 1, Long.MAX_VALUE));
    assertTrue(e.getMessage().contains("outside the buffer"), e.getMessage());
    assertEquals(0, sgl.count());
  }

  @Test
  void negativeOffsetOrLengthIsRejected() {
    ScatterGatherList sgl = new ScatterGatherList(1);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> sgl.add(a, -1, 5));
    assertEquals("SGE 0: negative offset -1 or length 5", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> sgl.add(a, 0, -5));
  }

  @Test
  void nullBufferIsRejected() {
    ScatterGatherList sgl = new ScatterGatherList(1);
    NullPointerException e = assertThrows(NullPointerException.class, () -> sgl.add(null, 0, 1));
    assertEquals("SGE buffer", e.getMessage());
  }

  @Test
  void capacityOutOfRangeIsRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new ScatterGatherList(-1));
    assertEquals("scatter/gather list capacity -1 is outside 0..1024", e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new ScatterGatherList(ScatterGatherList.MAX_CAPACITY + 1));
    assertEquals(0, new ScatterGatherList(0).capacity());
  }

  @Test
  void accessorsCheckTheIndexAgainstTheCount() {
    ScatterGatherList sgl = new ScatterGatherList(4).add(a);
    assertThrows(IndexOutOfBoundsException.class, () -> sgl.buffer(1));
    assertThrows(IndexOutOfBoundsException.class, () -> sgl.offset(-1));
    assertThrows(IndexOutOfBoundsException.class, () -> sgl.length(3));
  }

  @Test
  void clearEmptiesAndAllowsReuse() {
    ScatterGatherList sgl = new ScatterGatherList(1).add(a);
    sgl.clear();
    assertEquals(0, sgl.count());
    assertEquals(0, sgl.totalLength());
    sgl.add(b, 1, 2);
    assertEquals(2, sgl.totalLength());
  }

  @Test
  void copyFromReplacesEntries() {
    ScatterGatherList source = new ScatterGatherList(2).add(a, 1, 2).add(b, 3, 4);
    ScatterGatherList target = new ScatterGatherList(3).add(b).add(b).add(b);
    target.copyFrom(source);
    assertEquals(2, target.count());
    assertEquals(6, target.totalLength());
    assertSame(b, target.buffer(1));
    assertEquals(3, target.offset(1));
    assertEquals(4, target.length(1));
    assertSame(target, target.copyFrom(target));
  }

  @Test
  void copyFromALongerListNamesBothSizes() {
    ScatterGatherList source = new ScatterGatherList(3).add(a).add(a).add(a);
    ScatterGatherList target = new ScatterGatherList(2);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> target.copyFrom(source));
    assertEquals("3 SGEs do not fit a scatter/gather list of capacity 2", e.getMessage());
  }
}
