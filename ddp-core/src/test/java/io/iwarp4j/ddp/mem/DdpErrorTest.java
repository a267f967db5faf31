package io.iwarp4j.ddp.mem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.iwarp4j.ddp.DdpError;
import org.junit.jupiter.api.Test;

/** The Layer 1 error numbers of RFC 5041 §7.2 and how tagged check results map onto them. */
class DdpErrorTest {

  @Test
  void everyErrorHasTheRfcTypeAndCode() {
    Object[][] table = {
        {DdpError.LOCAL_CATASTROPHIC, 0, 0x00, "Local Catastrophic"},
        {DdpError.INVALID_STAG, 1, 0x00, "Invalid STag"},
        {DdpError.BASE_OR_BOUNDS_VIOLATION, 1, 0x01, "Base or bounds violation"},
        {DdpError.STAG_NOT_ASSOCIATED, 1, 0x02, "STag not associated with DDP Stream"},
        {DdpError.TO_WRAP, 1, 0x03, "TO wrap"},
        {DdpError.TAGGED_INVALID_DDP_VERSION, 1, 0x04, "Invalid DDP version"},
        {DdpError.INVALID_QN, 2, 0x01, "Invalid QN"},
        {DdpError.INVALID_MSN_NO_BUFFER, 2, 0x02, "Invalid MSN - no buffer available"},
        {DdpError.INVALID_MSN_RANGE, 2, 0x03, "Invalid MSN - MSN range is not valid"},
        {DdpError.INVALID_MO, 2, 0x04, "Invalid MO"},
        {DdpError.MESSAGE_TOO_LONG, 2, 0x05, "DDP Message too long for available buffer"},
        {DdpError.UNTAGGED_INVALID_DDP_VERSION, 2, 0x06, "Invalid DDP version"},
    };
    assertEquals(DdpError.values().length, table.length);
    for (Object[] row : table) {
      DdpError e = (DdpError) row[0];
      assertEquals(1, e.layer(), e.name());
      assertEquals(row[1], e.errorType(), e.name());
      assertEquals(row[2], e.code(), e.name());
      assertEquals(row[3], e.description(), e.name());
      assertEquals(0x10 | (int) row[1], e.terminateLayerAndType(), e.name());
      assertSame(e, DdpError.of(e.errorType(), e.code()));
    }
    assertNull(DdpError.of(2, 0x00));
    assertNull(DdpError.of(3, 0x00), "EType 3 is reserved for the LLP");
    assertSame(DdpError.TAGGED_INVALID_DDP_VERSION, DdpError.invalidDdpVersion(true));
    assertSame(DdpError.UNTAGGED_INVALID_DDP_VERSION, DdpError.invalidDdpVersion(false));
  }

  @Test
  void tagChecksMapToTaggedBufferErrorsAndAccessViolationToInvalidStagAsSiwDoes() {
    assertSame(DdpError.INVALID_STAG, DdpError.forStagCheck(StagCheck.INVALID_STAG));
    assertSame(DdpError.STAG_NOT_ASSOCIATED, DdpError.forStagCheck(StagCheck.NOT_ASSOCIATED));
    assertSame(DdpError.INVALID_STAG, DdpError.forStagCheck(StagCheck.ACCESS_VIOLATION));
    assertSame(DdpError.BASE_OR_BOUNDS_VIOLATION, DdpError.forStagCheck(StagCheck.BASE_OR_BOUNDS));
    assertSame(DdpError.TO_WRAP, DdpError.forStagCheck(StagCheck.TO_WRAP));
    assertThrows(IllegalArgumentException.class, () -> DdpError.forStagCheck(StagCheck.OK));
    for (StagCheck c : StagCheck.values()) {
      if (c != StagCheck.OK) {
        assertEquals(DdpError.ETYPE_TAGGED, DdpError.forStagCheck(c).errorType(), c.name());
      }
    }
  }
}
