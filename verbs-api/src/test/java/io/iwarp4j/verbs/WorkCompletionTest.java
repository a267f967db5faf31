package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WorkCompletionTest {

  private static WorkCompletion full() {
    return new WorkCompletion().wrId(-3).status(WcStatus.REM_ACCESS_ERR)
        .opcode(WcOpcode.RECV).byteLen(SendWorkRequest.MAX_MESSAGE_LENGTH)
        .invalidatedStag(0xABCD).immData(0x0102030405060708L).solicited(true).qpNumber(17)
        .vendorError(WorkCompletion.terminateVendorError(1, 1, 0));
  }

  @Test
  void copyFromCopiesEveryField() {
    WorkCompletion copy = new WorkCompletion().copyFrom(full());
    assertEquals(-3, copy.wrId());
    assertEquals(WcStatus.REM_ACCESS_ERR, copy.status());
    assertFalse(copy.isSuccess());
    assertEquals(WcOpcode.RECV, copy.opcode());
    assertEquals(0xFFFF_FFFFL, copy.byteLen());
    assertTrue(copy.hasInvalidatedStag());
    assertEquals(0xABCD, copy.invalidatedStag());
    assertTrue(copy.hasImmData());
    assertEquals(0x0102030405060708L, copy.immData());
    assertTrue(copy.solicited());
    assertEquals(17, copy.qpNumber());
    assertEquals(0x010100, copy.vendorError());
  }

  @Test
  void resetClearsEveryField() {
    WorkCompletion wc = full().reset();
    assertEquals(0, wc.wrId());
    assertNull(wc.status());
    assertNull(wc.opcode());
    assertEquals(0, wc.byteLen());
    assertFalse(wc.hasInvalidatedStag());
    assertEquals(0, wc.invalidatedStag());
    assertFalse(wc.hasImmData());
    assertEquals(0, wc.immData());
    assertFalse(wc.solicited());
    assertEquals(0, wc.qpNumber());
    assertEquals(0, wc.vendorError());
  }

  @Test
  void terminateVendorErrorPacksLayerTypeCode() {
    // RFC 5040 4.8: RDMAP (0) / Remote Operation (2) / catastrophic, localized (0x07)
    assertEquals(0x00_02_07, WorkCompletion.terminateVendorError(0, 2, 0x07));
    // DDP (1) / Untagged Buffer (2) / no buffer available (0x02)
    assertEquals(0x01_02_02, WorkCompletion.terminateVendorError(1, 2, 0x02));
    assertEquals(0x0F_0F_FF, WorkCompletion.terminateVendorError(15, 15, 255));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> WorkCompletion.terminateVendorError(16, 0, 0));
    assertEquals("Terminate layer 16, type 0, code 0: layer and type take 4 bits, code 8 bits",
        e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> WorkCompletion.terminateVendorError(0, -1, 0));
    assertThrows(IllegalArgumentException.class,
        () -> WorkCompletion.terminateVendorError(0, 0, 256));
  }

  @Test
  void byteLenOutsideTheRdmapRangeIsRejected() {
    WorkCompletion wc = new WorkCompletion();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> wc.byteLen(-1));
    assertEquals("byteLen -1 is outside 0..4294967295", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> wc.byteLen(1L << 32));
  }

  @Test
  void toStringShowsWhatIsSet() {
    assertEquals("WorkCompletion{wrId=-3, status=REM_ACCESS_ERR, opcode=RECV,"
        + " byteLen=4294967295, qp=17, invalidatedStag=0xabcd, immData=0x102030405060708,"
        + " solicited, vendorError=0x10100}", full().toString());
    assertEquals("WorkCompletion{wrId=0, status=null, opcode=null, byteLen=0, qp=0}",
        new WorkCompletion().toString());
  }

  @Test
  void statusesCarryTheirLibibverbsValues() {
    assertEquals(0, WcStatus.SUCCESS.ibvValue());
    assertEquals(1, WcStatus.LOC_LEN_ERR.ibvValue());
    assertEquals(2, WcStatus.LOC_QP_OP_ERR.ibvValue());
    assertEquals(4, WcStatus.LOC_PROT_ERR.ibvValue());
    assertEquals(5, WcStatus.WR_FLUSH_ERR.ibvValue());
    assertEquals(6, WcStatus.MW_BIND_ERR.ibvValue());
    assertEquals(7, WcStatus.BAD_RESP_ERR.ibvValue());
    assertEquals(8, WcStatus.LOC_ACCESS_ERR.ibvValue());
    assertEquals(9, WcStatus.REM_INV_REQ_ERR.ibvValue());
    assertEquals(10, WcStatus.REM_ACCESS_ERR.ibvValue());
    assertEquals(11, WcStatus.REM_OP_ERR.ibvValue());
    assertEquals(19, WcStatus.FATAL_ERR.ibvValue());
    assertEquals(21, WcStatus.GENERAL_ERR.ibvValue());
    Set<Integer> seen = new HashSet<>();
    for (WcStatus s : WcStatus.values()) {
      assertTrue(seen.add(s.ibvValue()), "duplicate ibv value " + s);
      assertEquals(s == WcStatus.SUCCESS, s.isSuccess());
    }
  }

  @Test
  void receiveOpcodes() {
    for (WcOpcode op : WcOpcode.values()) {
      assertEquals(op == WcOpcode.RECV || op == WcOpcode.RECV_IMMEDIATE_DATA, op.isReceive(),
          op.toString());
    }
  }

  @Test
  void workQueueFullExceptionNamesQueueAndDepth() {
    WorkQueueFullException e = new WorkQueueFullException("send queue", 128);
    assertEquals("send queue is full: it holds at most 128 work requests", e.getMessage());
    assertEquals("send queue", e.queue());
    assertEquals(128, e.depth());
  }
}
