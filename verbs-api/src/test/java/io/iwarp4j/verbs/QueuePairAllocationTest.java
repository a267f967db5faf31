package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.rdmap.RdmapEndpointListener;
import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.wire.RdmapOpcode;
import org.junit.jupiter.api.Test;

/**
 * Posting allocates nothing, and neither does the queue pair's loop side (drain, issue,
 * completion, CQ), once warmed up. Measured with the thread's allocated-bytes counter, never with
 * timing, over windows of {@value #CYCLES} cycles: one window must allocate exactly nothing. A
 * single window can catch a one-off JVM allocation (objects rematerialized when JIT-compiled code
 * is deoptimized), but with an allocation per operation no window could be empty.
 */
class QueuePairAllocationTest {
  private static final int BATCH = 16;
  private static final int CYCLES = 50;
  private static final int WINDOWS = 10;

  /** The fewest bytes {@code body} allocated over one window of {@value #CYCLES} runs. */
  private static long quietestWindow(AllocationMeter meter, Runnable body, Runnable between) {
    long quietest = Long.MAX_VALUE;
    for (int w = 0; w < WINDOWS && quietest > 0; w++) {
      long total = 0;
      for (int i = 0; i < CYCLES; i++) {
        total += meter.measure(body);
        between.run();
      }
      quietest = Math.min(quietest, total);
    }
    return quietest;
  }

  @Test
  void postingAllocatesNothing() {
    AllocationMeter meter = AllocationMeter.create();
    try (QpHarness h = new QpHarness(64, 64, 256).connected()) {
      SendWorkRequest write = h.write(1, SendFlags.SIGNALED);
      SendWorkRequest send = h.send(2, 0);
      RecvWorkRequest recv = h.recv(3);
      Runnable post = () -> {
        for (int i = 0; i < BATCH / 2; i++) {
          h.qp.postSend(write.wrId(i));
          h.qp.postSend(send);
          h.qp.postRecv(recv.wrId(i));
        }
      };
      Cycle cycle = new Cycle(h);
      for (int i = 0; i < 200; i++) {
        post.run();
        cycle.run();
      }
      assertEquals(0, quietestWindow(meter, post, cycle),
          "bytes allocated by postSend/postRecv in the quietest window after warm-up");
    }
  }

  @Test
  void theLoopSideAllocatesNothing() {
    AllocationMeter meter = AllocationMeter.create();
    try (QpHarness h = new QpHarness(64, 64, 256).connected()) {
      SendWorkRequest write = h.write(1, SendFlags.SIGNALED);
      SendWorkRequest read = h.read(2, SendFlags.SIGNALED | SendFlags.FENCE);
      RecvWorkRequest recv = h.recv(3);
      Cycle cycle = new Cycle(h);
      Runnable all = () -> {
        for (int i = 0; i < BATCH / 2; i++) {
          h.qp.postSend(write);
          h.qp.postSend(read);
          h.qp.postRecv(recv);
        }
        cycle.run();
      };
      for (int i = 0; i < 200; i++) {
        all.run();
      }
      assertEquals(0, quietestWindow(meter, all, () -> { }),
          "bytes allocated by post, drain, issue, complete and poll in the quietest window");
      assertEquals(QpState.RTS, h.qp.state());
    }
  }

  /** Runs the loop, completes everything issued and delivered, polls both queues. */
  private static final class Cycle implements Runnable {
    private final QpHarness h;
    private final RdmapEndpointListener events;
    private final WorkCompletion[] out = QpHarness.newCompletions(64);
    private int completedIssues;
    private int completedReceives;

    Cycle(QpHarness h) {
      this.h = h;
      this.events = h.qp.endpointListener();
    }

    @Override
    public void run() {
      for (;;) {
        h.loop.runAll();
        if (completedIssues == h.ep.issued && completedReceives == h.ep.receives) {
          break;
        }
        while (completedIssues < h.ep.issued) {
          int i = completedIssues++;
          if (h.ep.kinds[i] == FakeEndpoint.READ) {
            h.ep.readDone();
            events.onReadComplete(h.ep.tokens[i], h.ep.lengths[i]);
          } else {
            events.onSendComplete(h.ep.tokens[i]);
          }
        }
        events.onCompletionsReported();
        while (completedReceives < h.ep.receives) {
          events.onReceive(h.ep.receiveIds[completedReceives++], RdmapOpcode.SEND, 8, 0);
        }
      }
      while (h.sendCq.poll(out) > 0) {
        // drained
      }
      while (h.recvCq.poll(out) > 0) {
        // drained
      }
    }
  }
}
