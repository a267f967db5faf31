package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.wire.RdmapOpcode;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The queue pair's states, posting limits, issue order and completion order, on a fake endpoint. */
class QueuePairTest {
  private QpHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  // ---- states ----

  @Test
  void aNewQueuePairIsInitAndRefusesSendsNamingTheState() {
    h = new QpHarness(4, 4, 16);
    assertEquals(QpState.INIT, h.qp.state());
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> h.qp.postSend(h.write(1, SendFlags.SIGNALED)));
    assertTrue(e.getMessage().contains("INIT"), e.getMessage());
    assertTrue(e.getMessage().contains("postSend"), e.getMessage());
    h.qp.postRecv(h.recv(1)); // receives are fine before connecting
    assertEquals(1, h.qp.outstandingReceives());
  }

  @Test
  void receivesPostedBeforeTheConnectionAreHandedOverInOrderAtRtr() {
    h = new QpHarness(4, 4, 16);
    h.qp.postRecv(h.recv(10));
    h.qp.postRecv(h.recv(11));
    h.attached();
    assertEquals(QpState.RTR, h.qp.state());
    assertEquals(2, h.ep.receives);
    assertEquals(0, h.ep.receiveIds[0]);
    assertEquals(1, h.ep.receiveIds[1]);
    assertEquals(1, h.ep.receivePieceCounts[0]);
    // The piece is the SGE's memory: 512 readable octets at offset 1024 of the region.
    assertEquals(512, h.ep.lastFirstPiece.readableBytes());
    h.mr.buffer().setByte(1024, 0x5A);
    assertEquals(0x5A, h.ep.lastFirstPiece.getByte(h.ep.lastFirstPiece.readerIndex()));
  }

  @Test
  void sendsWaitForRts() {
    h = new QpHarness(4, 4, 16).attached();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> h.qp.postSend(h.write(1, 0)));
    assertTrue(e.getMessage().contains("RTR"), e.getMessage());
    assertTrue(h.qp.binding().enableSend());
    assertEquals(QpState.RTS, h.qp.state());
    h.qp.postSend(h.write(1, SendFlags.SIGNALED));
    h.loop.runAll();
    assertEquals("W", h.ep.issuedKinds());
  }

  @Test
  void closeMovesToClosedFlushesAndRefusesPosts() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.postSend(h.write(1, 0));
    h.qp.postRecv(h.recv(2));
    h.qp.close();
    assertEquals(QpState.CLOSED, h.qp.state());
    assertEquals(1, h.ep.closes, "the connection is closed gracefully");
    List<WorkCompletion> s = h.sendCompletions();
    assertEquals(1, s.size());
    assertEquals(WcStatus.WR_FLUSH_ERR, s.get(0).status());
    assertEquals(WcStatus.WR_FLUSH_ERR, h.recvCompletions().get(0).status());
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> h.qp.postRecv(h.recv(3)));
    assertTrue(e.getMessage().contains("CLOSED"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> h.qp.postSend(h.write(4, 0)));
  }

  @Test
  void closeBeforeAnyConnectionFlushesPostedReceives() {
    h = new QpHarness(4, 4, 16);
    h.qp.postRecv(h.recv(5));
    h.qp.close();
    List<WorkCompletion> r = h.recvCompletions();
    assertEquals(1, r.size());
    assertEquals(5, r.get(0).wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, r.get(0).status());
  }

  // ---- posting rules ----

  @Test
  void rfc7306OpcodesAreRejectedClearlyWhenDisabled() {
    h = new QpHarness(4, 4, 16, 16, false, false).connected();
    SendWorkRequest atomic = new SendWorkRequest(2).wrId(9)
        .opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).remote(1, 8).localResult(h.mr, 0);
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> h.qp.postSend(atomic));
    assertTrue(e.getMessage().contains("RFC 7306"), e.getMessage());
    assertTrue(e.getMessage().contains("ATOMIC_FETCH_ADD"), e.getMessage());
    assertEquals(0, h.qp.outstandingSends());
  }

  @Test
  void malformedWorkRequestsAreRefusedWithTheirProblem() {
    h = new QpHarness(4, 4, 16).connected();
    SendWorkRequest noRemote = new SendWorkRequest(2).wrId(3)
        .opcode(WorkRequestOpcode.RDMA_WRITE).addSge(h.mr, 0, 8);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> h.qp.postSend(noRemote));
    assertTrue(e.getMessage().contains("remote"), e.getMessage());
    SendWorkRequest tooManySges = new SendWorkRequest(4).wrId(4).opcode(WorkRequestOpcode.SEND)
        .addSge(h.mr, 0, 8).addSge(h.mr, 8, 8).addSge(h.mr, 16, 8);
    e = assertThrows(IllegalArgumentException.class, () -> h.qp.postSend(tooManySges));
    assertTrue(e.getMessage().contains("maximum of 2"), e.getMessage());
    assertEquals(0, h.qp.outstandingSends(), "nothing was posted");
  }

  @Test
  void theSendQueueDepthIsEnforcedAndASlotFreesOnCompletion() {
    h = new QpHarness(3, 4, 16).connected();
    for (int i = 0; i < 3; i++) {
      h.qp.postSend(h.write(i, SendFlags.SIGNALED));
    }
    WorkQueueFullException full = assertThrows(WorkQueueFullException.class,
        () -> h.qp.postSend(h.write(3, SendFlags.SIGNALED)));
    assertEquals("send queue", full.queue());
    assertEquals(3, full.depth());
    h.loop.runAll();
    assertEquals(3, h.ep.issued);
    // Issued but not completed still counts against the depth.
    assertThrows(WorkQueueFullException.class, () -> h.qp.postSend(h.write(3, 0)));
    h.completeSend(0);
    assertEquals(1, h.sendCompletions().size());
    h.qp.postSend(h.write(3, SendFlags.SIGNALED));
    assertEquals(3, h.qp.outstandingSends());
  }

  @Test
  void theReceiveQueueDepthIsEnforced() {
    h = new QpHarness(4, 2, 16).connected();
    h.qp.postRecv(h.recv(1));
    h.qp.postRecv(h.recv(2));
    WorkQueueFullException full = assertThrows(WorkQueueFullException.class,
        () -> h.qp.postRecv(h.recv(3)));
    assertEquals("receive queue", full.queue());
    h.loop.runAll();
    h.qp.endpointListener().onReceive(0, RdmapOpcode.SEND, 10, 0);
    h.qp.postRecv(h.recv(3));
    assertEquals(2, h.qp.outstandingReceives());
  }

  @Test
  void unsignaledWorkRequestsProduceNoCompletionButFreeTheirSlot() {
    h = new QpHarness(2, 4, 16).connected();
    for (int round = 0; round < 3; round++) {
      h.qp.postSend(h.write(2 * round, 0));
      h.qp.postSend(h.write(2 * round + 1, 0));
      h.loop.runAll();
      h.completeSend(h.ep.tokens[h.ep.issued - 2]);
      h.completeSend(h.ep.tokens[h.ep.issued - 1]);
      assertEquals(0, h.qp.outstandingSends());
    }
    assertTrue(h.sendCompletions().isEmpty());
  }

  @Test
  void signalAllSendsCompletesUnsignaledOnes() {
    h = new QpHarness(4, 4, 16, 16, true).connected();
    h.qp.postSend(h.write(1, 0));
    h.loop.runAll();
    h.completeSend(0);
    assertEquals(1, h.sendCompletions().size());
  }

  // ---- issue order and completion order (RFC 5040 §5.5) ----

  @Test
  void workRequestsAreIssuedInOrderAndFlushedOncePerBatch() {
    h = new QpHarness(8, 4, 16).connected();
    h.qp.postSend(h.write(1, 0));
    h.qp.postSend(h.send(2, SendFlags.SOLICITED));
    h.qp.postSend(h.read(3, 0));
    assertEquals(0, h.ep.issued, "nothing is issued on the posting thread");
    h.loop.runAll();
    assertEquals("WSR", h.ep.issuedKinds());
    assertEquals(0, h.ep.tokens[0]);
    assertEquals(1, h.ep.tokens[1]);
    assertEquals(2, h.ep.tokens[2]);
    assertEquals(1, h.ep.flushes);
    assertEquals(RdmapOpcode.SEND_WITH_SE, h.ep.lastSendOpcode);
    assertEquals(h.mr.stag(), h.ep.lastSinkStag);
    assertEquals(h.mr.baseTo() + 128, h.ep.lastSinkTo, "the sink TO is the SGE's in the region");
    assertEquals(32, h.ep.lengths[2]);
  }

  @Test
  void sendVariantsMapToTheirRdmapOpcodes() {
    h = new QpHarness(8, 4, 16).connected();
    h.qp.postSend(new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.SEND_WITH_INVALIDATE)
        .invalidateStag(0xABCD).addSge(h.mr, 0, 4));
    h.loop.runAll();
    assertEquals(RdmapOpcode.SEND_WITH_INVALIDATE, h.ep.lastSendOpcode);
    assertEquals(0xABCD, h.ep.lastInvalidateStag);
    h.qp.postSend(new SendWorkRequest(2).wrId(2)
        .opcode(WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE).invalidateStag(0x99));
    h.loop.runAll();
    assertEquals(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, h.ep.lastSendOpcode);
    h.qp.postSend(new SendWorkRequest(2).wrId(3).opcode(WorkRequestOpcode.SEND_WITH_SOLICITED));
    h.loop.runAll();
    assertEquals(RdmapOpcode.SEND_WITH_SE, h.ep.lastSendOpcode);
    assertEquals(0, h.ep.lastInvalidateStag);
  }

  @Test
  void aWriteFinishingBeforeAnEarlierReadCompletesAfterIt() {
    h = new QpHarness(8, 4, 16).connected();
    h.qp.postSend(h.read(1, SendFlags.SIGNALED));
    h.qp.postSend(h.write(2, SendFlags.SIGNALED));
    h.loop.runAll();
    h.completeSend(1);
    assertTrue(h.sendCompletions().isEmpty(), "the Write waits for the older Read");
    assertEquals(2, h.qp.outstandingSends());
    h.completeRead(0, 32);
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(2, wcs.size());
    assertEquals(1, wcs.get(0).wrId());
    assertEquals(WcOpcode.RDMA_READ, wcs.get(0).opcode());
    assertEquals(32, wcs.get(0).byteLen());
    assertEquals(7, wcs.get(0).qpNumber());
    assertEquals(2, wcs.get(1).wrId());
    assertEquals(WcOpcode.RDMA_WRITE, wcs.get(1).opcode());
    assertTrue(wcs.get(1).isSuccess());
  }

  @Test
  void fenceHoldsAWorkRequestUntilEarlierReadsCompleted() {
    h = new QpHarness(8, 4, 16).connected();
    h.qp.postSend(h.read(1, SendFlags.SIGNALED));
    h.qp.postSend(h.send(2, SendFlags.SIGNALED | SendFlags.FENCE));
    h.qp.postSend(h.write(3, SendFlags.SIGNALED));
    h.loop.runAll();
    assertEquals("R", h.ep.issuedKinds(), "the fenced Send and everything after it wait");
    h.completeRead(0, 32);
    assertEquals("RSW", h.ep.issuedKinds());
  }

  @Test
  void fenceWithoutOutstandingReadsDoesNotWait() {
    h = new QpHarness(8, 4, 16).connected();
    h.qp.postSend(h.write(1, 0));
    h.qp.postSend(h.send(2, SendFlags.FENCE));
    h.loop.runAll();
    assertEquals("WS", h.ep.issuedKinds());
  }

  @Test
  void atOrdLaterWorkRequestsWaitInOrderWithoutError() {
    h = new QpHarness(8, 4, 16).connected();
    h.ep.ord = 2;
    h.qp.postSend(h.read(1, SendFlags.SIGNALED));
    h.qp.postSend(h.read(2, SendFlags.SIGNALED));
    h.qp.postSend(h.read(3, SendFlags.SIGNALED));
    h.qp.postSend(h.write(4, SendFlags.SIGNALED));
    h.loop.runAll();
    assertEquals("RR", h.ep.issuedKinds(), "the third Read and the Write behind it wait");
    assertEquals(QpState.RTS, h.qp.state());
    h.completeRead(0, 32);
    assertEquals("RRRW", h.ep.issuedKinds());
    assertEquals(1, h.sendCompletions().size());
  }

  @Test
  void anUnwritableChannelStopsIssuingUntilItIsWritableAgain() {
    h = new QpHarness(8, 4, 16).connected();
    h.ep.writable = false;
    h.qp.postSend(h.write(1, 0));
    h.qp.postSend(h.write(2, 0));
    h.loop.runAll();
    assertEquals(0, h.ep.issued);
    assertEquals(0, h.ep.flushes);
    h.ep.writable = true;
    h.qp.binding().writabilityChanged();
    assertEquals(2, h.ep.issued);
    assertEquals(1, h.ep.flushes);
  }

  // ---- receives ----

  @Test
  void receivesCompleteInOrderWithLengthSolicitedAndInvalidatedStag() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.postRecv(h.recv(21));
    h.qp.postRecv(h.recv(22));
    h.loop.runAll();
    h.qp.endpointListener().onReceive(0, RdmapOpcode.SEND_WITH_SE, 100, 0);
    h.qp.endpointListener().onReceive(1, RdmapOpcode.SEND_WITH_INVALIDATE, 7, 0x4242);
    List<WorkCompletion> r = h.recvCompletions();
    assertEquals(2, r.size());
    assertEquals(21, r.get(0).wrId());
    assertEquals(WcOpcode.RECV, r.get(0).opcode());
    assertEquals(100, r.get(0).byteLen());
    assertTrue(r.get(0).solicited());
    assertFalse(r.get(0).hasInvalidatedStag());
    assertEquals(22, r.get(1).wrId());
    assertFalse(r.get(1).solicited());
    assertTrue(r.get(1).hasInvalidatedStag());
    assertEquals(0x4242, r.get(1).invalidatedStag());
  }

  // ---- errors ----

  @Test
  void aReceivedTerminateChargesTheWorkRequestInFlightAndFlushesEveryOther() {
    h = new QpHarness(8, 4, 16).connected();
    h.qp.postSend(h.read(1, SendFlags.SIGNALED));
    h.qp.postSend(h.write(2, 0)); // unsignaled: its flush still completes
    h.qp.postSend(h.send(3, SendFlags.SIGNALED));
    h.qp.postRecv(h.recv(4));
    h.qp.postRecv(h.recv(5));
    h.loop.runAll();
    h.completeSend(1); // the Write is done but waits for the Read
    h.qp.endpointListener().onTerminateReceived(0, 1, 0x02);
    assertEquals(QpState.ERROR, h.qp.state());
    List<WorkCompletion> s = h.sendCompletions();
    assertEquals(3, s.size());
    assertEquals(1, s.get(0).wrId());
    assertEquals(WcStatus.REM_ACCESS_ERR, s.get(0).status());
    assertEquals(0x00_01_02, s.get(0).vendorError());
    assertEquals(WcOpcode.RDMA_READ, s.get(0).opcode());
    assertEquals(2, s.get(1).wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, s.get(1).status());
    assertEquals(0, s.get(1).vendorError());
    assertEquals(3, s.get(2).wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, s.get(2).status());
    List<WorkCompletion> r = h.recvCompletions();
    assertEquals(2, r.size());
    assertEquals(WcStatus.WR_FLUSH_ERR, r.get(0).status());
    assertEquals(WcOpcode.RECV, r.get(0).opcode());
    assertEquals(1, h.errors.size());
    TerminateInfo t = h.errors.get(0).terminate();
    assertNotNull(t);
    assertTrue(t.receivedFromPeer());
    assertEquals(0, t.layer());
    assertEquals(1, t.errorType());
    assertEquals(2, t.errorCode());
    assertEquals(0, h.ep.aborts, "the endpoint closes after its own end event");
    assertEquals(0, h.qp.outstandingSends());
    assertEquals(0, h.qp.outstandingReceives());
  }

  @Test
  void workRequestsPostedInErrorAreFlushed() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.endpointListener().onDisconnected(true);
    h.qp.postSend(h.write(8, 0));
    h.qp.postRecv(h.recv(9));
    h.loop.runAll();
    assertEquals(WcStatus.WR_FLUSH_ERR, h.sendCompletions().get(0).status());
    assertEquals(WcStatus.WR_FLUSH_ERR, h.recvCompletions().get(0).status());
    assertEquals(0, h.ep.issued);
    assertTrue(h.errors.isEmpty(), "a graceful disconnect is no error event");
  }

  @Test
  void lateCompletionsAfterAFlushAreIgnored() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.postSend(h.write(1, SendFlags.SIGNALED));
    h.loop.runAll();
    h.qp.endpointListener().onDisconnected(false);
    h.completeSend(0);
    List<WorkCompletion> s = h.sendCompletions();
    assertEquals(1, s.size(), "exactly one completion");
    assertEquals(WcStatus.FATAL_ERR, s.get(0).status(), "a lost connection charges the WR in flight");
    assertEquals(1, h.errors.size());
  }

  @Test
  void aSendTooLongForThePostedReceiveChargesThatReceive() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.postRecv(h.recv(31));
    h.qp.postRecv(h.recv(32));
    h.qp.postSend(h.write(33, SendFlags.SIGNALED));
    h.loop.runAll();
    h.qp.endpointListener().onTerminateSent(1, 2, 0x05);
    List<WorkCompletion> r = h.recvCompletions();
    assertEquals(WcStatus.LOC_LEN_ERR, r.get(0).status());
    assertEquals(0x01_02_05, r.get(0).vendorError());
    assertEquals(WcStatus.WR_FLUSH_ERR, r.get(1).status());
    assertEquals(WcStatus.WR_FLUSH_ERR, h.sendCompletions().get(0).status());
    assertFalse(h.errors.get(0).terminate().receivedFromPeer());
  }

  @Test
  void completionQueueOverrunMovesTheQueuePairToErrorAndAborts() {
    h = new QpHarness(8, 4, 2, 16, false).connected();
    int[] overruns = new int[1];
    h.sendCq.listener(new CompletionListener() {
      @Override
      public void onCompletion(CompletionQueue cq) {
      }

      @Override
      public void onOverrun(CompletionQueue cq) {
        overruns[0]++;
      }
    });
    for (int i = 0; i < 4; i++) {
      h.qp.postSend(h.write(i, SendFlags.SIGNALED));
    }
    h.loop.runAll();
    for (int i = 0; i < 3; i++) {
      h.completeSend(i);
    }
    assertEquals(QpState.ERROR, h.qp.state());
    assertEquals(1, overruns[0]);
    assertEquals(1, h.ep.aborts);
    assertEquals(0, h.ep.lastAbortType, "RDMAP Local Catastrophic Error");
    assertEquals(1, h.errors.size());
    assertTrue(h.errors.get(0).reason().contains("overran"), h.errors.get(0).reason());
    assertEquals(2, h.sendCompletions().size(), "what fit is kept");
    assertEquals(0, h.qp.outstandingSends(), "every slot is released");
  }

  @Test
  void memoryTheQueuePairMayNotUseIsALocalProtectionError() {
    h = new QpHarness(4, 4, 16).connected();
    MemoryRegion readOnly = h.pd.allocate(64, AccessFlags.NONE);
    h.qp.postSend(h.write(1, SendFlags.SIGNALED));
    h.qp.postSend(new SendWorkRequest(2).wrId(2).opcode(WorkRequestOpcode.RDMA_READ)
        .remote(1, 0).addSge(readOnly, 0, 8)); // a Read sink needs LOCAL_WRITE
    h.qp.postSend(h.write(3, SendFlags.SIGNALED));
    h.loop.runAll();
    assertEquals("W", h.ep.issuedKinds());
    List<WorkCompletion> s = h.sendCompletions();
    assertEquals(3, s.size());
    assertEquals(WcStatus.WR_FLUSH_ERR, s.get(0).status());
    assertEquals(WcStatus.LOC_PROT_ERR, s.get(1).status());
    assertEquals(2, s.get(1).wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, s.get(2).status());
    assertEquals(1, h.ep.aborts);
    readOnly.close();
  }

  @Test
  void aClosedRegionInAnSgeIsALocalProtectionError() {
    h = new QpHarness(4, 4, 16).connected();
    MemoryRegion gone = h.pd.allocate(64, AccessFlags.LOCAL_WRITE);
    SendWorkRequest wr = new SendWorkRequest(2).wrId(5).opcode(WorkRequestOpcode.SEND)
        .addSge(gone, 0, 8);
    h.qp.postSend(wr);
    gone.close();
    h.loop.runAll();
    assertEquals(WcStatus.LOC_PROT_ERR, h.sendCompletions().get(0).status());
  }

  @Test
  void anEndpointThatRefusesAWorkRequestFailsItAsALocalQpError() {
    h = new QpHarness(4, 4, 16).connected();
    h.ep.failNextIssue = new IllegalStateException("stream closing");
    h.qp.postSend(h.write(1, SendFlags.SIGNALED));
    h.loop.runAll();
    assertEquals(WcStatus.LOC_QP_OP_ERR, h.sendCompletions().get(0).status());
    assertEquals(QpState.ERROR, h.qp.state());
  }

  @Test
  void modifyToErrorFlushesAndAborts() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.postRecv(h.recv(1));
    h.loop.runAll();
    h.qp.modifyToError();
    h.loop.runAll();
    assertEquals(QpState.ERROR, h.qp.state());
    assertEquals(WcStatus.WR_FLUSH_ERR, h.recvCompletions().get(0).status());
    assertEquals(1, h.ep.aborts);
    h.qp.modifyToError(); // idempotent
    h.loop.runAll();
    assertEquals(1, h.ep.aborts);
  }

  @Test
  void disconnectFlushesAndClosesGracefullyWithoutAnErrorEvent() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.postSend(h.read(1, SendFlags.SIGNALED));
    h.loop.runAll();
    h.qp.binding().disconnect();
    assertEquals(1, h.ep.closes);
    assertEquals(WcStatus.WR_FLUSH_ERR, h.sendCompletions().get(0).status());
    h.qp.endpointListener().onDisconnected(true); // the endpoint's own report follows
    assertTrue(h.errors.isEmpty());
    assertTrue(h.sendCompletions().isEmpty());
  }

  @Test
  void aFailedConnectionAttemptFlushesPostedReceives() {
    h = new QpHarness(4, 4, 16);
    h.qp.postRecv(h.recv(41));
    h.qp.binding().bindLoop(h.loop);
    h.qp.binding().connectionFailed("refused");
    assertEquals(QpState.ERROR, h.qp.state());
    assertEquals(41, h.recvCompletions().get(0).wrId());
    assertFalse(h.qp.binding().attach(h.ep, (q, t, r) -> { }, null), "a failed queue pair cannot attach");
  }

  @Test
  void aSendArrivingBetweenCloseAndItsLoopTaskEndsInputInsteadOfBlamingThePeer() throws Exception {
    // close() on another thread makes the queue pair CLOSED at once; its flush and the graceful
    // close run later on the loop. A peer's Send read in between asks for a receive: the close
    // runs then (the endpoint ends input: the Send is dropped), not a "no buffer" Terminate.
    h = new QpHarness(4, 4, 16).connected();
    h.qp.postRecv(h.recv(51)); // from the loop's thread: handed to the endpoint at once
    int handed = h.ep.receives;
    Thread closer = new Thread(h.qp::close, "closer");
    closer.setDaemon(true);
    closer.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (h.qp.state() != QpState.CLOSED && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(QpState.CLOSED, h.qp.state());
    assertEquals(0, h.ep.closes, "the close's loop task has not run yet");
    h.qp.endpointListener().onReceiveBufferNeeded();
    assertEquals(1, h.ep.closes, "the graceful close ran at the moment of need");
    assertEquals(0, h.ep.aborts);
    assertEquals(handed, h.ep.receives, "no receive handed to a closed queue pair");
    List<WorkCompletion> flushed = h.recvCompletions();
    assertEquals(1, flushed.size());
    assertEquals(51, flushed.get(0).wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, flushed.get(0).status());
    // The close's own task (nothing left for it to do). close() queues it after it made the
    // state CLOSED, so on a loaded machine it may not be queued yet: run the loop until the
    // closer has returned.
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    do {
      h.loop.runAll();
      closer.join(10);
    } while (closer.isAlive() && System.nanoTime() < until);
    assertFalse(closer.isAlive());
    assertEquals(1, h.ep.closes, "closed once");
    assertTrue(h.errors.isEmpty(), "a local close reports no error: " + h.errors);
  }

  @Test
  void loopSideMethodsRefuseOtherThreads() throws Exception {
    h = new QpHarness(4, 4, 16);
    h.qp.binding().bindLoop(h.loop);
    Throwable[] caught = new Throwable[1];
    Thread t = new Thread(() -> {
      try {
        h.qp.binding().enableSend();
      } catch (Throwable e) {
        caught[0] = e;
      }
    });
    t.start();
    t.join(5_000);
    assertSame(IllegalStateException.class, caught[0].getClass());
    assertTrue(caught[0].getMessage().contains("event loop"), caught[0].getMessage());
  }
}
