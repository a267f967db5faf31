package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.wire.RdmapOpcode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The successful completions a queue pair produces in one turn of its event loop are visible to
 * {@code poll} at once, but wake pollers and fire the notification once, at the end of the turn:
 * one wake-up per batch instead of one per completion. Counted, not timed.
 */
class CompletionSignalBatchTest {
  private QpHarness h;
  private final List<Integer> readyAtNotification = new ArrayList<>();

  @AfterEach
  void tearDown() {
    h.close();
  }

  /** A queue pair whose receive CQ counts its notifications and how much each found ready. */
  private QueuePair qpWithNotifiedRecvCq(CompletionQueue[] cqOut) {
    h = new QpHarness(8, 8, 16).connected();
    CompletionQueue cq = new CompletionQueue(16, q -> readyAtNotification.add(q.size()));
    cqOut[0] = cq;
    QueuePair qp = new QueuePair(null, 9, h.pd, h.sendCq, cq,
        new QueuePairCapabilities(8, 8, 2, 2, 8, 8, true), false);
    qp.binding().bindLoop(h.loop);
    qp.binding().attach(h.ep, (q, t, reason) -> { }, null);
    qp.binding().enableSend();
    for (int i = 0; i < 4; i++) {
      qp.postRecv(h.recv(i));
    }
    h.loop.runAll();
    return qp;
  }

  @Test
  void receivesOfOneTurnAreReadyAtOnceAndNotifyOnceAtItsEnd() {
    CompletionQueue[] cq = new CompletionQueue[1];
    QueuePair qp = qpWithNotifiedRecvCq(cq);
    cq[0].requestNotify(false);
    for (int i = 0; i < 3; i++) {
      qp.endpointListener().onReceive(i, RdmapOpcode.SEND, 10, 0);
    }
    assertEquals(3, cq[0].size(), "visible to poll during the turn");
    assertEquals(List.of(), readyAtNotification, "no notification during the turn");
    h.loop.runAll();
    assertEquals(List.of(3), readyAtNotification, "one notification, all three ready");
    qp.close();
    h.loop.runAll();
  }

  @Test
  void aNotificationArmedForSolicitedCompletionsWaitsForOne() {
    CompletionQueue[] cq = new CompletionQueue[1];
    QueuePair qp = qpWithNotifiedRecvCq(cq);
    cq[0].requestNotify(true);
    qp.endpointListener().onReceive(0, RdmapOpcode.SEND, 10, 0);
    qp.endpointListener().onReceive(1, RdmapOpcode.SEND, 10, 0);
    h.loop.runAll();
    assertEquals(List.of(), readyAtNotification, "unsolicited Sends do not fire it");
    qp.endpointListener().onReceive(2, RdmapOpcode.SEND_WITH_SE, 10, 0);
    qp.endpointListener().onReceive(3, RdmapOpcode.SEND, 10, 0);
    h.loop.runAll();
    assertEquals(List.of(4), readyAtNotification, "a solicited one in the turn fires it once");
    qp.close();
    h.loop.runAll();
  }

  @Test
  void sendCompletionsOfOneTurnWakeAParkedPollerOnce() throws Exception {
    h = new QpHarness(8, 4, 16).connected();
    for (int i = 0; i < 3; i++) {
      h.qp.postSend(h.write(i, SendFlags.SIGNALED));
    }
    h.loop.runAll();
    WorkCompletion[] out = QpHarness.newCompletions(8);
    int[] got = new int[1];
    Thread poller = new Thread(() -> {
      try {
        got[0] = h.sendCq.await(out, 10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    poller.start();
    // Bounded wait until the poller has parked in await (state, not time, decides).
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (poller.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    h.completeSend(h.ep.tokens[0]);
    h.completeSend(h.ep.tokens[1]);
    h.completeSend(h.ep.tokens[2]);
    assertEquals(Thread.State.TIMED_WAITING, poller.getState(), "still parked during the turn");
    h.loop.runAll();
    poller.join(10_000);
    assertEquals(3, got[0], "woken once, with the whole batch ready");
  }
}
