package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.wire.RdmapOpcode;
import java.util.List;
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
   * A receive posted from another thread while connected hands the loop nothing: it waits in its
   * ring until a message finds no receive handed over, and the loop takes it then.
   */
  @Test
  void aReceivePostedWhileConnectedQueuesNoDrain() throws Exception {
    h = new QpHarness(8, 8, 16).connected();
    h.loop.runAll();
    fromAnotherThread(() -> h.qp.postRecv(h.recv(1)));
    assertEquals(0, h.loop.pending(), "no drain task for a receive alone");
    assertEquals(0, h.ep.receives, "not handed over yet");
    h.qp.endpointListener().onReceiveBufferNeeded();
    assertEquals(1, h.ep.receives, "handed over when a message needed it");
    h.qp.endpointListener().onReceive(h.ep.receiveIds[0], RdmapOpcode.SEND, 8, 0);
    h.qp.endpointListener().onCompletionsReported();
    h.loop.runAll();
    List<WorkCompletion> got = h.recvCompletions();
    assertEquals(1, got.size());
    assertEquals(1, got.get(0).wrId());
  }

  /** In RTR too (the peer may send before this end may): the receive waits for its message. */
  @Test
  void aReceivePostedInRtrQueuesNoDrain() throws Exception {
    h = new QpHarness(8, 8, 16).attached();
    h.loop.runAll();
    fromAnotherThread(() -> h.qp.postRecv(h.recv(1)));
    assertEquals(0, h.loop.pending());
    h.qp.endpointListener().onReceiveBufferNeeded();
    assertEquals(1, h.ep.receives);
  }

  /** The next drain of the send ring takes waiting receives along. */
  @Test
  void aSendAfterWaitingReceivesHandsThemOverInItsDrain() throws Exception {
    h = new QpHarness(8, 8, 16).connected();
    h.loop.runAll();
    fromAnotherThread(() -> {
      h.qp.postRecv(h.recv(1));
      h.qp.postRecv(h.recv(2));
    });
    assertEquals(0, h.loop.pending());
    fromAnotherThread(() -> h.qp.postSend(h.send(3, SendFlags.SIGNALED)));
    assertEquals(1, h.loop.pending());
    h.loop.runAll();
    assertEquals(2, h.ep.receives);
    assertEquals(1, h.ep.issued);
  }

  /** Before the loop is bound the ring keeps the receive, and binding hands it over. */
  @Test
  void aReceivePostedBeforeConnectingIsHandedOverAtAttach() throws Exception {
    h = new QpHarness(8, 8, 16);
    h.qp.postRecv(h.recv(1)); // INIT, no loop: nothing to wake
    h.attached();
    assertEquals(1, h.ep.receives);
  }

  /**
   * A receive waiting in its ring (no drain queued) when the queue pair fails is flushed, and a
   * receive posted after that queues a drain, which flushes it: every receive completes.
   */
  @Test
  void waitingAndLaterReceivesAreFlushedInError() throws Exception {
    h = new QpHarness(8, 8, 16).connected();
    h.loop.runAll();
    fromAnotherThread(() -> h.qp.postRecv(h.recv(1)));
    assertEquals(0, h.loop.pending());
    h.qp.modifyToError();
    h.loop.runAll();
    assertEquals(QpState.ERROR, h.qp.state());
    fromAnotherThread(() -> h.qp.postRecv(h.recv(2)));
    assertEquals(1, h.loop.pending(), "in ERROR a receive queues the drain that flushes it");
    h.loop.runAll();
    List<WorkCompletion> got = h.recvCompletions();
    assertEquals(2, got.size());
    assertEquals(WcStatus.WR_FLUSH_ERR, got.get(0).status());
    assertEquals(1, got.get(0).wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, got.get(1).status());
    assertEquals(2, got.get(1).wrId());
    assertEquals(0, h.qp.outstandingReceives());
  }

  /**
   * The parked ping-pong of VerbsLatencyBenchmark's client: the receive reposted after each
   * answer, the next Send posted later (not right after it). One drain task per round trip, the
   * Send's; before, the repost queued one of its own whenever the loop had run the previous
   * drain, two hand-offs (eventfd writes to a sleeping loop) per round trip.
   */
  @Test
  void aRepostAfterTheAnswerAndALaterSendHandTheLoopOneDrain() throws Exception {
    h = new QpHarness(8, 8, 16).connected();
    h.loop.runAll();
    fromAnotherThread(() -> h.qp.postRecv(h.recv(100)));
    for (int round = 0; round < 3; round++) {
      long id = round;
      fromAnotherThread(() -> h.qp.postSend(h.send(id, 0)));
      assertEquals(1, h.loop.pending(), "round " + round + ": the Send's drain");
      h.loop.runAll();
      h.qp.endpointListener().onSendComplete(h.ep.tokens[h.ep.issued - 1]);
      h.qp.endpointListener().onReceive(h.ep.receiveIds[h.ep.receives - 1], RdmapOpcode.SEND,
          8, 0);
      h.qp.endpointListener().onCompletionsReported();
      h.loop.runAll();
      assertEquals(1, h.recvCompletions().size());
      fromAnotherThread(() -> h.qp.postRecv(h.recv(101 + id)));
      assertEquals(0, h.loop.pending(), "round " + round + ": the repost hands nothing");
    }
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
