package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.rdmap.RdmapEndpointListener;
import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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

  @Test
  void inlineSendsAllocateNothingPostedOrIssued() {
    AllocationMeter meter = AllocationMeter.create();
    try (QpHarness h = new QpHarness(64, 64, 256).connected()) {
      // The payloads come from plain heap memory: read from a registered region here, each copy
      // would allocate a leak record, since the tests run Netty's leak detector at PARANOID,
      // whose wrappers record every access (the SIMPLE default records none).
      LocalBuffer heap = new LocalBuffer() {
        private final ByteBuf memory = Unpooled.wrappedBuffer(new byte[128]);

        @Override
        public ByteBuf buffer() {
          return memory;
        }

        @Override
        public long length() {
          return memory.capacity();
        }

        @Override
        public int stag() {
          return 0; // not registered: inline data needs no STag
        }
      };
      SendWorkRequest send = new SendWorkRequest(2).wrId(1).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED | SendFlags.INLINE).addSge(heap, 0, 16);
      SendWorkRequest write = new SendWorkRequest(2).wrId(2).opcode(WorkRequestOpcode.RDMA_WRITE)
          .flags(SendFlags.INLINE).remote(0x1234, 0x1000).addSge(heap, 16, 64);
      Cycle cycle = new Cycle(h);
      int[] runs = {0};
      Runnable all = () -> {
        for (int i = 0; i < BATCH / 2; i++) {
          h.qp.postSend(send);
          h.qp.postSend(write);
        }
        cycle.run();
        runs[0]++;
      };
      for (int i = 0; i < 200; i++) {
        all.run();
      }
      assertEquals(0, quietestWindow(meter, all, () -> { }),
          "bytes allocated by inline posts (payload copies), issue, complete and poll in the"
              + " quietest window");
      assertEquals(QpState.RTS, h.qp.state());
      assertEquals(BATCH * runs[0], h.ep.issued, "every post was issued, none failed");
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
