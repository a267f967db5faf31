package io.iwarp4j.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The opcode table of RFC 5040 Figure 4 and RFC 7306 §4.1 (spec README, per-opcode table). */
class RdmapOpcodeTest {

  @ParameterizedTest(name = "0x{0} {1}")
  @CsvSource({
      "0, RDMA_WRITE, true, -1",
      "1, RDMA_READ_REQUEST, false, 1",
      "2, RDMA_READ_RESPONSE, true, -1",
      "3, SEND, false, 0",
      "4, SEND_WITH_INVALIDATE, false, 0",
      "5, SEND_WITH_SE, false, 0",
      "6, SEND_WITH_SE_AND_INVALIDATE, false, 0",
      "7, TERMINATE, false, 2",
      "8, IMMEDIATE_DATA, false, 0",
      "9, IMMEDIATE_DATA_WITH_SE, false, 0",
      "A, ATOMIC_REQUEST, false, 1",
      "B, ATOMIC_RESPONSE, false, 3",
  })
  void eachOpcodeHasItsCodeTaggedFlagAndQueue(String hex, RdmapOpcode op, boolean tagged, int qn) {
    int code = Integer.parseInt(hex, 16);
    assertEquals(code, op.code());
    assertEquals(tagged, op.tagged());
    assertEquals(qn, op.queueNumber());
    assertSame(op, RdmapOpcode.fromCode(code));
  }

  @Test
  void codes0xCTo0xFAreUndefined() {
    for (int code = 0xC; code <= 0xF; code++) {
      assertNull(RdmapOpcode.fromCode(code), "0x" + Integer.toHexString(code));
    }
    assertEquals(12, RdmapOpcode.values().length);
  }

  @Test
  void aCodeWiderThanFourBitsIsAMisuse() {
    assertThrows(IllegalArgumentException.class, () -> RdmapOpcode.fromCode(0x10));
    assertThrows(IllegalArgumentException.class, () -> RdmapOpcode.fromCode(-1));
  }

  @Test
  void onlyTheInvalidateSendsCarryAnInvalidateStag() {
    for (RdmapOpcode op : RdmapOpcode.values()) {
      boolean expected = op == RdmapOpcode.SEND_WITH_INVALIDATE
          || op == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE;
      assertEquals(expected, op.carriesInvalidateStag(), op.name());
    }
  }
}
