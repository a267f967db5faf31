package io.iwarp4j.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The device-wide octet budget of Read Response snapshots: exact charges, from any thread. */
class ReadResponseCopyBudgetTest {

  @Test
  void chargesWhatFitsAndNothingOfWhatDoesNot() {
    ReadResponseCopyBudget b = new ReadResponseCopyBudget(100);
    assertTrue(b.tryAcquire(60));
    assertFalse(b.tryAcquire(41), "60 + 41 > 100");
    assertEquals(60, b.inUse(), "a refused charge takes nothing");
    assertTrue(b.tryAcquire(40), "exactly full");
    assertFalse(b.tryAcquire(1));
    b.release(60);
    assertEquals(40, b.inUse());
    b.release(40);
    assertEquals(0, b.inUse());
    assertEquals(100, b.capacity());
  }

  @Test
  void aZeroBudgetNeverCharges() {
    ReadResponseCopyBudget b = new ReadResponseCopyBudget(0);
    assertFalse(b.tryAcquire(1));
    assertEquals(0, b.inUse());
  }

  @Test
  void aLargeRequestNearLongMaxDoesNotOverflow() {
    ReadResponseCopyBudget b = new ReadResponseCopyBudget(Long.MAX_VALUE);
    assertTrue(b.tryAcquire(Long.MAX_VALUE - 1));
    assertFalse(b.tryAcquire(2), "would overflow: refused, not wrapped");
    assertTrue(b.tryAcquire(1));
  }

  @Test
  void misuseIsNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ReadResponseCopyBudget(-1));
    assertTrue(e.getMessage().contains("negative"), e.getMessage());
    ReadResponseCopyBudget b = new ReadResponseCopyBudget(10);
    IllegalStateException x = assertThrows(IllegalStateException.class, () -> b.release(1));
    assertTrue(x.getMessage().contains("more than charged"), x.getMessage());
  }

  @Test
  void threadsNeverOverchargeAndEveryChargeComesBack() throws InterruptedException {
    long capacity = 1000;
    ReadResponseCopyBudget b = new ReadResponseCopyBudget(capacity);
    AtomicLong overCapacitySeen = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int octets = 100 + 150 * t;
      threads.add(new Thread(() -> {
        for (int i = 0; i < 20_000; i++) {
          if (b.tryAcquire(octets)) {
            if (b.inUse() > capacity) {
              overCapacitySeen.incrementAndGet();
            }
            b.release(octets);
          }
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(0, overCapacitySeen.get());
    assertEquals(0, b.inUse());
  }
}
