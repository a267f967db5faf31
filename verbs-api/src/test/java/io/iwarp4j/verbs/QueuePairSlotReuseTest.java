package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.wire.RdmapOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A work request's slot is free by the time its completion can be seen, as with verbs: a
 * completion-driven application that reposts from its completion handler never finds the queue
 * full (found by iwarp-perf's receive loop).
 */
class QueuePairSlotReuseTest {
  private QpHarness h;

  @AfterEach
  void tearDown() {
    h.close();
  }

  @Test
  void aSlotIsFreeOnceItsCompletionIsVisible() {
    // A completion listener polls and reposts from inside the notification, as a
    // completion-driven server does: the slot of the completed receive must already be free.
    h = new QpHarness(4, 1, 16).connected();
    java.util.concurrent.atomic.AtomicReference<RuntimeException> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    QueuePair[] holder = new QueuePair[1];
    CompletionQueue cq = new CompletionQueue(16, q -> {
      WorkCompletion[] out = QpHarness.newCompletions(1);
      if (q.poll(out) == 1) {
        try {
          holder[0].postRecv(h.recv(out[0].wrId() + 1));
        } catch (RuntimeException e) {
          failure.set(e);
        }
      }
    });
    QueuePair qp = new QueuePair(null, 8, h.pd, h.sendCq, cq,
        new QueuePairCapabilities(4, 1, 2, 2, 8, 8, true), false);
    holder[0] = qp;
    qp.binding().bindLoop(h.loop);
    assertTrue(qp.binding().attach(h.ep, (q, t, reason) -> { }, null));
    assertTrue(qp.binding().enableSend());
    qp.postRecv(h.recv(1));
    h.loop.runAll();
    cq.requestNotify(false);
    qp.endpointListener().onReceive(0, RdmapOpcode.SEND, 10, 0);
    h.loop.runAll(); // the notification fires at the end of the loop turn
    assertEquals(null, failure.get(), "the repost from the listener");
    assertEquals(1, qp.outstandingReceives(), "the repost from the listener was accepted");
    assertEquals(QpState.RTS, qp.state());
    qp.close();
    h.loop.runAll();
  }
}
