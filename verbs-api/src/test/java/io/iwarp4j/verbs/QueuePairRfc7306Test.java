package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue pair's RFC 7306 paths against a fake endpoint: what each opcode issues, that Atomics
 * share ORD and FENCE with Reads, the completions' opcodes and lengths, Immediate Data receive
 * completions, and a result buffer the queue pair may not write.
 */
class QueuePairRfc7306Test {
  private QpHarness h;

  @AfterEach
  void tearDown() {
    h.close();
  }

  private SendWorkRequest fetchAdd(long wrId) {
    return new SendWorkRequest(2).wrId(wrId).opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD)
        .flags(SendFlags.SIGNALED).remote(0x77, 0x1008).addData(5).addMask(0x8000_0000L)
        .localResult(h.mr, 16);
  }

  @Test
  void fetchAddIssuesItsFieldsAndCompletesWithEightOctets() {
    h = new QpHarness(8, 8, 16).connected();
    h.qp.postSend(fetchAdd(1));
    h.loop.runAll();
    assertEquals(FakeEndpoint.ATOMIC, h.ep.kinds[0]);
    assertEquals(AtomicOpcode.FETCH_ADD, h.ep.lastAtomicOpcode);
    assertEquals(0x77, h.ep.lastRemoteStag);
    assertEquals(0x1008, h.ep.lastRemoteTo);
    assertEquals(5, h.ep.lastAtomicData);
    assertEquals(0x8000_0000L, h.ep.lastAtomicMask);
    assertEquals(h.mr.stag(), h.ep.lastResultStag);
    assertEquals(h.mr.baseTo() + 16, h.ep.lastResultTo);
    h.completeRead(h.ep.tokens[0], 8);
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(1, wcs.size());
    assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
    assertEquals(WcOpcode.ATOMIC_FETCH_ADD, wcs.get(0).opcode());
    assertEquals(8, wcs.get(0).byteLen());
  }

  @Test
  void cmpSwapIssuesCompareAndSwapFields() {
    h = new QpHarness(8, 8, 16).connected();
    h.qp.postSend(new SendWorkRequest(2).wrId(2).opcode(WorkRequestOpcode.ATOMIC_CMP_SWAP)
        .remote(0x77, 0x2000).compareData(3).compareMask(0xff).swapData(9).swapMask(0xf0)
        .localResult(h.mr, 0));
    h.loop.runAll();
    assertEquals(AtomicOpcode.CMP_SWAP, h.ep.lastAtomicOpcode);
    assertEquals(9, h.ep.lastAtomicData);
    assertEquals(0xf0, h.ep.lastAtomicMask);
    assertEquals(3, h.ep.lastCompareData);
    assertEquals(0xff, h.ep.lastCompareMask);
  }

  @Test
  void atomicsWaitForOrdLikeReads() {
    h = new QpHarness(8, 8, 16).connected();
    h.ep.ord = 1;
    h.qp.postSend(h.read(1, SendFlags.SIGNALED));
    h.qp.postSend(fetchAdd(2));
    h.loop.runAll();
    assertEquals(1, h.ep.issued, "the Atomic waits: ORD 1 is held by the Read");
    h.completeRead(h.ep.tokens[0], 32);
    h.loop.runAll();
    assertEquals(2, h.ep.issued);
    assertEquals(FakeEndpoint.ATOMIC, h.ep.kinds[1]);
  }

  @Test
  void fenceWaitsForAnOutstandingAtomic() {
    h = new QpHarness(8, 8, 16).connected();
    h.qp.postSend(fetchAdd(1));
    h.qp.postSend(h.send(2, SendFlags.FENCE));
    h.loop.runAll();
    assertEquals(1, h.ep.issued, "the fenced Send waits for the Atomic");
    h.completeRead(h.ep.tokens[0], 8);
    h.loop.runAll();
    assertEquals(2, h.ep.issued);
  }

  @Test
  void immediateDataAndWriteWithImmediate() {
    h = new QpHarness(8, 8, 16).connected();
    h.qp.postSend(new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.IMMEDIATE_DATA)
        .flags(SendFlags.SIGNALED | SendFlags.SOLICITED).immData(0xabc));
    h.qp.postSend(new SendWorkRequest(2).wrId(2)
        .opcode(WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE).flags(SendFlags.SIGNALED)
        .remote(0x99, 0x4000).addSge(h.mr, 0, 64).immData(7));
    h.loop.runAll();
    assertEquals(FakeEndpoint.IMMEDIATE, h.ep.kinds[0]);
    assertEquals(FakeEndpoint.WRITE_IMMEDIATE, h.ep.kinds[1]);
    assertEquals(64, h.ep.lengths[1]);
    assertEquals(7, h.ep.lastImmediate);
    assertFalse(h.ep.lastSolicited);
    h.completeSend(h.ep.tokens[0]);
    h.completeSend(h.ep.tokens[1]);
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(WcOpcode.IMMEDIATE_DATA, wcs.get(0).opcode());
    assertEquals(WcOpcode.RDMA_WRITE_WITH_IMMEDIATE, wcs.get(1).opcode());
  }

  @Test
  void receivedImmediateDataCompletesAReceiveWithItsOctets() {
    h = new QpHarness(8, 8, 16).connected();
    h.qp.postRecv(h.recv(40));
    h.qp.postRecv(h.recv(41));
    h.loop.runAll();
    h.qp.endpointListener().onImmediateData(0, RdmapOpcode.IMMEDIATE_DATA, 0x1122L);
    h.qp.endpointListener().onImmediateData(1, RdmapOpcode.IMMEDIATE_DATA_WITH_SE, -1L);
    List<WorkCompletion> wcs = h.recvCompletions();
    assertEquals(2, wcs.size());
    assertEquals(40, wcs.get(0).wrId());
    assertEquals(WcOpcode.RECV_IMMEDIATE_DATA, wcs.get(0).opcode());
    assertTrue(wcs.get(0).hasImmData());
    assertEquals(0x1122L, wcs.get(0).immData());
    assertEquals(0, wcs.get(0).byteLen());
    assertFalse(wcs.get(0).solicited());
    assertEquals(-1L, wcs.get(1).immData());
    assertTrue(wcs.get(1).solicited());
  }

  @Test
  void aResultBufferWithoutLocalWriteIsALocalProtectionError() {
    h = new QpHarness(8, 8, 16).connected();
    MemoryRegion readOnly = h.pd.allocate(64, io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ);
    h.qp.postSend(new SendWorkRequest(2).wrId(5).opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD)
        .remote(0x77, 0x1000).localResult(readOnly, 0));
    h.loop.runAll();
    assertEquals(0, h.ep.issued);
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(WcStatus.LOC_PROT_ERR, wcs.get(0).status());
    assertEquals(QpState.ERROR, h.qp.state());
  }
}
