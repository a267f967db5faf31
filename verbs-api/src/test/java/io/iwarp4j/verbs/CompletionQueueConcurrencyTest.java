package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several producers (event loops) and consumers (application threads) on one queue. Producers
 * take a credit per completion and consumers return it after polling, as an application sizes
 * its CQ for the work it has outstanding, so the small ring wraps thousands of times without
 * overflowing.
 */
@Timeout(60) // a hang guard only: nothing here measures time
class CompletionQueueConcurrencyTest {

  private static final int CAPACITY = 64;

  /** Runs the workers, rethrowing the first failure with the seed. */
  private static void runAll(long seed, List<Thread> threads, AtomicReference<Throwable> failure)
      throws InterruptedException {
    for (Thread t : threads) {
      t.setDaemon(true);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw new AssertionError("failed with seed " + seed, failure.get());
    }
  }

  private static Thread worker(String name, AtomicReference<Throwable> failure, Body body) {
    return new Thread(() -> {
      try {
        body.run();
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    }, name);
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Thread producer(int id, int count, CompletionQueue cq, Semaphore credits,
      Random random, AtomicReference<Throwable> failure) {
    long seed = random.nextLong();
    return worker("producer-" + id, failure, () -> {
      Random r = new Random(seed);
      WorkCompletion wc = new WorkCompletion().status(WcStatus.SUCCESS)
          .opcode(WcOpcode.RECV).qpNumber(id);
      for (int i = 0; i < count && failure.get() == null; i++) {
        if (!credits.tryAcquire(20, TimeUnit.SECONDS)) {
          throw new AssertionError("no credit for 20 s: completions are not being polled");
        }
        if (!cq.offer(wc.wrId(i))) {
          throw new AssertionError("offer refused with a credit in hand: " + cq);
        }
        if (r.nextInt(64) == 0) {
          Thread.yield(); // vary the interleaving
        }
      }
    });
  }

  @Test
  void manyProducersOneConsumerSeesEachProducersCompletionsInOrder() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int producers = 3;
    int perProducer = 100_000;
    CompletionQueue cq = new CompletionQueue(CAPACITY);
    Semaphore credits = new Semaphore(CAPACITY);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      threads.add(producer(p, perProducer, cq, credits, random, failure));
    }
    long consumerSeed = random.nextLong();
    threads.add(worker("consumer", failure, () -> {
      Random r = new Random(consumerSeed);
      WorkCompletion[] out = new WorkCompletion[32];
      for (int i = 0; i < out.length; i++) {
        out[i] = new WorkCompletion();
      }
      long[] next = new long[producers];
      int seen = 0;
      while (seen < producers * perProducer && failure.get() == null) {
        int n = cq.poll(out, 1 + r.nextInt(out.length));
        if (n == 0) {
          Thread.yield();
          continue;
        }
        for (int i = 0; i < n; i++) {
          int p = out[i].qpNumber();
          if (out[i].wrId() != next[p]) {
            throw new AssertionError("producer " + p + ": expected wrId " + next[p] + ", got "
                + out[i].wrId());
          }
          next[p]++;
        }
        seen += n;
        credits.release(n);
      }
    }));
    runAll(seed, threads, failure);
    assertEquals(0, cq.size(), "seed " + seed);
  }

  @Test
  void manyProducersManyConsumersSeeEachCompletionExactlyOnce() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int producers = 3;
    int perProducer = 60_000;
    int total = producers * perProducer;
    CompletionQueue cq = new CompletionQueue(CAPACITY);
    Semaphore credits = new Semaphore(CAPACITY);
    AtomicIntegerArray seen = new AtomicIntegerArray(total);
    AtomicLong taken = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      threads.add(producer(p, perProducer, cq, credits, random, failure));
    }
    for (int c = 0; c < 2; c++) {
      boolean blocking = c == 1; // one consumer polls, the other waits in await
      long consumerSeed = random.nextLong();
      threads.add(worker("consumer-" + c, failure, () -> {
        Random r = new Random(consumerSeed);
        WorkCompletion[] out = new WorkCompletion[16];
        for (int i = 0; i < out.length; i++) {
          out[i] = new WorkCompletion();
        }
        while (taken.get() < total && failure.get() == null) {
          int max = 1 + r.nextInt(out.length);
          int n = blocking ? cq.await(out, max, 10, TimeUnit.MILLISECONDS) : cq.poll(out, max);
          if (n == 0) {
            if (!blocking) {
              Thread.yield();
            }
            continue;
          }
          for (int i = 0; i < n; i++) {
            int index = out[i].qpNumber() * perProducer + (int) out[i].wrId();
            if (seen.getAndIncrement(index) != 0) {
              throw new AssertionError("completion " + out[i] + " seen twice");
            }
          }
          taken.addAndGet(n);
          credits.release(n);
        }
      }));
    }
    runAll(seed, threads, failure);
    for (int i = 0; i < total; i++) {
      if (seen.get(i) != 1) {
        fail("seed " + seed + ": completion " + i + " seen " + seen.get(i) + " times");
      }
    }
    assertEquals(total, taken.get(), "seed " + seed);
  }

  @Test
  void pingPongThroughTwoQueuesNeverMissesAWakeUp() throws Exception {
    // Each side blocks in await with a long timeout; a lost wake-up would stall the exchange
    // and trip the class timeout instead of passing slowly.
    int rounds = 2_000;
    CompletionQueue ping = new CompletionQueue(1);
    CompletionQueue pong = new CompletionQueue(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    threads.add(worker("ping", failure, () -> exchange(ping, pong, rounds, true)));
    threads.add(worker("pong", failure, () -> exchange(pong, ping, rounds, false)));
    runAll(0, threads, failure);
    assertNull(failure.get());
  }

  private static void exchange(CompletionQueue mine, CompletionQueue theirs, int rounds,
      boolean serveFirst) throws InterruptedException {
    WorkCompletion wc = new WorkCompletion().status(WcStatus.SUCCESS).opcode(WcOpcode.SEND);
    WorkCompletion[] out = {new WorkCompletion()};
    for (long i = 0; i < rounds; i++) {
      if (serveFirst && !theirs.offer(wc.wrId(i))) {
        throw new AssertionError("offer refused");
      }
      if (mine.await(out, 1, TimeUnit.MINUTES) != 1) {
        throw new AssertionError("no completion within a minute in round " + i);
      }
      if (out[0].wrId() != i) {
        throw new AssertionError("round " + i + " got " + out[0].wrId());
      }
      if (!serveFirst && !theirs.offer(wc.wrId(i))) {
        throw new AssertionError("offer refused");
      }
    }
  }

  @Test
  void aReplyRacingTheWaitersRegistrationStillWakesIt() throws Exception {
    // The responder spins on poll and answers within a few hundred nanoseconds, so its offer
    // often lands while the requester is between finding the queue empty and registering as
    // a waiter. Without the re-check after registering, that reply would be missed and the
    // requester would sleep out its (long) timeout, tripping the class timeout.
    int rounds = 20_000;
    CompletionQueue requests = new CompletionQueue(1);
    CompletionQueue replies = new CompletionQueue(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    threads.add(worker("responder", failure, () -> {
      WorkCompletion[] in = {new WorkCompletion()};
      for (int i = 0; i < rounds && failure.get() == null; ) {
        if (requests.poll(in) == 1) {
          if (!replies.offer(in[0])) {
            throw new AssertionError("reply refused");
          }
          i++;
        } else {
          Thread.onSpinWait();
        }
      }
    }));
    threads.add(worker("requester", failure, () -> {
      WorkCompletion wc = new WorkCompletion().status(WcStatus.SUCCESS).opcode(WcOpcode.SEND);
      WorkCompletion[] out = {new WorkCompletion()};
      for (long i = 0; i < rounds; i++) {
        if (!requests.offer(wc.wrId(i))) {
          throw new AssertionError("request refused");
        }
        if (replies.await(out, 1, TimeUnit.MINUTES) != 1 || out[0].wrId() != i) {
          throw new AssertionError("round " + i + ": no reply within a minute");
        }
      }
    }));
    runAll(0, threads, failure);
  }
}
