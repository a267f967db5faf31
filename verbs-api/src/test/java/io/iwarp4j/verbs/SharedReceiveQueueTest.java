package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.verbs.engine.QpEventSink;
import io.iwarp4j.wire.RdmapOpcode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shared receive queue on its own and with queue pairs on fake endpoints: FIFO across
 * consumers, the one-shot limit event, the misuse refusals, errors that flush only what a queue
 * pair took, and deregistered memory.
 */
class SharedReceiveQueueTest {
  private final StagTable table = new StagTable(64);
  private final ProtectionDomain pd = new ProtectionDomain(null, table.newProtectionDomain());
  private final MemoryRegion mr = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
  private final List<Consumer> consumers = new ArrayList<>();
  private final List<Integer> limitEvents = new ArrayList<>();

  /** A queue pair attached to the shared queue, connected to a fake endpoint. */
  private final class Consumer {
    final CompletionQueue cq = new CompletionQueue(64);
    final ManualLoop loop = new ManualLoop();
    final FakeEndpoint ep = new FakeEndpoint();
    final List<String> errors = new ArrayList<>();
    final QueuePair qp;

    Consumer(int number, SharedReceiveQueue srq) {
      qp = new QueuePair(null, number, pd, cq, cq, new QueuePairCapabilities(4,
          RdmaDevice.SHARED_RECEIVES_HELD, 2, srq.maxSge(), 8, 8, true), false, srq);
      srq.attach(qp);
      qp.binding().bindLoop(loop);
      QpEventSink sink = (q, t, reason) -> errors.add(reason);
      assertTrue(qp.binding().attach(ep, sink, null));
      assertTrue(qp.binding().enableSend());
      consumers.add(this);
    }

    /** A Send arrives and finds no receive handed over: DDP asks. Returns whether one came. */
    boolean messageArrives() {
      int before = ep.receives;
      qp.endpointListener().onReceiveBufferNeeded();
      return ep.receives == before + 1;
    }

    /** The message that took the last receive handed over is delivered. */
    void delivered(int length) {
      qp.endpointListener().onReceive(ep.receiveIds[ep.receives - 1], RdmapOpcode.SEND, length, 0);
    }

    List<WorkCompletion> completions() {
      List<WorkCompletion> out = new ArrayList<>();
      WorkCompletion[] wc = QpHarness.newCompletions(16);
      int n;
      while ((n = cq.poll(wc)) > 0) {
        for (int i = 0; i < n; i++) {
          out.add(new WorkCompletion().copyFrom(wc[i]));
        }
      }
      return out;
    }
  }

  @AfterEach
  void tearDown() {
    for (Consumer c : consumers) {
      if (c.qp.state() != QpState.CLOSED) {
        c.qp.close();
      }
      c.loop.runAll();
    }
    pd.closeAll();
  }

  private SharedReceiveQueue srq(int maxWr) {
    return pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder().maxWr(maxWr).maxSge(2)
        .listener((q, limit) -> limitEvents.add(limit)).build());
  }

  private RecvWorkRequest recv(long wrId) {
    return new RecvWorkRequest(2).wrId(wrId).addSge(mr, wrId * 16, 16);
  }

  @Test
  void receivesAreTakenInPostingOrderByWhicheverQueuePairNeedsOne() {
    SharedReceiveQueue srq = srq(8);
    Consumer a = new Consumer(1, srq);
    Consumer b = new Consumer(2, srq);
    for (long id = 1; id <= 5; id++) {
      srq.postRecv(recv(id));
    }
    assertEquals(0, a.ep.receives + b.ep.receives, "nothing is handed to a stream ahead of time");
    for (Consumer c : List.of(a, b, b, a, b)) {
      assertTrue(c.messageArrives());
      c.delivered(7);
    }
    List<WorkCompletion> ofA = a.completions();
    List<WorkCompletion> ofB = b.completions();
    assertEquals(List.of(1L, 4L), ofA.stream().map(WorkCompletion::wrId).toList());
    assertEquals(List.of(2L, 3L, 5L), ofB.stream().map(WorkCompletion::wrId).toList());
    for (WorkCompletion wc : ofA) {
      assertEquals(1, wc.qpNumber());
      assertEquals(WcStatus.SUCCESS, wc.status());
      assertEquals(WcOpcode.RECV, wc.opcode());
      assertEquals(7, wc.byteLen());
    }
    ofB.forEach(wc -> assertEquals(2, wc.qpNumber()));
    assertEquals(0, srq.outstanding());
    assertEquals(0, a.qp.outstandingReceives());
  }

  @Test
  void aTakenReceivesSgesAreHandedOverAsThePostersMemory() {
    SharedReceiveQueue srq = srq(4);
    Consumer a = new Consumer(1, srq);
    srq.postRecv(new RecvWorkRequest(2).wrId(9).addSge(mr, 100, 8).addSge(mr, 300, 4));
    assertTrue(a.messageArrives());
    assertEquals(2, a.ep.receivePieceCounts[0]);
    assertEquals(8, a.ep.lastFirstPiece.readableBytes());
    mr.buffer().setByte(100, 0x3C);
    assertEquals(0x3C, a.ep.lastFirstPiece.getByte(a.ep.lastFirstPiece.readerIndex()));
  }

  @Test
  void anEmptySharedQueueGivesNothingAndTheMessageEndsOnlyItsConnection() {
    SharedReceiveQueue srq = srq(4);
    Consumer a = new Consumer(1, srq);
    assertFalse(a.messageArrives(), "empty: DDP then sends 1/2/0x02 for this stream");
    assertEquals(QpState.RTS, a.qp.state(), "the endpoint's Terminate, not this call, ends it");
  }

  @Test
  void immediateDataConsumesASharedReceive() {
    SharedReceiveQueue srq = srq(4);
    Consumer a = new Consumer(3, srq);
    srq.postRecv(recv(1));
    assertTrue(a.messageArrives());
    a.qp.endpointListener().onImmediateData(a.ep.receiveIds[0], RdmapOpcode.IMMEDIATE_DATA_WITH_SE,
        0x1122334455667788L);
    WorkCompletion wc = a.completions().get(0);
    assertEquals(1, wc.wrId());
    assertEquals(3, wc.qpNumber());
    assertEquals(WcOpcode.RECV_IMMEDIATE_DATA, wc.opcode());
    assertEquals(0x1122334455667788L, wc.immData());
    assertTrue(wc.solicited());
  }

  @Test
  void theLimitEventFiresOnceWhenTheCountFallsBelowItAndAgainOnlyWhenRearmed() {
    SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder()
        .maxWr(8).maxSge(2).limit(3).listener((q, limit) -> limitEvents.add(limit)).build());
    assertEquals(3, srq.query().limit());
    Consumer a = new Consumer(1, srq);
    for (long id = 1; id <= 6; id++) {
      srq.postRecv(recv(id));
    }
    takeAndComplete(a, 3); // 5, 4, 3 left: not below 3
    assertEquals(List.of(), limitEvents);
    takeAndComplete(a, 1); // 2 left
    assertEquals(List.of(3), limitEvents);
    assertEquals(0, srq.query().limit(), "disarmed when it fired");
    takeAndComplete(a, 1); // 1 left, not armed
    assertEquals(List.of(3), limitEvents, "one-shot");
    srq.armLimit(5); // above the count: fires at the next take, as siw checks on taking
    assertEquals(new SharedReceiveQueueAttributes(8, 2, 5, 1), srq.query());
    takeAndComplete(a, 1);
    assertEquals(List.of(3, 5), limitEvents);
    srq.postRecv(recv(7));
    srq.armLimit(0); // disarmed: nothing fires
    takeAndComplete(a, 1);
    assertEquals(List.of(3, 5), limitEvents);
  }

  private static void takeAndComplete(Consumer c, int n) {
    for (int i = 0; i < n; i++) {
      assertTrue(c.messageArrives());
      c.delivered(1);
    }
  }

  @Test
  void aListenerThatThrowsIsContained() {
    SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueConfig.builder()
        .maxWr(4).maxSge(2).limit(1).listener((q, limit) -> {
          throw new IllegalStateException("listener bug");
        }).build());
    Consumer a = new Consumer(1, srq);
    srq.postRecv(recv(1));
    assertTrue(a.messageArrives());
    a.delivered(1);
    assertEquals(1, a.completions().size());
  }

  @Test
  void aQueuePairAttachedToASharedQueueRefusesItsOwnPostRecvNamingIt() {
    SharedReceiveQueue srq = srq(4);
    Consumer a = new Consumer(1, srq);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> a.qp.postRecv(recv(1)));
    assertTrue(e.getMessage().contains("shared receive queue " + srq.number()), e.getMessage());
    assertTrue(e.getMessage().contains("queue pair 1"), e.getMessage());
    assertEquals(srq, a.qp.sharedReceiveQueue());
  }

  @Test
  void postingBeyondTheDepthThrowsWorkQueueFullAndPostsNothing() {
    SharedReceiveQueue srq = srq(2);
    srq.postRecv(recv(1));
    srq.postRecv(recv(2));
    WorkQueueFullException e = assertThrows(WorkQueueFullException.class,
        () -> srq.postRecv(recv(3)));
    assertEquals(2, e.depth());
    assertTrue(e.queue().contains("shared receive queue " + srq.number()), e.queue());
    assertEquals(2, srq.outstanding());
  }

  @Test
  void tooManySgesAndABadLimitAreRefusedNamingTheNumbers() {
    SharedReceiveQueue srq = srq(4);
    RecvWorkRequest three = new RecvWorkRequest(3).wrId(5).addSge(mr, 0, 1).addSge(mr, 1, 1)
        .addSge(mr, 2, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> srq.postRecv(three));
    assertTrue(e.getMessage().contains("3 SGEs") && e.getMessage().contains("maximum of 2"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> srq.armLimit(5));
    assertTrue(e.getMessage().contains("0..4"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> srq.armLimit(-1));
  }

  @Test
  void closeIsRefusedWhileQueuePairsAreAttachedNamingThem() {
    SharedReceiveQueue srq = srq(4);
    Consumer a = new Consumer(11, srq);
    Consumer b = new Consumer(12, srq);
    srq.postRecv(recv(1));
    IllegalStateException e = assertThrows(IllegalStateException.class, srq::close);
    assertTrue(e.getMessage().contains("queue pairs 11, 12"), e.getMessage());
    assertTrue(e.getMessage().contains("EBUSY"), e.getMessage());
    assertFalse(srq.isClosed());
    a.qp.close();
    e = assertThrows(IllegalStateException.class, srq::close);
    assertTrue(e.getMessage().contains("queue pair 12"), e.getMessage());
    b.qp.close();
    srq.close(); // libibverbs: the remaining receives are gone, without a completion
    assertTrue(srq.isClosed());
    assertEquals(0, srq.outstanding());
    assertEquals(List.of(), a.completions());
    assertThrows(IllegalStateException.class, () -> srq.postRecv(recv(2)));
    srq.close(); // idempotent
  }

  @Test
  void theDomainIsNotClosedUnderAnOpenSharedQueue() {
    ProtectionDomain other = new ProtectionDomain(null, table.newProtectionDomain());
    SharedReceiveQueue srq = other.createSharedReceiveQueue(SharedReceiveQueueConfig.builder()
        .build());
    IllegalStateException e = assertThrows(IllegalStateException.class, other::close);
    assertTrue(e.getMessage().contains("shared receive queue"), e.getMessage());
    srq.close();
    other.close();
  }

  @Test
  void anErrorFlushesOnlyWhatThatQueuePairTookAndTheOthersKeepReceiving() {
    SharedReceiveQueue srq = srq(8);
    Consumer a = new Consumer(1, srq);
    Consumer b = new Consumer(2, srq);
    for (long id = 1; id <= 4; id++) {
      srq.postRecv(recv(id));
    }
    assertTrue(a.messageArrives()); // a takes wrId 1 and is placing a message into it
    a.qp.modifyToError();
    a.loop.runAll();
    assertEquals(QpState.ERROR, a.qp.state());
    List<WorkCompletion> flushed = a.completions();
    assertEquals(1, flushed.size());
    assertEquals(1, flushed.get(0).wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, flushed.get(0).status());
    assertEquals(3, srq.outstanding(), "the shared queue's receives are not flushed");
    assertFalse(a.messageArrives(), "a queue pair in ERROR takes nothing");
    takeAndComplete(b, 3);
    assertEquals(List.of(2L, 3L, 4L), b.completions().stream().map(WorkCompletion::wrId).toList());
  }

  @Test
  void aResetQueuePairStaysAttachedAndTakesAgainOnItsNextConnection() {
    SharedReceiveQueue srq = srq(4);
    Consumer a = new Consumer(1, srq);
    srq.postRecv(recv(1));
    srq.postRecv(recv(2));
    assertTrue(a.messageArrives());
    a.qp.modifyToError();
    a.loop.runAll();
    a.qp.reset();
    assertEquals(QpState.INIT, a.qp.state());
    assertEquals(WcStatus.WR_FLUSH_ERR, a.completions().get(0).status());
    assertThrows(IllegalStateException.class, () -> a.qp.postRecv(recv(3)));
    IllegalStateException busy = assertThrows(IllegalStateException.class, srq::close);
    assertTrue(busy.getMessage().contains("queue pair 1"), busy.getMessage());
    FakeEndpoint next = new FakeEndpoint();
    a.qp.binding().bindLoop(a.loop);
    assertTrue(a.qp.binding().attach(next, (q, t, reason) -> { }, null));
    a.qp.endpointListener().onReceiveBufferNeeded();
    assertEquals(1, next.receives);
    a.qp.endpointListener().onReceive(next.receiveIds[0], RdmapOpcode.SEND, 3, 0);
    WorkCompletion wc = a.completions().get(0);
    assertEquals(2, wc.wrId());
    assertEquals(WcStatus.SUCCESS, wc.status());
  }

  @Test
  void aReceiveWhoseRegionWasDeregisteredWhileQueuedCompletesWithLocProtErrOnTheTaker() {
    MemoryRegion gone = pd.allocate(64, AccessFlags.LOCAL_WRITE);
    SharedReceiveQueue srq = srq(4);
    Consumer a = new Consumer(1, srq);
    srq.postRecv(new RecvWorkRequest(1).wrId(42).addSge(gone, 0, 64));
    srq.postRecv(recv(43));
    gone.close(); // always succeeds; the receive waits in the shared queue
    a.qp.endpointListener().onReceiveBufferNeeded();
    WorkCompletion wc = a.completions().get(0);
    assertEquals(42, wc.wrId());
    assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
    assertEquals(1, wc.qpNumber());
    assertEquals(QpState.ERROR, a.qp.state());
    assertEquals(1, a.ep.aborts, "the connection ends, as for a queue pair's own receive");
    assertEquals(1, srq.outstanding(), "the next receive stays for the other queue pairs");
  }

  @Test
  void closeCheckedNamesTheSharedQueuesReceivesThatUseTheRegion() {
    MemoryRegion busy = pd.allocate(64, AccessFlags.LOCAL_WRITE);
    SharedReceiveQueue srq = srq(4);
    srq.postRecv(new RecvWorkRequest(1).wrId(77).addSge(busy, 0, 64));
    srq.postRecv(recv(78));
    RuntimeException thrown = assertThrows(RuntimeException.class, busy::closeChecked);
    String m = thrown.getMessage();
    assertTrue(m.contains("shared receive queue " + srq.number() + " receive wrId 77"), m);
    assertFalse(m.contains("wrId 78"), m);
    assertFalse(busy.isClosed());
  }

  @Test
  void consumersOnSeveralThreadsTakeEachReceiveOnceAndEachInPostingOrder() throws Exception {
    SharedReceiveQueue srq = srq(64);
    int total = 200_000;
    int threads = 3;
    long[][] seen = new long[threads][total];
    int[] counts = new int[threads];
    java.util.concurrent.atomic.AtomicInteger taken = new java.util.concurrent.atomic.AtomicInteger();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int me = t;
      workers.add(new Thread(() -> {
        RecvWorkRequest into = new RecvWorkRequest(2);
        while (taken.get() < total) {
          if (srq.take(into)) {
            seen[me][counts[me]++] = into.wrId();
            taken.incrementAndGet();
          } else {
            Thread.onSpinWait();
          }
        }
      }));
    }
    workers.forEach(Thread::start);
    RecvWorkRequest wr = recv(0);
    for (long id = 1; id <= total; ) {
      try {
        srq.postRecv(wr.wrId(id));
        id++;
      } catch (WorkQueueFullException full) {
        Thread.onSpinWait();
      }
    }
    for (Thread w : workers) {
      w.join(60_000);
      assertFalse(w.isAlive());
    }
    boolean[] once = new boolean[total + 1];
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < counts[t]; i++) {
        long id = seen[t][i];
        assertFalse(once[(int) id], "wrId " + id + " taken twice");
        once[(int) id] = true;
        if (i > 0) {
          assertTrue(seen[t][i - 1] < id, "each consumer takes in posting order");
        }
      }
    }
    for (int id = 1; id <= total; id++) {
      assertTrue(once[id], "wrId " + id + " never taken");
    }
  }
}
