package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkQueueFullException;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RFC 7306 end to end between two devices over TCP on 127.0.0.1, through the verbs API.
 *
 * <ul>
 *   <li>A property test: ≥ 100 000 FetchAdds and CmpSwaps with random values and masks, each
 *       checked against a transcription of the RFC's pseudocode (the value returned and, at the
 *       end, every target in remote memory).
 *   <li>Stress: 16 queue pairs × 4 threads × 10 000 FetchAdd(+1) on one remote counter, with and
 *       without local {@code getAndAddLong} calls on the responder at the same time: the final
 *       value is exact and the returned originals (with the local ones) are a permutation.
 *   <li>A CmpSwap spin lock protecting a non-atomic counter updated with RDMA Read and Write,
 *       from the same 16 × 4 requesters: the exact count.
 *   <li>Immediate Data and RDMA Write with Immediate: receive completions carry the octets.
 * </ul>
 */
@Timeout(300)
class AtomicsIT {
  private static final long WAIT = 60;
  private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
  private static final int PROPERTY_CASES = Integer.getInteger("atomics.cases", 100_000);
  private static final int STRESS_OPS = Integer.getInteger("atomics.stress", 10_000);
  private static final int LOCK_ROUNDS = Integer.getInteger("atomics.lockRounds", 100);
  private static final int QPS = 16;
  private static final int THREADS = 4;

  private RdmaDevice server;
  private RdmaDevice client;
  private ProtectionDomain serverPd;
  private ProtectionDomain clientPd;
  private final List<QueuePair> clientQps = new ArrayList<>();
  private final List<CompletionQueue> clientCqs = new ArrayList<>();
  private CompletionQueue serverCq;
  private final List<QueuePair> serverQps = new ArrayList<>();

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Two devices (two event loops each) and {@code n} connected queue pairs. */
  private void connect(int n, int sendWr) throws Exception {
    connect(n, sendWr, false);
  }

  /** The one completion queue of every client queue pair, when {@code shared}. */
  private CompletionQueue sharedCq;

  private void connect(int n, int sendWr, boolean shared) throws Exception {
    server = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build());
    client = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build());
    serverPd = server.allocateProtectionDomain();
    clientPd = client.allocateProtectionDomain();
    serverCq = server.createCompletionQueue(4096);
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    try (RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
        requests::add)) {
      if (shared) {
        sharedCq = client.createCompletionQueue(2 * n * sendWr);
      }
      for (int i = 0; i < n; i++) {
        CompletionQueue cq = shared ? sharedCq : client.createCompletionQueue(2 * sendWr);
        QueuePair qp = client.createQueuePair(clientPd, QueuePairConfig.builder(cq, cq)
            .maxSendWr(sendWr).maxRecvWr(16).signalAllSends(true).build());
        QueuePair sqp = server.createQueuePair(serverPd,
            QueuePairConfig.builder(serverCq, serverCq).maxSendWr(16).maxRecvWr(64).build());
        // Peer-to-peer: the accept completes without waiting for the client's first message.
        CompletableFuture<?> cf = client.connect(qp, listener.localAddress(),
            ConnectParams.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
        ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(request, "no connect request");
        request.accept(sqp, AcceptParams.builder().build()).get(WAIT, TimeUnit.SECONDS);
        cf.get(WAIT, TimeUnit.SECONDS);
        clientQps.add(qp);
        clientCqs.add(cq);
        serverQps.add(sqp);
      }
    }
  }

  // ---- the RFC's pseudocode, transcribed ----

  static long referenceFetchAdd(long original, long addData, long addMask) {
    long bitLocation = 1;
    long carry = 0;
    long remote = 0;
    for (int bit = 0; bit < 64; bit++) {
      if (bit != 0) {
        bitLocation = bitLocation << 1;
      }
      long val1 = (original & bitLocation) >>> bit;
      long val2 = (addData & bitLocation) >>> bit;
      long sum = carry + val1 + val2;
      carry = (sum & 2) >> 1;
      sum = sum & 1;
      if (sum != 0) {
        remote |= bitLocation;
      }
      carry = (carry != 0 && (addMask & bitLocation) == 0) ? 1 : 0;
    }
    return remote;
  }

  static long referenceCmpSwap(long original, long compareData, long compareMask,
      long swapData, long swapMask) {
    if (((compareData ^ original) & compareMask) == 0) {
      return (original & ~swapMask) | (swapData & swapMask);
    }
    return original;
  }

  private static long randomMask(SplittableRandom random) {
    switch (random.nextInt(5)) {
      case 0:
        return 0;
      case 1:
        return -1L;
      case 2:
        return random.nextLong();
      case 3:
        return random.nextLong() & random.nextLong() & random.nextLong();
      default:
        return 1L << random.nextInt(64);
    }
  }

  @Test
  void randomAtomicsMatchTheRfcPseudocode() throws Exception {
    connect(1, 256);
    int slots = 512;
    int batch = 128;
    MemoryRegion target = serverPd.allocate(slots * 8, ALL);
    MemoryRegion results = clientPd.allocate(batch * 8, AccessFlags.LOCAL_WRITE);
    SplittableRandom random = new SplittableRandom(7306);
    long[] model = new long[slots];
    for (int i = 0; i < slots; i++) {
      model[i] = random.nextLong();
      target.putLong(8L * i, model[i]);
    }
    QueuePair qp = clientQps.get(0);
    CompletionQueue cq = clientCqs.get(0);
    WorkCompletion[] wcs = completions(batch);
    SendWorkRequest wr = new SendWorkRequest(0);
    long[] expectedOriginal = new long[batch];
    int done = 0;
    while (done < PROPERTY_CASES) {
      int n = Math.min(batch, PROPERTY_CASES - done);
      for (int k = 0; k < n; k++) {
        int slot = random.nextInt(slots);
        long original = model[slot];
        expectedOriginal[k] = original;
        wr.reset().wrId(done + k).localResult(results, 8L * k)
            .remote(target.stag(), target.address() + 8L * slot);
        if (random.nextBoolean()) {
          long add = random.nextLong();
          long mask = randomMask(random);
          wr.opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).addData(add).addMask(mask);
          model[slot] = referenceFetchAdd(original, add, mask);
        } else {
          long compareMask = randomMask(random);
          long compare = random.nextBoolean()
              ? original ^ (random.nextLong() & ~compareMask) : random.nextLong();
          long swap = random.nextLong();
          long swapMask = randomMask(random);
          wr.opcode(WorkRequestOpcode.ATOMIC_CMP_SWAP).compareData(compare)
              .compareMask(compareMask).swapData(swap).swapMask(swapMask);
          model[slot] = referenceCmpSwap(original, compare, compareMask, swap, swapMask);
        }
        qp.postSend(wr);
      }
      int got = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
      while (got < n) {
        int m = cq.await(wcs, n - got, deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (m == 0) {
          fail("only " + got + " of " + n + " atomics completed");
        }
        for (int i = 0; i < m; i++) {
          assertEquals(WcStatus.SUCCESS, wcs[i].status(), wcs[i].toString());
          int k = (int) (wcs[i].wrId() - done);
          assertEquals(got + i, k, "completions in order");
          assertEquals(8, wcs[i].byteLen());
        }
        got += m;
      }
      for (int k = 0; k < n; k++) {
        long returned = results.getLong(8L * k);
        if (returned != expectedOriginal[k]) {
          fail("case " + (done + k) + ": original 0x" + Long.toHexString(returned)
              + ", expected 0x" + Long.toHexString(expectedOriginal[k]));
        }
      }
      done += n;
    }
    for (int i = 0; i < slots; i++) {
      assertEquals(model[i], target.getLong(8L * i), "slot " + i + " after " + done + " cases");
    }
  }

  @Test
  void fetchAddStressGivesAnExactCountAndAPermutation() throws Exception {
    stress(0);
  }

  @Test
  void fetchAddStressWithLocalAtomicsOnTheResponder() throws Exception {
    stress(200_000);
  }

  /** {@code localAdds} local getAndAddLong(+1) run on the responder during the stress. */
  private void stress(int localAdds) throws Exception {
    connect(QPS, 256, true);
    MemoryRegion counter = serverPd.allocate(64, ALL);
    int perThread = QPS * STRESS_OPS;
    MemoryRegion[] results = new MemoryRegion[THREADS];
    for (int t = 0; t < THREADS; t++) {
      results[t] = clientPd.allocate(perThread * 8, AccessFlags.LOCAL_WRITE);
    }
    AtomicLong completed = new AtomicLong();
    AtomicReference<String> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      MemoryRegion result = results[t];
      threads.add(new Thread(() -> {
        SendWorkRequest wr = new SendWorkRequest(0);
        for (int i = 0; i < STRESS_OPS && failure.get() == null; i++) {
          for (int q = 0; q < QPS; q++) {
            int index = i * QPS + q;
            wr.reset().wrId(index).opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).addData(1)
                .remote(counter.stag(), counter.address()).localResult(result, 8L * index);
            post(clientQps.get(q), wr, failure);
          }
        }
      }, "requester-" + t));
    }
    long[] localOriginals = new long[localAdds];
    Thread local = new Thread(() -> {
      for (int i = 0; i < localAdds; i++) {
        localOriginals[i] = counter.getAndAddLong(0, 1);
        if ((i & 255) == 0) {
          Thread.yield(); // spread the local adds over the remote ones
        }
      }
    }, "responder-local");
    threads.forEach(Thread::start);
    local.start();
    long total = (long) THREADS * perThread;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    WorkCompletion[] wcs = completions(256);
    while (completed.get() < total && failure.get() == null) {
      // Every queue pair completes into the one shared send queue: block on it.
      int n = sharedCq.await(wcs, wcs.length, 100, TimeUnit.MILLISECONDS);
      for (int i = 0; i < n; i++) {
        if (!wcs[i].isSuccess()) {
          failure.compareAndSet(null, wcs[i].toString());
        }
      }
      completed.addAndGet(n);
      if (System.nanoTime() > deadline) {
        fail("only " + completed.get() + " of " + total + " atomics completed");
      }
    }
    for (Thread th : threads) {
      th.join(TimeUnit.SECONDS.toMillis(WAIT));
    }
    local.join(TimeUnit.SECONDS.toMillis(WAIT));
    assertEquals(null, failure.get());
    assertEquals(total + localAdds, counter.getLong(0), "the final count");
    BitSet seen = new BitSet();
    for (int t = 0; t < THREADS; t++) {
      for (int i = 0; i < perThread; i++) {
        mark(seen, results[t].getLong(8L * i));
      }
    }
    for (long v : localOriginals) {
      mark(seen, v);
    }
    assertEquals(total + localAdds, seen.cardinality(), "the originals are a permutation");
    assertEquals(total + localAdds, seen.nextClearBit(0));
  }

  private static void mark(BitSet seen, long value) {
    if (value < 0 || value > Integer.MAX_VALUE || seen.get((int) value)) {
      fail("original value " + value + " returned twice or out of range");
    }
    seen.set((int) value);
  }

  /** Posts, reaping completions while the send queue is full. */
  private static void post(QueuePair qp, SendWorkRequest wr, AtomicReference<String> failure) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
    while (true) {
      try {
        qp.postSend(wr);
        return;
      } catch (WorkQueueFullException full) {
        // Leave the CPU to the event loops (2 cores): the reaper frees the slots.
        java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        if (System.nanoTime() > deadline) {
          failure.compareAndSet(null, "queue pair " + qp.number() + " stayed full");
          return;
        }
      }
    }
  }

  /**
   * By default 100 lock rounds per (thread, queue pair): 6 400 increments, each a serialised
   * critical section of three round trips, in well under a minute. The full load of
   * 10 000 per (thread, queue pair), 640 000 increments, runs with
   * {@code -Datomics.lockRounds=10000} (the bounds below grow with it).
   */
  @Test
  @Timeout(value = 7200)
  void aCmpSwapSpinLockProtectsANonAtomicCounter() throws Exception {
    connect(QPS, 64);
    // Offset 0: the lock word (0 free, 1 held). Offset 8: the counter, updated by Read + Write.
    MemoryRegion shared = serverPd.allocate(64, ALL);
    AtomicReference<String> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    // Each of the 4 threads drives its own 4 of the 16 queue pairs (q % 4 == t), so every
    // queue pair's completions belong to one thread; all 64 (thread, queue pair) streams contend
    // for the one lock.
    for (int t = 0; t < THREADS; t++) {
      int owner = t;
      threads.add(new Thread(() -> {
        try {
          lockRounds(owner, shared, failure);
        } catch (Exception e) {
          failure.compareAndSet(null, e.toString());
        }
      }, "locker-" + t));
    }
    threads.forEach(Thread::start);
    for (Thread th : threads) {
      th.join(TimeUnit.SECONDS.toMillis(Math.max(240, LOCK_ROUNDS / 2)));
      assertTrue(!th.isAlive(), th.getName() + " did not finish");
    }
    assertEquals(null, failure.get());
    assertEquals((long) QPS * THREADS * LOCK_ROUNDS, shared.buffer().getLong(8),
        "the counter under the lock");
    assertEquals(0, shared.getLong(0), "the lock is free");
  }

  /** Thread {@code t}: LOCK_ROUNDS × 4 increments on each of its 4 queue pairs. */
  private void lockRounds(int t, MemoryRegion shared, AtomicReference<String> failure)
      throws InterruptedException {
    MemoryRegion local = clientPd.allocate(64, AccessFlags.LOCAL_WRITE);
    SendWorkRequest wr = new SendWorkRequest(1);
    WorkCompletion[] wcs = completions(4);
    long lockTo = shared.address();
    long counterTo = shared.address() + 8;
    for (int round = 0; round < LOCK_ROUNDS * THREADS && failure.get() == null; round++) {
      for (int q = t; q < QPS; q += THREADS) {
        QueuePair qp = clientQps.get(q);
        CompletionQueue cq = clientCqs.get(q);
        // Acquire: CmpSwap 0 -> 1 until the original value was 0.
        do {
          wr.reset().wrId(1).opcode(WorkRequestOpcode.ATOMIC_CMP_SWAP).compareData(0)
              .swapData(1).remote(shared.stag(), lockTo).localResult(local, 0);
          qp.postSend(wr);
          take(cq, wcs, 1);
        } while (local.getLong(0) != 0);
        // Read the counter (big-endian octets), add one, Write it back, release the lock: the
        // Write is placed before the releasing CmpSwap is performed (same stream, in order).
        wr.reset().wrId(2).opcode(WorkRequestOpcode.RDMA_READ).remote(shared.stag(), counterTo)
            .addSge(local, 8, 8);
        qp.postSend(wr);
        take(cq, wcs, 1);
        local.buffer().setLong(16, local.buffer().getLong(8) + 1);
        wr.reset().wrId(3).opcode(WorkRequestOpcode.RDMA_WRITE).remote(shared.stag(), counterTo)
            .addSge(local, 16, 8);
        qp.postSend(wr);
        wr.reset().wrId(4).opcode(WorkRequestOpcode.ATOMIC_CMP_SWAP).compareData(1).swapData(0)
            .remote(shared.stag(), lockTo).localResult(local, 24);
        qp.postSend(wr);
        take(cq, wcs, 2);
        if (local.getLong(24) != 1) {
          failure.compareAndSet(null, "released a lock that was not held: " + local.getLong(24));
        }
      }
    }
  }

  private static void take(CompletionQueue cq, WorkCompletion[] wcs, int n)
      throws InterruptedException {
    int got = 0;
    while (got < n) {
      int m = cq.await(wcs, n - got, WAIT, TimeUnit.SECONDS);
      if (m == 0) {
        fail("no completion within " + WAIT + " s");
      }
      for (int i = 0; i < m; i++) {
        assertEquals(WcStatus.SUCCESS, wcs[i].status(), wcs[i].toString());
      }
      got += m;
    }
  }

  @Test
  void immediateDataAndWriteWithImmediateCompleteReceives() throws Exception {
    connect(1, 16);
    QueuePair qp = clientQps.get(0);
    QueuePair sqp = serverQps.get(0);
    MemoryRegion sink = serverPd.allocate(4096, ALL);
    MemoryRegion recv = serverPd.allocate(64, ALL);
    MemoryRegion src = clientPd.allocate(4096, ALL);
    for (int i = 0; i < 4096; i++) {
      src.buffer().setByte(i, i * 31);
    }
    for (int i = 0; i < 3; i++) {
      sqp.postRecv(new RecvWorkRequest(1).wrId(100 + i).addSge(recv, 0, 64));
    }
    qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.IMMEDIATE_DATA)
        .immData(0x0123_4567_89ab_cdefL));
    qp.postSend(new SendWorkRequest(1).wrId(2)
        .opcode(WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED).immData(-1L));
    qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE)
        .remote(sink.stag(), sink.address()).addSge(src, 0, 4096).immData(42));
    WorkCompletion[] wcs = completions(3);
    take(clientCqs.get(0), wcs, 3);
    List<WorkCompletion> got = new ArrayList<>();
    WorkCompletion[] one = completions(1);
    for (int i = 0; i < 3; i++) {
      take(serverCq, one, 1);
      got.add(new WorkCompletion().copyFrom(one[0]));
    }
    assertEquals(List.of(100L, 101L, 102L), got.stream().map(WorkCompletion::wrId).toList());
    for (WorkCompletion wc : got) {
      assertEquals(WcOpcode.RECV_IMMEDIATE_DATA, wc.opcode(), wc.toString());
      assertTrue(wc.hasImmData());
      assertEquals(0, wc.byteLen());
    }
    assertEquals(0x0123_4567_89ab_cdefL, got.get(0).immData());
    assertEquals(-1L, got.get(1).immData());
    assertTrue(got.get(1).solicited());
    assertEquals(42, got.get(2).immData());
    for (int i = 0; i < 4096; i++) {
      assertEquals(src.buffer().getByte(i), sink.buffer().getByte(i), "octet " + i);
    }
  }

  private static WorkCompletion[] completions(int n) {
    WorkCompletion[] a = new WorkCompletion[n];
    for (int i = 0; i < n; i++) {
      a[i] = new WorkCompletion();
    }
    return a;
  }
}
