package io.iwarp4j.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The DDP Control Field bits (RFC 5041 §4.1). */
class DdpControlTest {

  @Test
  void encodesTheFourCombinationsWithVersionOneAndZeroReservedBits() {
    assertEquals(0xC1, DdpControl.encode(true, true));
    assertEquals(0x81, DdpControl.encode(true, false));
    assertEquals(0x41, DdpControl.encode(false, true));
    assertEquals(0x01, DdpControl.encode(false, false));
    for (int ctl : new int[] {0xC1, 0x81, 0x41, 0x01}) {
      assertEquals(0, ctl & DdpControl.RSVD_MASK, "Rsvd MUST be 0 when sending");
      assertEquals(DdpControl.VERSION, DdpControl.version(ctl));
    }
  }

  @Test
  void decodesEachField() {
    assertTrue(DdpControl.isTagged(0xC1));
    assertTrue(DdpControl.isLast(0xC1));
    assertFalse(DdpControl.isTagged(0x41));
    assertFalse(DdpControl.isLast(0x81));
    assertEquals(2, DdpControl.version(0x42));
    assertEquals(0, DdpControl.version(0x40));
    // Reserved bits are not checked on receipt: they do not disturb the other fields.
    assertTrue(DdpControl.isTagged(0xFD));
    assertTrue(DdpControl.isLast(0xFD));
    assertEquals(1, DdpControl.version(0xFD));
  }
}
