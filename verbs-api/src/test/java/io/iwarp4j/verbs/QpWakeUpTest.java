package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.wire.RdmapOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tasks a ping-pong hands the event loop, counted exactly on a hand-run loop: one drain per
 * batch of posts from an application thread, whichever of the two rings the posts went to, and
 * one completion signal per loop turn. (In {@link QpHarness} the test thread is the loop, so the
 * posts come from another thread, through the rings.)
 */
class QpWakeUpTest {
  private QpHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  private void fromAnotherThread(Runnable posts) throws InterruptedException {
    Thread t = new Thread(posts, "poster");
    t.start();
    t.join();
  }

  @Test
  void aReceiveRepostedRightBeforeASendQueuesOneDrainNotTwo() throws Exception {
    h = new QpHarness(8, 8, 16).connected();
    h.loop.runAll();
    fromAnotherThread(() -> {
      h.qp.postRecv(h.recv(1));
      h.qp.postSend(h.send(2, SendFlags.SIGNALED));
    });
    assertEquals(1, h.loop.pending(), "one drain task for both rings");
    h.loop.runAll();
    assertEquals(1, h.ep.receives);
    assertEquals(1, h.ep.issued);
    // Once that drain ran, the next post queues a new one.
    fromAnotherThread(() -> h.qp.postSend(h.send(3, SendFlags.SIGNALED)));
    assertEquals(1, h.loop.pending());
    h.loop.runAll();
    assertEquals(2, h.ep.issued);
  }

  @Test
  void aSendRightBeforeAReceiveQueuesOneDrainToo() throws Exception {
    h = new QpHarness(8, 8, 16).connected();
    h.loop.runAll();
    fromAnotherThread(() -> {
      h.qp.postSend(h.send(1, SendFlags.SIGNALED));
      h.qp.postRecv(h.recv(2));
      h.qp.postSend(h.send(3, SendFlags.SIGNALED));
    });
    assertEquals(1, h.loop.pending());
    h.loop.runAll();
    assertEquals(2, h.ep.issued);
    assertEquals(1, h.ep.receives);
  }

  /**
   * One side of an 8-octet Send ping-pong, round trip by round trip: the application reposts its
   * receive and posts its Send (one drain task), the Send completes and the peer's Send arrives
   * in one loop turn (one signal task for both completions). Two tasks per round trip, of which
   * only the drain is a hand-off from another thread (a wake-up of a sleeping loop).
   */
  @Test
  void aPingPongRoundTripHandsTheLoopOneDrainAndOneSignal() throws Exception {
    h = new QpHarness(8, 8, 16).connected();
    h.loop.runAll();
    for (int round = 0; round < 3; round++) {
      long id = round;
      fromAnotherThread(() -> {
        h.qp.postRecv(h.recv(100 + id));
        h.qp.postSend(h.send(id, SendFlags.SIGNALED));
      });
      assertEquals(1, h.loop.pending(), "round " + round + ": drain tasks");
      assertEquals(1, h.loop.runAll());
      h.qp.endpointListener().onSendComplete(h.ep.tokens[h.ep.issued - 1]);
      h.qp.endpointListener().onReceive(h.ep.receiveIds[h.ep.receives - 1], RdmapOpcode.SEND,
          8, 0);
      h.qp.endpointListener().onCompletionsReported();
      assertEquals(1, h.loop.pending(), "round " + round + ": signal tasks");
      assertEquals(1, h.loop.runAll());
      assertEquals(1, h.sendCompletions().size());
      assertEquals(1, h.recvCompletions().size());
    }
  }
}
