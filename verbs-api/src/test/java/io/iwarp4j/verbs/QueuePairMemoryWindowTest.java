package io.iwarp4j.verbs;

import static io.iwarp4j.verbs.SendFlags.SIGNALED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.StagCheck;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * BIND_MW on the send queue, on a hand-run loop: executed in order, scoped to the queue pair's
 * stream, invalidated by LOCAL_INV, and each misuse failing the work request with MW_BIND_ERR
 * (the queue pair in ERROR) or the post.
 */
class QueuePairMemoryWindowTest {
  private static final int RW = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ;

  private QpHarness h;
  private MemoryRegion mr;
  private MemoryWindow mw;

  @BeforeEach
  void setUp() {
    h = new QpHarness(16, 4, 32).connected();
    mr = h.pd.allocate(4096, RW | AccessFlags.MW_BIND);
    mw = h.pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
  }

  @AfterEach
  void tearDown() {
    h.close(); // closes mr and mw too (the domain's closeAll)
    assertTrue(mw.isClosed());
  }

  private SendWorkRequest bind(long wrId, int stag, MemoryRegion region, long offset, int length,
      int access) {
    return new SendWorkRequest(2).wrId(wrId).opcode(WorkRequestOpcode.BIND_MW).flags(SIGNALED)
        .bindMemoryWindow(mw, stag, region, offset, length, access);
  }

  private static SendWorkRequest localInv(long wrId, int stag) {
    return new SendWorkRequest(2).wrId(wrId).opcode(WorkRequestOpcode.LOCAL_INV)
        .flags(SIGNALED).invalidateStag(stag);
  }

  private StagCheck check(int stag, long to, int length, int access, Object stream) {
    return h.table.check(stag, to, length, access, h.pd.ddp(), stream);
  }

  @Test
  void aBoundWindowIsValidOnTheQueuePairsStreamOnly() {
    assertFalse(mw.isValid());
    assertThrows(IllegalStateException.class, mw::remote);
    int stag = mw.nextStag();
    h.qp.postSend(bind(1, stag, mr, 256, 128, AccessFlags.REMOTE_WRITE));
    h.loop.runAll();
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(1, wcs.size());
    assertEquals(WcOpcode.BIND_MW, wcs.get(0).opcode());
    assertTrue(wcs.get(0).isSuccess(), wcs.toString());
    assertTrue(mw.isValid());
    assertEquals(new RemoteBuffer(stag, mr.address() + 256, 128), mw.remote());
    assertSame(h.ep, h.table.lookup(stag).scope(), "scoped to the queue pair's stream");
    assertEquals(StagCheck.OK, check(stag, mr.address() + 256, 128, AccessFlags.REMOTE_WRITE,
        h.ep));
    assertEquals(StagCheck.NOT_ASSOCIATED, check(stag, mr.address() + 256, 128,
        AccessFlags.REMOTE_WRITE, new Object()), "another stream");
    assertEquals(StagCheck.ACCESS_VIOLATION, check(stag, mr.address() + 256, 128,
        AccessFlags.REMOTE_READ, h.ep), "the window's own access, not the region's");
    assertEquals(QpState.RTS, h.qp.state());
  }

  @Test
  void bindRunsInSendQueueOrderAndLocalInvInvalidatesIt() {
    int stag = mw.nextStag();
    h.qp.postSend(h.write(1, SIGNALED));
    h.qp.postSend(bind(2, stag, mr, 0, 64, AccessFlags.REMOTE_READ));
    h.qp.postSend(localInv(3, stag));
    h.loop.runAll();
    assertFalse(mw.isValid(), "LOCAL_INV ran after the bind");
    assertEquals(List.of(), h.sendCompletions(), "both wait behind the Write");
    h.completeSend(h.ep.tokens[0]);
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(List.of(WcOpcode.RDMA_WRITE, WcOpcode.BIND_MW, WcOpcode.LOCAL_INV),
        wcs.stream().map(WorkCompletion::opcode).toList());
    assertTrue(wcs.stream().allMatch(WorkCompletion::isSuccess), wcs.toString());
    assertEquals(StagCheck.INVALID_STAG, check(stag, mr.address(), 1, AccessFlags.REMOTE_READ,
        h.ep));
    // Bound again, with a new key, once invalid.
    int next = mw.nextStag();
    h.qp.postSend(bind(4, next, mr, 64, 64, AccessFlags.REMOTE_READ));
    h.loop.runAll();
    assertTrue(h.sendCompletions().get(0).isSuccess());
    assertTrue(mw.isValid());
    assertEquals(next, mw.stag());
  }

  @Test
  void aRegionWithoutMwBindFailsMwBindErr() {
    MemoryRegion plain = h.pd.allocate(256, RW);
    h.qp.postSend(bind(1, mw.nextStag(), plain, 0, 64, AccessFlags.REMOTE_READ));
    h.qp.postSend(h.write(2, SIGNALED));
    h.loop.runAll();
    assertFailed(WcStatus.MW_BIND_ERR, "MW_BIND");
    assertFalse(mw.isValid());
  }

  @Test
  void accessBeyondTheRegionsFailsMwBindErr() {
    MemoryRegion readOnly = h.pd.allocate(256, AccessFlags.REMOTE_READ | AccessFlags.MW_BIND);
    h.qp.postSend(bind(1, mw.nextStag(), readOnly, 0, 64, AccessFlags.REMOTE_WRITE));
    h.loop.runAll();
    assertFailed(WcStatus.MW_BIND_ERR, "exceeds the region's");
  }

  @Test
  void aRangeOutsideTheRegionFailsMwBindErr() {
    h.qp.postSend(bind(1, mw.nextStag(), mr, 4000, 200, AccessFlags.REMOTE_READ));
    h.loop.runAll();
    assertFailed(WcStatus.MW_BIND_ERR, "outside the region");
  }

  @Test
  void bindingABoundWindowAgainFailsMwBindErr() {
    h.qp.postSend(bind(1, mw.nextStag(), mr, 0, 64, AccessFlags.REMOTE_READ));
    h.qp.postSend(bind(2, mw.nextStag(), mr, 0, 64, AccessFlags.REMOTE_READ));
    h.loop.runAll();
    List<WorkCompletion> wcs = h.sendCompletions();
    assertTrue(wcs.get(0).isSuccess(), wcs.toString());
    assertEquals(WcStatus.MW_BIND_ERR, wcs.get(1).status(), wcs.toString());
    assertTrue(h.errors.get(0).reason().contains("still bound"), h.errors.get(0).reason());
  }

  @Test
  void aMalformedBindIsRefusedWhenPosted() {
    SendWorkRequest none = new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.BIND_MW);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> h.qp.postSend(none))
        .getMessage().contains("bindMemoryWindow"));
    SendWorkRequest otherSlot = bind(2, mw.nextStag() ^ 0x100, mr, 0, 64,
        AccessFlags.REMOTE_READ);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> h.qp.postSend(otherSlot))
        .getMessage().contains("does not name memory window"));
    SendWorkRequest withSge = bind(3, mw.nextStag(), mr, 0, 64, AccessFlags.REMOTE_READ)
        .addSge(mr, 0, 8);
    assertThrows(IllegalArgumentException.class, () -> h.qp.postSend(withSge));
    h.loop.runAll();
    assertEquals(List.of(), h.sendCompletions());
    assertEquals(QpState.RTS, h.qp.state());
  }

  @Test
  void closeCheckedRefusesWhileAWindowIsBoundAndCloseInvalidatesIt() {
    int stag = mw.nextStag();
    h.qp.postSend(bind(1, stag, mr, 0, 64, AccessFlags.REMOTE_WRITE));
    h.loop.runAll();
    assertTrue(mw.isValid());
    IllegalStateException e = assertThrows(IllegalStateException.class, mr::closeChecked);
    assertTrue(e.getMessage().contains("memory window"), e.getMessage());
    assertFalse(mr.isClosed(), "refused: still registered");
    assertTrue(mw.isValid());
    mr.close();
    assertFalse(mw.isValid(), "deregistering the region invalidated its window");
    assertNull(h.table.lookup(stag));
  }

  @Test
  void closingTheWindowFreesItsSlot() {
    int before = h.table.registeredCount();
    h.qp.postSend(bind(1, mw.nextStag(), mr, 0, 64, AccessFlags.REMOTE_WRITE));
    h.loop.runAll();
    mw.close();
    assertFalse(mw.isValid());
    assertEquals(before - 1, h.table.registeredCount());
    assertFalse(mr.isClosed());
  }

  @Test
  void aType1WindowIsBoundByTheVerbAndUsableOnEveryStreamOfTheDomain() {
    MemoryWindow t1 = h.pd.allocateMemoryWindow(MemoryWindowType.TYPE_1);
    int first = h.qp.bindMemoryWindow(t1, 7, SIGNALED, mr, 0, 64, AccessFlags.REMOTE_WRITE);
    h.loop.runAll();
    WorkCompletion wc = h.sendCompletions().get(0);
    assertTrue(wc.isSuccess(), wc.toString());
    assertEquals(WcOpcode.BIND_MW, wc.opcode());
    assertEquals(7, wc.wrId());
    assertEquals(first, t1.stag());
    assertNull(h.table.lookup(first).scope(), "domain-scoped");
    assertEquals(StagCheck.OK, check(first, mr.address(), 64, AccessFlags.REMOTE_WRITE, h.ep));
    assertEquals(StagCheck.OK, check(first, mr.address(), 64, AccessFlags.REMOTE_WRITE,
        new Object()), "any stream of the domain");
    assertEquals(io.iwarp4j.ddp.mem.InvalidateResult.CANNOT_INVALIDATE,
        h.table.remoteInvalidate(first, h.pd.ddp(), h.ep), "shared: no remote invalidation");
    // A new bind replaces the binding, with a new key; length 0 unbinds.
    int second = h.qp.bindMemoryWindow(t1, 8, SIGNALED, mr, 64, 64, AccessFlags.REMOTE_READ);
    h.loop.runAll();
    assertTrue(h.sendCompletions().get(0).isSuccess());
    assertTrue(first != second);
    assertNull(h.table.lookup(first));
    assertEquals(StagCheck.OK, check(second, mr.address() + 64, 64, AccessFlags.REMOTE_READ,
        h.ep));
    h.qp.bindMemoryWindow(t1, 9, SIGNALED, mr, 0, 0, 0);
    h.loop.runAll();
    assertTrue(h.sendCompletions().get(0).isSuccess());
    assertFalse(t1.isValid());
    assertEquals(QpState.RTS, h.qp.state());
  }

  @Test
  void type1AndType2AreBoundTheirOwnWayOnly() {
    MemoryWindow t1 = h.pd.allocateMemoryWindow(MemoryWindowType.TYPE_1);
    SendWorkRequest wr = new SendWorkRequest(0).wrId(1).opcode(WorkRequestOpcode.BIND_MW)
        .bindMemoryWindow(t1, t1.nextStag(), mr, 0, 64, AccessFlags.REMOTE_READ);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> h.qp.postSend(wr))
        .getMessage().contains("ibv_bind_mw"));
    assertThrows(IllegalArgumentException.class,
        () -> h.qp.bindMemoryWindow(mw, 2, SIGNALED, mr, 0, 64, AccessFlags.REMOTE_READ));
    h.loop.runAll();
    assertEquals(List.of(), h.sendCompletions());
  }

  @Test
  void localInvOfAType1WindowFails() {
    MemoryWindow t1 = h.pd.allocateMemoryWindow(MemoryWindowType.TYPE_1);
    int stag = h.qp.bindMemoryWindow(t1, 1, SIGNALED, mr, 0, 64, AccessFlags.REMOTE_READ);
    h.loop.runAll();
    assertTrue(h.sendCompletions().get(0).isSuccess());
    h.qp.postSend(localInv(2, stag));
    h.loop.runAll();
    assertFailed(WcStatus.LOC_QP_OP_ERR, "type 1 memory window");
    assertTrue(t1.isValid());
  }

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
