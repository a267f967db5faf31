package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The issue-ordered ring of local operations: completion in issue order, growth, clearing. */
class LocalOperationsTest {

  /** Drains what is done given the transmit horizon, as "S token" / "R token length". */
  private static List<String> drain(LocalOperations ops, long sent) {
    List<String> out = new ArrayList<>();
    while (ops.headDone(sent)) {
      out.add(ops.headIsRead() ? "R" + ops.headToken() + "/" + ops.headReadLength()
          : "S" + ops.headToken());
      ops.removeHead();
    }
    return out;
  }

  @Test
  void aDoneOperationWaitsForEveryEarlierOne() {
    LocalOperations ops = new LocalOperations(4);
    ops.addTransmit(1, 0);
    long read = ops.addRead(2, 100);
    ops.addTransmit(3, 1);
    assertEquals(List.of("S1"), drain(ops, 2), "the Send after the Read waits for it");
    ops.readDelivered(read);
    assertEquals(List.of("R2/100", "S3"), drain(ops, 2));
    assertEquals(0, ops.size());
  }

  @Test
  void aTransmitIsDoneOnlyWhenTheHorizonPassesIt() {
    LocalOperations ops = new LocalOperations(4);
    ops.addTransmit(1, 5);
    assertFalse(ops.headDone(5));
    assertTrue(ops.headDone(6));
  }

  @Test
  void growsPastItsInitialCapacityKeepingTheOrder() {
    SplittableRandom random = new SplittableRandom(9);
    LocalOperations ops = new LocalOperations(2);
    List<String> expected = new ArrayList<>();
    long tx = 0;
    List<Long> reads = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      if (random.nextBoolean()) {
        reads.add(ops.addRead(i, i));
        expected.add("R" + i + "/" + i);
      } else {
        ops.addTransmit(i, tx++);
        expected.add("S" + i);
      }
      if (i % 97 == 0) {
        // Take some off the head now and then, so the ring wraps before it grows.
        for (long p : reads) {
          ops.readDelivered(p);
        }
        reads.clear();
        List<String> done = drain(ops, tx);
        assertEquals(expected.subList(0, done.size()), done);
        expected.subList(0, done.size()).clear();
      }
    }
    for (long p : reads) {
      ops.readDelivered(p);
    }
    assertEquals(expected, drain(ops, tx));
  }

  @Test
  void clearForgetsEverything() {
    LocalOperations ops = new LocalOperations(4);
    long read = ops.addRead(1, 1);
    ops.clear();
    assertEquals(0, ops.size());
    assertFalse(ops.headDone(Long.MAX_VALUE));
    assertThrows(IllegalStateException.class, () -> ops.readDelivered(read));
  }
}
