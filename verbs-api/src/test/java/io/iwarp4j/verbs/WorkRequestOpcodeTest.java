package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class WorkRequestOpcodeTest {

  private static Set<WorkRequestOpcode> where(Predicate<WorkRequestOpcode> p) {
    EnumSet<WorkRequestOpcode> set = EnumSet.noneOf(WorkRequestOpcode.class);
    for (WorkRequestOpcode op : WorkRequestOpcode.values()) {
      if (p.test(op)) {
        set.add(op);
      }
    }
    return set;
  }

  @Test
  void fourteenOpcodesOfWhichFiveAreRfc7306() {
    assertEquals(14, WorkRequestOpcode.values().length);
    assertEquals(EnumSet.of(WorkRequestOpcode.ATOMIC_FETCH_ADD, WorkRequestOpcode.ATOMIC_CMP_SWAP,
        WorkRequestOpcode.IMMEDIATE_DATA, WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED,
        WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE), where(WorkRequestOpcode::isRfc7306));
  }

  @Test
  void remoteBufferOpcodes() {
    assertEquals(EnumSet.of(WorkRequestOpcode.RDMA_WRITE, WorkRequestOpcode.RDMA_READ,
        WorkRequestOpcode.ATOMIC_FETCH_ADD, WorkRequestOpcode.ATOMIC_CMP_SWAP,
        WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE),
        where(WorkRequestOpcode::needsRemoteBuffer));
  }

  @Test
  void opcodesConsumingAPeerReceive() {
    // RFC 5040 4.6/4.7 Sends and RFC 7306 6.3 Immediate Data use an untagged buffer on QN 0;
    // Atomic Requests use QN 1 like Read Requests and consume no posted receive.
    assertEquals(EnumSet.of(WorkRequestOpcode.SEND, WorkRequestOpcode.SEND_WITH_INVALIDATE,
        WorkRequestOpcode.SEND_WITH_SOLICITED, WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE,
        WorkRequestOpcode.IMMEDIATE_DATA, WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED,
        WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE),
        where(WorkRequestOpcode::consumesRemoteReceive));
    assertEquals(where(WorkRequestOpcode::consumesRemoteReceive),
        where(WorkRequestOpcode::canSolicitEvent));
  }

  @Test
  void solicitedInvalidateAtomicAndImmediateSubsets() {
    assertEquals(EnumSet.of(WorkRequestOpcode.SEND_WITH_SOLICITED,
        WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE,
        WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED),
        where(WorkRequestOpcode::isSolicited));
    assertEquals(EnumSet.of(WorkRequestOpcode.SEND_WITH_INVALIDATE,
        WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE),
        where(WorkRequestOpcode::carriesInvalidateStag));
    assertEquals(EnumSet.of(WorkRequestOpcode.ATOMIC_FETCH_ADD,
        WorkRequestOpcode.ATOMIC_CMP_SWAP), where(WorkRequestOpcode::isAtomic));
    assertEquals(EnumSet.of(WorkRequestOpcode.IMMEDIATE_DATA,
        WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED,
        WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE),
        where(WorkRequestOpcode::carriesImmediateData));
  }

  @Test
  void opcodesWhoseSgesAreTheSourceOfTheMessage() {
    assertEquals(EnumSet.of(WorkRequestOpcode.RDMA_WRITE, WorkRequestOpcode.SEND,
        WorkRequestOpcode.SEND_WITH_INVALIDATE, WorkRequestOpcode.SEND_WITH_SOLICITED,
        WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE,
        WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE), where(WorkRequestOpcode::sendsLocalData));
  }

  @Test
  void localMemoryOperations() {
    assertEquals(EnumSet.of(WorkRequestOpcode.REG_MR, WorkRequestOpcode.LOCAL_INV,
        WorkRequestOpcode.BIND_MW), where(WorkRequestOpcode::isLocal));
    assertEquals(WcOpcode.BIND_MW, WorkRequestOpcode.BIND_MW.completionOpcode());
    assertEquals(WcOpcode.REG_MR, WorkRequestOpcode.REG_MR.completionOpcode());
    assertEquals(WcOpcode.LOCAL_INV, WorkRequestOpcode.LOCAL_INV.completionOpcode());
  }

  @Test
  void completionOpcodes() {
    assertEquals(WcOpcode.SEND, WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE
        .completionOpcode());
    assertEquals(WcOpcode.RDMA_READ, WorkRequestOpcode.RDMA_READ.completionOpcode());
    assertEquals(WcOpcode.ATOMIC_CMP_SWAP, WorkRequestOpcode.ATOMIC_CMP_SWAP.completionOpcode());
    assertEquals(WcOpcode.IMMEDIATE_DATA,
        WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED.completionOpcode());
    assertEquals(WcOpcode.RDMA_WRITE_WITH_IMMEDIATE,
        WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE.completionOpcode());
    for (WorkRequestOpcode op : WorkRequestOpcode.values()) {
      assertEquals(false, op.completionOpcode().isReceive(), op.toString());
    }
  }
}
