package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.rdmap.RdmapEndpointListener;
import io.iwarp4j.wire.RdmapOpcode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random interleavings of posts, issues, completions (in any order), receives and one error of
 * a random kind at a random moment: every work request completes at most once, every signaled
 * one and every failed one exactly once, send completions in send queue order and receive
 * completions in posting order, and every slot comes back. Seeded, so each case is reproducible.
 */
class QueuePairExactlyOnceTest {

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
  void everyWorkRequestCompletesExactlyOnce(long seed) {
    Random rnd = new Random(seed);
    try (QpHarness h = new QpHarness(16, 16, 4096).connected()) {
      RdmapEndpointListener events = h.qp.endpointListener();
      Map<Long, Boolean> sendSignaled = new HashMap<>();
      List<Long> recvPosted = new ArrayList<>();
      Set<Integer> finished = new HashSet<>(); // issue indexes the fake completed
      int delivered = 0;
      long nextWrId = 1;
      int errorAt = 50 + rnd.nextInt(250);
      for (int step = 0; step < 400; step++) {
        if (step == errorAt) {
          injectError(h, rnd.nextInt(6));
        }
        int action = rnd.nextInt(10);
        try {
          if (action < 3) {
            long id = nextWrId++;
            boolean signaled = rnd.nextBoolean();
            int flags = (signaled ? SendFlags.SIGNALED : 0)
                | (rnd.nextInt(5) == 0 ? SendFlags.FENCE : 0);
            SendWorkRequest wr = switch (rnd.nextInt(3)) {
              case 0 -> h.write(id, flags);
              case 1 -> h.read(id, flags);
              default -> h.send(id, flags);
            };
            h.qp.postSend(wr);
            sendSignaled.put(id, signaled);
          } else if (action < 5) {
            long id = nextWrId++;
            h.qp.postRecv(h.recv(id));
            recvPosted.add(id);
          } else if (action < 7) {
            h.loop.runAll();
          } else if (action < 9 && h.ep.issued > 0) {
            // Complete a random issued operation, in any order.
            int i = rnd.nextInt(h.ep.issued);
            if (finished.add(i)) {
              if (h.ep.kinds[i] == FakeEndpoint.READ) {
                h.ep.readDone();
                events.onReadComplete(h.ep.tokens[i], h.ep.lengths[i]);
              } else {
                events.onSendComplete(h.ep.tokens[i]);
              }
              events.onCompletionsReported();
            }
          } else if (delivered < h.ep.receives) {
            events.onReceive(h.ep.receiveIds[delivered++], RdmapOpcode.SEND, 4, 0);
          }
        } catch (WorkQueueFullException e) {
          nextWrId--; // not posted
        } catch (IllegalStateException e) {
          assertEquals(QpState.CLOSED, h.qp.state(), e.getMessage());
          nextWrId--;
        }
      }
      if (h.qp.state() != QpState.CLOSED) {
        h.qp.close();
      }
      h.loop.runAll();

      List<WorkCompletion> sends = h.sendCompletions();
      List<WorkCompletion> recvs = h.recvCompletions();
      Set<Long> seen = new HashSet<>();
      long last = 0;
      for (WorkCompletion wc : sends) {
        assertTrue(seen.add(wc.wrId()), "send wrId " + wc.wrId() + " completed twice");
        assertTrue(sendSignaled.containsKey(wc.wrId()), "unknown send wrId " + wc.wrId());
        assertTrue(wc.wrId() > last, "send completions out of order at " + wc.wrId());
        last = wc.wrId();
        assertFalse(wc.isSuccess() && !sendSignaled.get(wc.wrId()),
            "an unsignaled send succeeded with a completion: " + wc);
      }
      for (Map.Entry<Long, Boolean> e : sendSignaled.entrySet()) {
        if (e.getValue()) {
          assertTrue(seen.contains(e.getKey()), "signaled send " + e.getKey() + " never completed");
        }
      }
      assertEquals(recvPosted.size(), recvs.size(), "every receive completes exactly once");
      for (int i = 0; i < recvs.size(); i++) {
        assertEquals(recvPosted.get(i), recvs.get(i).wrId(), "receive completions in order");
      }
      assertEquals(0, h.qp.outstandingSends());
      assertEquals(0, h.qp.outstandingReceives());
    }
  }

  private static void injectError(QpHarness h, int kind) {
    RdmapEndpointListener events = h.qp.endpointListener();
    switch (kind) {
      case 0 -> events.onTerminateReceived(0, 1, 0);
      case 1 -> events.onTerminateSent(1, 2, 5);
      case 2 -> events.onDisconnected(false);
      case 3 -> events.onDisconnected(true);
      case 4 -> {
        h.qp.modifyToError();
        h.loop.runAll();
      }
      default -> h.qp.close();
    }
  }
}
