package io.iwarp4j.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The Terminate to work completion status table. */
class TerminateStatusTest {

  @ParameterizedTest(name = "received {0}/{1}/{2} -> {3}")
  @CsvSource({
      "0, 0, 0x00, REM_OP_ERR",
      "0, 1, 0x00, REM_ACCESS_ERR",
      "0, 1, 0x01, REM_ACCESS_ERR",
      "0, 1, 0x02, REM_ACCESS_ERR",
      "0, 1, 0x03, REM_ACCESS_ERR",
      "0, 1, 0x04, REM_ACCESS_ERR",
      "0, 1, 0x09, REM_ACCESS_ERR",
      "0, 1, 0xFF, REM_ACCESS_ERR",
      "0, 2, 0x05, REM_INV_REQ_ERR",
      "0, 2, 0x06, REM_INV_REQ_ERR",
      "0, 2, 0x07, REM_OP_ERR",
      "0, 2, 0x08, REM_OP_ERR",
      "0, 2, 0x09, REM_ACCESS_ERR",
      "0, 2, 0xFF, REM_OP_ERR",
      "1, 0, 0x00, REM_OP_ERR",
      "1, 1, 0x00, REM_ACCESS_ERR",
      "1, 1, 0x01, REM_ACCESS_ERR",
      "1, 1, 0x02, REM_ACCESS_ERR",
      "1, 1, 0x03, REM_ACCESS_ERR",
      "1, 1, 0x04, REM_INV_REQ_ERR",
      "1, 2, 0x01, REM_INV_REQ_ERR",
      "1, 2, 0x02, REM_INV_REQ_ERR",
      "1, 2, 0x05, REM_INV_REQ_ERR",
      "2, 0, 0x02, FATAL_ERR",
      "3, 0, 0x00, GENERAL_ERR",
  })
  void receivedTerminates(int layer, int type, String code, WcStatus expected) {
    assertEquals(expected, TerminateStatus.forReceived(layer, type, Integer.decode(code)));
  }

  @ParameterizedTest(name = "sent {0}/{1}/{2} -> target {3}, {4}")
  @CsvSource({
      "1, 2, 0x05, 2, LOC_LEN_ERR",
      "0, 2, 0x09, 2, LOC_ACCESS_ERR",
      "0, 1, 0x09, 2, LOC_ACCESS_ERR",
      "0, 0, 0x00, 1, FATAL_ERR",
      "1, 0, 0x00, 1, FATAL_ERR",
      "2, 0, 0x02, 1, FATAL_ERR",
      "1, 2, 0x02, 0, FATAL_ERR",
      "1, 1, 0x00, 0, FATAL_ERR",
      "0, 2, 0x06, 0, FATAL_ERR",
  })
  void sentTerminates(int layer, int type, String code, int target, WcStatus status) {
    int c = Integer.decode(code);
    assertEquals(target, TerminateStatus.targetForSent(layer, type, c));
    if (target != TerminateStatus.TARGET_NONE) {
      assertEquals(status, TerminateStatus.forSent(layer, type, c));
    }
  }

  @ParameterizedTest
  @CsvSource({
      "1, 2, 0x02, DDP Untagged Buffer Error / Invalid MSN - no buffer available",
      "0, 1, 0x00, RDMAP Remote Protection Error / Invalid STag",
      "0, 2, 0x06, RDMAP Remote Operation Error / Unexpected OpCode",
      "2, 0, 0x02, LLP MPA / MPA CRC mismatch",
  })
  void descriptionsNameTheError(int layer, int type, String code, String expected) {
    TerminateInfo t = new TerminateInfo(layer, type, Integer.decode(code), true);
    assertEquals(expected, t.describe());
    assertEquals(layer << 16 | type << 8 | Integer.decode(code), t.vendorError());
    assertTrue(t.toString().startsWith("Terminate received"), t.toString());
  }
}
