package io.iwarp4j.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.AllocationMeter;
import io.iwarp4j.verbs.LocalBuffer;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkQueueFullException;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The send queue keeps each work request where the poster wrote it until it is retired. */
class SendQueueTest {
  private static final int DEPTH = 4;

  private final SendQueue sq = new SendQueue(DEPTH, 1, () -> { });
  private final SendWorkRequest wr = new SendWorkRequest(1);

  private final LocalBuffer stub = new LocalBuffer() {
    @Override
    public ByteBuf buffer() {
      return Unpooled.EMPTY_BUFFER;
    }

    @Override
    public long length() {
      return 0;
    }

    @Override
    public int stag() {
      return 1;
    }
  };
  private final SendWorkRequest tooManySges = new SendWorkRequest(2).wrId(-2)
      .opcode(WorkRequestOpcode.SEND).addSge(stub, 0, 0).addSge(stub, 0, 0);

  private void post(long id) {
    sq.post(wr.reset().wrId(id).opcode(WorkRequestOpcode.SEND));
  }

  private void issueAll() {
    while (sq.hasUnissued()) {
      sq.markIssued(false);
    }
  }

  /** Completes {@code seq} (unless it already is) and retires it, the oldest. */
  private void retire(long seq) {
    sq.markDone(seq, 0, false);
    assertSame(sq.entry(seq), sq.retirable());
    sq.retireOldest();
  }

  @Test
  void theTableGrowsFromEightEntriesToTheDepthKeepingEveryOutstandingRequest() {
    SendQueue deep = new SendQueue(40, 1, () -> { });
    long seq = 0;
    for (int round = 0; round < 3; round++) { // from a wrapped start the second and third time
      for (int i = 0; i < 40; i++) {
        deep.post(wr.reset().wrId(1000 * round + i).opcode(WorkRequestOpcode.SEND));
        if (i % 7 == 0) {
          deep.drain(); // some entries reach the table while others still wait in the ring
        }
      }
      assertThrows(WorkQueueFullException.class,
          () -> deep.post(wr.reset().wrId(-1).opcode(WorkRequestOpcode.SEND)));
      deep.drain();
      for (int i = 0; i < 40; i++) {
        assertEquals(1000 * round + i, deep.entry(seq + i).wr.wrId());
      }
      while (deep.hasUnissued()) {
        deep.markIssued(false);
      }
      for (int i = 0; i < 40; i++, seq++) {
        deep.markDone(seq, 0, false);
        assertSame(deep.entry(seq), deep.retirable());
        deep.retireOldest();
      }
      // Three more, so that the next round starts away from slot 0.
      for (int i = 0; i < 3; i++, seq++) {
        deep.post(wr.reset().wrId(-5).opcode(WorkRequestOpcode.SEND));
        deep.drain();
        deep.markIssued(false);
        deep.markDone(seq, 0, false);
        deep.retireOldest();
      }
    }
  }

  @Test
  void theLoopReadsTheObjectThePosterWrote() {
    post(1);
    sq.drain();
    SendQueue.Entry first = sq.nextUnissued();
    assertEquals(1, first.wr.wrId());
    assertNotSame(wr, first.wr, "posting copies the caller's request once");
    // The caller may reuse its request at once: the queued one does not change.
    wr.reset().wrId(99);
    assertEquals(1, first.wr.wrId());
  }

  @Test
  void anOutstandingRequestIsNeverOverwrittenByLaterPosts() {
    // The queue turns many times round its ring, one retired and one posted at a time: every
    // outstanding request keeps what was posted, each in an entry of its own.
    long nextId = 0;
    for (int i = 0; i < DEPTH; i++) {
      post(1000 + nextId++);
    }
    sq.drain();
    issueAll();
    for (int turn = 0; turn < 10 * DEPTH; turn++) {
      Set<SendQueue.Entry> live = new HashSet<>();
      for (long seq = sq.oldestSequence(); seq < sq.endSequence(); seq++) {
        assertEquals(1000 + seq, sq.entry(seq).wr.wrId(), "turn " + turn + ", seq " + seq);
        assertTrue(live.add(sq.entry(seq)), "one entry per outstanding request");
      }
      // A newer request finishing first does not retire before the oldest.
      assertTrue(sq.markDone(sq.oldestSequence() + 1, 0, false));
      assertNull(sq.retirable(), "nothing retires out of order");
      retire(sq.oldestSequence());
      if (turn % 3 == 0) {
        // A post whose copy fails leaves an abandoned ring slot: ring tickets and queue
        // sequence numbers part ways, and entries must still never be shared.
        assertThrows(IllegalArgumentException.class, () -> sq.post(tooManySges));
      }
      post(1000 + nextId++);
      sq.drain();
      while (sq.hasUnissued()) {
        sq.markIssued(false);
      }
      // The one that finished early goes next.
      retire(sq.oldestSequence());
      post(1000 + nextId++);
      sq.drain();
      issueAll();
    }
    assertThrows(WorkQueueFullException.class, () -> post(-1));
  }

  @Test
  void steadyStatePostingDrainingAndRetiringAllocatesNothing() {
    Runnable cycle = () -> {
      for (int i = 0; i < DEPTH; i++) {
        post(i);
      }
      sq.drain();
      for (int i = 0; i < DEPTH; i++) {
        long seq = sq.nextSequence();
        sq.markIssued(false);
        sq.markDone(seq, 0, false);
      }
      while (sq.retirable() != null) {
        sq.retireOldest();
      }
    };
    AllocationMeter meter = AllocationMeter.create();
    int rounds = 20_000;
    Runnable loop = () -> {
      for (int i = 0; i < rounds; i++) {
        cycle.run();
      }
    };
    loop.run(); // warm-up: every ring slot and table entry made, the JIT done
    long bytes = meter.measure(loop);
    long operations = (long) rounds * DEPTH;
    assertTrue(bytes < operations / 10, "allocated " + bytes + " bytes over " + operations
        + " posted, drained and retired work requests");
  }
}
