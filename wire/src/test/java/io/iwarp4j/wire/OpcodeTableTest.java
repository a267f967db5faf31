package io.iwarp4j.wire;

import static io.iwarp4j.wire.OpcodeTable.CONTROL;
import static io.iwarp4j.wire.OpcodeTable.DEFINED;
import static io.iwarp4j.wire.OpcodeTable.IMMEDIATE_DATA;
import static io.iwarp4j.wire.OpcodeTable.INVALIDATE_STAG;
import static io.iwarp4j.wire.OpcodeTable.PLACED;
import static io.iwarp4j.wire.OpcodeTable.REQUEST;
import static io.iwarp4j.wire.OpcodeTable.RESPONSE;
import static io.iwarp4j.wire.OpcodeTable.RFC7306;
import static io.iwarp4j.wire.OpcodeTable.SINK_REMOTE_WRITE;
import static io.iwarp4j.wire.OpcodeTable.SOLICITED_EVENT;
import static io.iwarp4j.wire.OpcodeTable.TAGGED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every row of the opcode table against RFC 5040 §4.1-§4.2 (Figure 4) and RFC 7306 §4.1, §5,
 * §6: queue, header length and each flag spelled out, so a changed row fails here.
 */
class OpcodeTableTest {

  @ParameterizedTest(name = "0x{0}")
  @CsvSource({
      // code, QN, RDMAP header, tagged, placed, remote sink, inv, SE, imm, request, response, 7306, control
      "0, -1,  0, true,  true,  true,  false, false, false, true,  false, false, false",
      "1,  1, 28, false, false, false, false, false, false, true,  false, false, true",
      "2, -1,  0, true,  true,  false, false, false, false, false, true,  false, false",
      "3,  0,  0, false, true,  false, false, false, false, true,  false, false, false",
      "4,  0,  0, false, true,  false, true,  false, false, true,  false, false, false",
      "5,  0,  0, false, true,  false, false, true,  false, true,  false, false, false",
      "6,  0,  0, false, true,  false, true,  true,  false, true,  false, false, false",
      "7,  2,  4, false, false, false, false, false, false, false, false, false, true",
      "8,  0,  8, false, false, false, false, false, true,  true,  false, true,  false",
      "9,  0,  8, false, false, false, false, true,  true,  true,  false, true,  false",
      "A,  1, 52, false, false, false, false, false, false, true,  false, true,  true",
      "B,  3, 12, false, false, false, false, false, false, false, true,  true,  true",
  })
  void eachRowIsTheRfcs(String hex, int qn, int headerLength, boolean tagged, boolean placed,
      boolean remoteSink, boolean inv, boolean se, boolean imm, boolean request,
      boolean response, boolean rfc7306, boolean control) {
    int op = Integer.parseInt(hex, 16);
    assertTrue(OpcodeTable.has(op, DEFINED));
    assertEquals(qn, OpcodeTable.queueNumber(op));
    assertEquals(headerLength, OpcodeTable.headerLength(op));
    assertEquals(tagged, OpcodeTable.has(op, TAGGED));
    assertEquals(placed, OpcodeTable.has(op, PLACED));
    assertEquals(remoteSink, OpcodeTable.has(op, SINK_REMOTE_WRITE));
    assertEquals(inv, OpcodeTable.has(op, INVALIDATE_STAG));
    assertEquals(se, OpcodeTable.has(op, SOLICITED_EVENT));
    assertEquals(imm, OpcodeTable.has(op, IMMEDIATE_DATA));
    assertEquals(request, OpcodeTable.has(op, REQUEST));
    assertEquals(response, OpcodeTable.has(op, RESPONSE));
    assertEquals(rfc7306, OpcodeTable.has(op, RFC7306));
    assertEquals(control, OpcodeTable.has(op, CONTROL));
    assertEquals(tagged, OpcodeTable.validTagged(op));
    assertEquals(!tagged, OpcodeTable.validUntagged(op, qn));
  }

  @Test
  void undefinedCodesHaveNoRowAndAreValidNowhere() {
    for (int op = 0xC; op <= 0xF; op++) {
      assertEquals(0, OpcodeTable.flags(op));
      assertEquals(OpcodeTable.NO_QUEUE, OpcodeTable.queueNumber(op));
      assertFalse(OpcodeTable.validTagged(op));
      for (int qn = 0; qn < OpcodeTable.QUEUE_COUNT; qn++) {
        assertFalse(OpcodeTable.validUntagged(op, qn));
      }
    }
  }

  @Test
  void anUntaggedOpcodeIsValidOnlyOnItsOwnQueue() {
    assertFalse(OpcodeTable.validUntagged(RdmapOpcode.SEND.code(), 1));
    assertFalse(OpcodeTable.validUntagged(RdmapOpcode.ATOMIC_REQUEST.code(), 3));
    assertFalse(OpcodeTable.validUntagged(RdmapOpcode.RDMA_WRITE.code(), OpcodeTable.NO_QUEUE));
    assertTrue(OpcodeTable.validUntagged(RdmapOpcode.ATOMIC_REQUEST.code(), 1));
  }

  @Test
  void lookupsTakeTheControlOctetsOpcodeBits() {
    // RV=1 and reserved bits above the opcode do not change the row.
    int sendControl = RdmapControl.encode(RdmapOpcode.SEND) | RdmapControl.RSV_MASK;
    assertEquals(OpcodeTable.flags(RdmapOpcode.SEND.code()), OpcodeTable.flags(sendControl));
    assertEquals(0, OpcodeTable.queueNumber(sendControl));
  }

  @Test
  void headerLimitsAreTheLargestHeaders() {
    assertEquals(52, OpcodeTable.MAX_HEADER_LENGTH);
    for (int op = 0; op < 16; op++) {
      assertTrue(OpcodeTable.headerLength(op) <= OpcodeTable.MAX_HEADER_LENGTH);
    }
    assertEquals(52, TerminateMessage.MAX_MESSAGE_LENGTH);
    assertEquals(70, TerminateMessage.MAX_LENGTH);
    assertEquals(22, TerminateMessage.MIN_LENGTH);
  }

  @Test
  void theEnumReadsItsRow() {
    for (RdmapOpcode op : RdmapOpcode.values()) {
      assertEquals(OpcodeTable.has(op.code(), TAGGED), op.tagged(), op.name());
      assertEquals(OpcodeTable.queueNumber(op.code()), op.queueNumber(), op.name());
    }
  }
}
