package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.wire.RdmapOpcode;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A receive posted on the queue pair's own event loop (an application reposting from its
 * completion listener) goes straight into the table and to the endpoint, behind what other
 * threads posted before it, and completes exactly once in posting order. (In {@link QpHarness}
 * the test thread is the loop; other threads post through the ring.)
 */
class QueuePairRepostOnLoopTest {
  private QpHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void aReceivePostedOnTheLoopIsHandedOverAtOnceWithNoWakeUpTask() {
    h = new QpHarness(4, 4, 16).connected();
    h.loop.runAll();
    h.qp.postRecv(h.recv(1));
    assertEquals(1, h.ep.receives, "handed to the endpoint inside postRecv");
    assertEquals(0, h.loop.pending(), "no drain task was scheduled");
    assertEquals(1, h.qp.outstandingReceives());
  }

  @Test
  void receivesOtherThreadsPostedBeforeComeFirst() throws Exception {
    h = new QpHarness(8, 8, 16).connected();
    h.loop.runAll();
    Thread other = new Thread(() -> {
      h.qp.postRecv(h.recv(20));
      h.qp.postRecv(h.recv(21));
    });
    other.start();
    other.join();
    // Their drain task has not run: the loop's own post must drain the ring first.
    h.qp.postRecv(h.recv(22));
    assertEquals(3, h.ep.receives);
    for (int i = 0; i < 3; i++) {
      assertEquals(i, h.ep.receiveIds[i]);
      h.qp.endpointListener().onReceive(i, RdmapOpcode.SEND, 10 + i, 0);
    }
    List<WorkCompletion> r = h.recvCompletions();
    assertEquals(3, r.size());
    assertEquals(20, r.get(0).wrId());
    assertEquals(21, r.get(1).wrId());
    assertEquals(22, r.get(2).wrId());
    h.loop.runAll(); // the other thread's wake-up task finds nothing left
    assertEquals(3, h.ep.receives);
  }

  @Test
  void repostingOnTheLoopAcrossManyLapsCompletesEachReceiveOnceInOrder() throws Exception {
    // Depth 3 (a table of 4): the loop's posts and another thread's, mixed, wrap the table and
    // the ring many times; each receive completes once, in posting order.
    h = new QpHarness(4, 3, 64).connected();
    long nextId = 100;
    long expected = 100;
    long delivered = 0;
    for (int lap = 0; lap < 200; lap++) {
      if (lap % 3 == 0) {
        long id = nextId++;
        Thread other = new Thread(() -> h.qp.postRecv(h.recv(id)));
        other.start();
        other.join();
      }
      while (h.qp.outstandingReceives() < 3) {
        h.qp.postRecv(h.recv(nextId++));
      }
      h.loop.runAll();
      h.qp.endpointListener().onReceive(delivered++, RdmapOpcode.SEND, 1, 0);
      h.qp.endpointListener().onReceive(delivered++, RdmapOpcode.SEND, 1, 0);
      for (WorkCompletion wc : h.recvCompletions()) {
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(expected++, wc.wrId());
      }
    }
    assertEquals(delivered, expected - 100);
    h.qp.close();
    for (WorkCompletion wc : h.recvCompletions()) {
      assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
      assertEquals(expected++, wc.wrId());
    }
    assertEquals(nextId, expected, "every receive completed exactly once");
  }

  @Test
  void aReceivePostedOnTheLoopInErrorIsFlushed() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.modifyToError();
    h.loop.runAll();
    assertEquals(QpState.ERROR, h.qp.state());
    h.qp.postRecv(h.recv(7));
    h.loop.runAll();
    List<WorkCompletion> r = h.recvCompletions();
    assertEquals(1, r.size());
    assertEquals(7, r.get(0).wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, r.get(0).status());
    assertEquals(0, h.ep.receives);
  }
}
