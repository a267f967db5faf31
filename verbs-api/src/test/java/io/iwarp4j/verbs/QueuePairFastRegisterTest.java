package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.SendFlags.SIGNALED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * REG_MR and LOCAL_INV on the send queue, on a hand-run loop: executed in order with the other
 * work requests, completed in order, the key changing on every registration, and each misuse
 * failing the work request (LOC_QP_OP_ERR, the queue pair in ERROR) or the post.
 */
class QueuePairFastRegisterTest {
  private static final int RW = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ;

  private QpHarness h;
  private ByteBuf memory;
  private FastRegisterRegion fr;

  @BeforeEach
  void setUp() {
    h = new QpHarness(16, 4, 32).connected();
    memory = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
    for (int i = 0; i < 4096; i++) {
      memory.setByte(i, i * 7);
    }
    fr = h.pd.allocateFastRegisterRegion(1024);
  }

  @AfterEach
  void tearDown() {
    h.close(); // closes fr too (the domain's closeAll)
    assertTrue(fr.isClosed());
    assertEquals(1, memory.refCnt(), "every registration dropped its memory reference");
    memory.release();
  }

  private SendWorkRequest regMr(long wrId, int stag, int index, int length) {
    return new SendWorkRequest(2).wrId(wrId).opcode(WorkRequestOpcode.REG_MR).flags(SIGNALED)
        .fastRegister(fr, stag, memory, index, length, RW);
  }

  private static SendWorkRequest localInv(long wrId, int stag) {
    return new SendWorkRequest(2).wrId(wrId).opcode(WorkRequestOpcode.LOCAL_INV)
        .flags(SIGNALED).invalidateStag(stag);
  }

  private List<WcOpcode> opcodes(List<WorkCompletion> wcs) {
    return wcs.stream().map(WorkCompletion::opcode).toList();
  }

  @Test
  void allocatedRegionIsInvalid() {
    assertFalse(fr.isValid());
    assertEquals(0, fr.registeredLength());
    assertEquals(1024, fr.length(), "SGEs may name any range within the capacity");
    assertThrows(IllegalStateException.class, fr::remote);
    assertThrows(IllegalStateException.class, fr::buffer);
    assertEquals(1024, fr.maxLength());
  }

  @Test
  void aWritePostedAfterRegMrSendsTheBoundOctetsAndLocalInvWaitsItsTurn() {
    h.ep.capturePayload = true;
    int stag = fr.nextStag();
    h.qp.postSend(regMr(1, stag, 100, 512));
    h.qp.postSend(new SendWorkRequest(2).wrId(2).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SIGNALED).remote(0x1234, 0x1000).addSge(fr, 8, 64));
    h.qp.postSend(localInv(3, stag));
    h.loop.runAll();

    assertEquals(1, h.ep.issued, "one Write on the wire; REG_MR and LOCAL_INV send nothing");
    byte[] expected = new byte[64];
    memory.getBytes(108, expected);
    assertArrayEquals(expected, Arrays.copyOf(h.ep.lastPayload, h.ep.lastPayloadLength));
    assertFalse(fr.isValid(), "LOCAL_INV ran when its turn came, behind the Write");
    assertEquals(List.of(WcOpcode.REG_MR), opcodes(h.sendCompletions()),
        "LOCAL_INV completes only after the Write before it");
    h.completeSend(h.ep.tokens[0]);
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(List.of(WcOpcode.RDMA_WRITE, WcOpcode.LOCAL_INV), opcodes(wcs));
    assertTrue(wcs.stream().allMatch(WorkCompletion::isSuccess), wcs.toString());
    assertEquals(3, wcs.get(1).wrId());
    assertEquals(QpState.RTS, h.qp.state());
  }

  @Test
  void aReadSinkIsTheRegistrationCurrentWhenTheReadIsIssued() {
    int stag = fr.nextStag();
    h.qp.postSend(regMr(1, stag, 256, 128));
    h.qp.postSend(new SendWorkRequest(2).wrId(2).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SIGNALED).remote(0x5678, 0x2000).addSge(fr, 16, 32));
    h.loop.runAll();
    assertEquals(stag, h.ep.lastSinkStag);
    assertEquals(memory.memoryAddress() + 256 + 16, h.ep.lastSinkTo);
    assertEquals(fr.address() + 16, h.ep.lastSinkTo);
    assertEquals(new RemoteBuffer(stag, memory.memoryAddress() + 256, 128), fr.remote());
  }

  @Test
  void theKeyChangesOnEveryRegistration() {
    Set<Integer> stags = new HashSet<>();
    stags.add(fr.stag());
    int completed = 0;
    for (int round = 0; round < 20; round++) {
      int stag = fr.nextStag();
      h.qp.postSend(regMr(round * 2, stag, round, 64));
      h.qp.postSend(localInv(round * 2 + 1, stag));
      h.loop.runAll();
      assertEquals(stag, fr.stag(), "round " + round + ": " + h.errors);
      assertTrue(stags.add(stag), "STag 0x" + Integer.toHexString(stag) + " repeated");
      assertEquals(fr.stag() >>> 8, stag >>> 8, "same index");
      List<WorkCompletion> wcs = h.sendCompletions();
      assertTrue(wcs.stream().allMatch(WorkCompletion::isSuccess), wcs.toString());
      completed += wcs.size();
    }
    assertEquals(40, completed);
  }

  @Test
  void aWriteFromTheRegionBeforeAnyRegistrationFailsLocProtErr() {
    h.qp.postSend(new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SIGNALED).remote(0x1234, 0x1000).addSge(fr, 0, 0));
    h.loop.runAll();
    assertFailed(WcStatus.LOC_PROT_ERR, "may not use");
  }

  @Test
  void aWriteFromTheRegionAfterLocalInvFailsLocProtErr() {
    int stag = fr.nextStag();
    h.qp.postSend(regMr(1, stag, 0, 64));
    h.qp.postSend(localInv(2, stag));
    h.qp.postSend(new SendWorkRequest(2).wrId(3).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SIGNALED).remote(0x1234, 0x1000).addSge(fr, 0, 16));
    h.loop.runAll();
    assertEquals(0, h.ep.issued, "nothing sent from invalidated memory");
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(List.of(WcOpcode.REG_MR, WcOpcode.LOCAL_INV, WcOpcode.RDMA_WRITE), opcodes(wcs));
    assertEquals(WcStatus.LOC_PROT_ERR, wcs.get(2).status());
    assertEquals(QpState.ERROR, h.qp.state());
  }

  @Test
  void regMrBeyondTheCapacityFails() {
    h.qp.postSend(regMr(1, fr.nextStag(), 0, 1025));
    h.qp.postSend(h.write(2, SIGNALED));
    h.loop.runAll();
    assertFailed(WcStatus.LOC_QP_OP_ERR, "capacity of 1024");
    assertFalse(fr.isValid());
  }

  @Test
  void regMrOfAValidRegionFails() {
    int stag = fr.nextStag();
    h.qp.postSend(regMr(1, stag, 0, 64));
    h.qp.postSend(regMr(2, fr.nextStag(), 64, 64));
    h.loop.runAll();
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(2, wcs.size(), wcs.toString());
    assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
    assertEquals(WcStatus.LOC_QP_OP_ERR, wcs.get(1).status());
    assertEquals(QpState.ERROR, h.qp.state());
    assertTrue(h.errors.get(0).reason().contains("still valid"), h.errors.toString());
    assertEquals(stag, fr.stag(), "the valid registration stays");
  }

  @Test
  void regMrWithTheCurrentKeyFails() {
    h.qp.postSend(regMr(1, fr.stag(), 0, 64));
    h.loop.runAll();
    assertFailed(WcStatus.LOC_QP_OP_ERR, "current key");
  }

  @Test
  void regMrOfAReleasedBufferFails() {
    ByteBuf gone = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
    h.qp.postSend(new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.REG_MR)
        .fastRegister(fr, fr.nextStag(), gone, 0, 64, RW));
    gone.release();
    h.loop.runAll();
    assertFailed(WcStatus.LOC_QP_OP_ERR, "released");
  }

  @Test
  void regMrOfARegionOfAnotherDomainFails() {
    ProtectionDomain other = new ProtectionDomain(null, h.table.newProtectionDomain());
    FastRegisterRegion foreign = other.allocateFastRegisterRegion(64);
    try {
      h.qp.postSend(new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.REG_MR)
          .flags(SIGNALED).fastRegister(foreign, foreign.nextStag(), memory, 0, 64, RW));
      h.loop.runAll();
      assertFailed(WcStatus.LOC_QP_OP_ERR, "another protection domain");
      assertFalse(foreign.isValid());
    } finally {
      other.closeAll();
    }
  }

  @Test
  void localInvOfAnStagOfAnotherDomainFails() {
    ProtectionDomain other = new ProtectionDomain(null, h.table.newProtectionDomain());
    MemoryRegion foreign = other.allocate(64, RW);
    try {
      h.qp.postSend(localInv(1, foreign.stag()));
      h.loop.runAll();
      assertFailed(WcStatus.LOC_QP_OP_ERR, "another protection domain");
      assertTrue(foreign.isValid(), "another domain's STag is untouched");
    } finally {
      other.closeAll();
    }
  }

  @Test
  void localInvOfAnUnknownStagFails() {
    h.qp.postSend(localInv(1, 0x7F_FF_FF_00));
    h.loop.runAll();
    assertFailed(WcStatus.LOC_QP_OP_ERR, "is not valid");
  }

  @Test
  void localInvOfAStaleKeyFails() {
    int first = fr.nextStag();
    h.qp.postSend(regMr(1, first, 0, 64));
    h.qp.postSend(localInv(2, first));
    h.qp.postSend(regMr(3, fr.nextStag(), 0, 64));
    h.qp.postSend(localInv(4, first));
    h.loop.runAll();
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(WcStatus.LOC_QP_OP_ERR, wcs.get(3).status(), wcs.toString());
    assertTrue(fr.isValid(), "the current registration is untouched by its old STag");
    assertTrue(h.errors.get(0).reason().contains("is not valid"), h.errors.toString());
  }

  @Test
  void localInvOfTheCurrentStagAlreadyInvalidatedByThePeerSucceedsAsInSiw() {
    int stag = fr.nextStag();
    h.qp.postSend(regMr(1, stag, 0, 64));
    h.loop.runAll();
    assertEquals(io.iwarp4j.ddp.mem.InvalidateResult.OK,
        h.table.remoteInvalidate(stag, h.pd.ddp()), "a peer's Send with Invalidate");
    h.qp.postSend(localInv(2, stag));
    h.qp.postSend(localInv(3, stag));
    h.loop.runAll();
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(List.of(WcOpcode.REG_MR, WcOpcode.LOCAL_INV, WcOpcode.LOCAL_INV), opcodes(wcs));
    assertTrue(wcs.stream().allMatch(WorkCompletion::isSuccess), wcs.toString());
    assertEquals(QpState.RTS, h.qp.state());
  }

  @Test
  void localInvOfAPlainRegionInvalidatesIt() {
    h.qp.postSend(localInv(1, h.mr.stag()));
    h.loop.runAll();
    assertEquals(List.of(WcOpcode.LOCAL_INV), opcodes(h.sendCompletions()));
    assertFalse(h.mr.isValid());
  }

  @Test
  void postRefusesIncompleteOrMisdirectedWorkRequests() {
    FastRegisterRegion other = h.pd.allocateFastRegisterRegion(64);
    assertProblem(new SendWorkRequest(2).opcode(WorkRequestOpcode.REG_MR), "needs the registration");
    assertProblem(new SendWorkRequest(2).opcode(WorkRequestOpcode.LOCAL_INV), "needs the STag");
    assertProblem(regMr(1, other.nextStag(), 0, 64), "does not name fast-register region");
    assertProblem(regMr(1, fr.nextStag(), 4000, 200), "outside the buffer's capacity");
    assertProblem(regMr(1, fr.nextStag(), 0, 64).addSge(h.mr, 0, 8), "carries no SGEs");
    assertProblem(new SendWorkRequest(2).opcode(WorkRequestOpcode.REG_MR)
        .fastRegister(fr, fr.nextStag(), Unpooled.buffer(64), 0, 64, RW), "direct");
    assertProblem(new SendWorkRequest(2).opcode(WorkRequestOpcode.REG_MR)
        .fastRegister(fr, fr.nextStag(), memory, 0, 64, AccessFlags.REMOTE_WRITE), "LOCAL_WRITE");
    assertProblem(regMr(1, fr.nextStag(), 0, 64).flags(SendFlags.INLINE), "INLINE");
    IllegalArgumentException recv = assertThrows(IllegalArgumentException.class,
        () -> h.qp.postRecv(new RecvWorkRequest(1).addSge(fr, 0, 0)));
    assertTrue(recv.getMessage().contains("cannot take receives"), recv.getMessage());
    h.loop.runAll();
    assertEquals(0, h.sendCompletions().size(), "nothing was posted");
  }

  @Test
  void theSendQueueSlotForgetsTheRegistrationOnceItRan() throws Exception {
    h.qp.postSend(regMr(1, fr.nextStag(), 0, 64));
    h.loop.runAll();
    java.lang.reflect.Field field = QueuePair.class.getDeclaredField("sq");
    field.setAccessible(true);
    io.iwarp4j.verbs.engine.SendQueue sq = (io.iwarp4j.verbs.engine.SendQueue) field.get(h.qp);
    io.iwarp4j.verbs.engine.SendQueue.Entry e = sq.entry(0); // the REG_MR's slot, retired
    assertEquals(WorkRequestOpcode.REG_MR, e.wr.opcode());
    assertEquals(null, e.wr.registration().memory(), "the slot still references the buffer");
    assertEquals(null, e.wr.registration().region(), "the slot still references the region");
  }

  @Test
  void closingTheRegionInvalidatesTheStag() {
    int stag = fr.nextStag();
    h.qp.postSend(regMr(1, stag, 0, 64));
    h.loop.runAll();
    assertTrue(fr.isValid());
    assertEquals(2, memory.refCnt());
    fr.close();
    assertFalse(fr.isValid());
    assertEquals(null, h.table.lookup(stag));
    assertEquals(1, memory.refCnt());
    assertNotEquals(0, h.sendCompletions().size());
  }

  private void assertProblem(SendWorkRequest wr, String fragment) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> h.qp.postSend(wr));
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }

  /** The first work request failed with {@code status}; the queue pair is in ERROR. */
  private void assertFailed(WcStatus status, String reason) {
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(status, wcs.get(0).status(), wcs.toString());
    for (int i = 1; i < wcs.size(); i++) {
      assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status(), wcs.toString());
    }
    assertEquals(QpState.ERROR, h.qp.state());
    assertEquals(1, h.errors.size());
    assertTrue(h.errors.get(0).reason().contains(reason), h.errors.get(0).reason());
  }
}
