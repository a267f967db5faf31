package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 64 queue pairs between two devices over TCP on 127.0.0.1, each with 128 work requests
 * outstanding at once, posted concurrently by 4 application threads (each thread posts a
 * quarter of every queue pair's requests): a seeded mix of RDMA Writes (1–2 SGEs), RDMA Reads
 * and Sends (1–2 SGEs, into receives pre-posted at the peer). Proves: postSend is safe from
 * several threads on shared queue pairs, every work request (send side and receive side)
 * completes exactly once with SUCCESS, and every operation's target range holds exactly the
 * source's octets (CRC32C per operation).
 *
 * <p>It found that regions allocated from Netty's adaptive allocator shared a root buffer, whose
 * one scratch NIO view several event loops then used at once for socket writes, so octets from
 * the wrong offsets went out (ProtectionDomain now allocates regions from the pooled
 * allocator). Diagnosis knobs: {@code it.qps}, {@code it.threads},
 * {@code it.loops} (event loop threads per device), {@code it.mix} (subset of "WRS"),
 * {@code it.recvAfter} (post receives after RTS instead of in INIT).
 */
@Timeout(120)
class VerbsConcurrencyIT {
  private static final long SEED = Long.getLong("it.seed", 0xC0_C0A_11L);
  private static final int QPS = Integer.getInteger("it.qps", 64);
  private static final int DEPTH = 128;
  private static final int THREADS = Integer.getInteger("it.threads", 4);
  private static final int LOOPS = Integer.getInteger("it.loops", 2);
  private static final int SLOT = 1024;
  private static final int GAP = 8;
  private static final long WAIT = 60;

  /** One planned operation, slot (qp, j). */
  private record Op(WorkRequestOpcode opcode, int len, int split) {
  }

  private static long wrId(int qp, int j) {
    return ((long) qp << 16) | j;
  }

  private static int slot(int qp, int j) {
    return (qp * DEPTH + j) * SLOT;
  }

  @Test
  void manyQueuePairsManyThreadsEverythingCompletesOnceWithTheRightData() throws Exception {
    System.out.println("VerbsConcurrencyIT seed=0x" + Long.toHexString(SEED)
        + " (-Dit.seed to repeat)");
    long start = System.nanoTime();
    Random rnd = new Random(SEED);
    Op[][] plan = new Op[QPS][DEPTH];
    int[] sends = new int[QPS];
    WorkRequestOpcode[] kinds = {WorkRequestOpcode.RDMA_WRITE, WorkRequestOpcode.RDMA_READ,
        WorkRequestOpcode.SEND};
    for (int i = 0; i < QPS; i++) {
      for (int j = 0; j < DEPTH; j++) {
        int kind = rnd.nextInt(3);
        if (MIX.indexOf("WRS".charAt(kind)) < 0) {
          kind = "WRS".indexOf(MIX.charAt(0));
        }
        WorkRequestOpcode op = kinds[kind];
        int len = 8 + rnd.nextInt(SLOT - 2 * GAP - 8);
        int split = op == WorkRequestOpcode.RDMA_READ || rnd.nextBoolean() ? len
            : 8 + rnd.nextInt(len - 7);
        plan[i][j] = new Op(op, len, split);
        if (op == WorkRequestOpcode.SEND) {
          sends[i]++;
        }
      }
    }
    int bytes = QPS * DEPTH * SLOT;
    try (OpsItPeer a = new OpsItPeer(LOOPS, 1 << 15); OpsItPeer b = new OpsItPeer(LOOPS, 1 << 15)) {
      MemoryRegion src = a.region(bytes);
      MemoryRegion sink = a.region(bytes);
      MemoryRegion target = b.region(bytes);
      MemoryRegion readSrc = b.region(bytes);
      MemoryRegion recv = b.region(bytes + QPS * 2 * SLOT);
      byte[] noise = new byte[bytes];
      rnd.nextBytes(noise);
      src.buffer().setBytes(0, noise);
      rnd.nextBytes(noise);
      readSrc.buffer().setBytes(0, noise);
      target.buffer().setZero(0, bytes);
      sink.buffer().setZero(0, bytes);
      // Expected CRC of each operation's octets; a Send also names itself in its first 8.
      Map<Long, Long> expected = new HashMap<>();
      for (int i = 0; i < QPS; i++) {
        for (int j = 0; j < DEPTH; j++) {
          Op op = plan[i][j];
          int s = slot(i, j);
          if (op.opcode() == WorkRequestOpcode.RDMA_READ) {
            expected.put(wrId(i, j), crc(readSrc.buffer(), s, op.len(), -1, 0));
          } else {
            if (op.opcode() == WorkRequestOpcode.SEND) {
              src.buffer().setLong(s, wrId(i, j));
            }
            expected.put(wrId(i, j), crc(src.buffer(), s, op.split(), s + op.split() + GAP,
                op.len() - op.split()));
          }
        }
      }

      // Connect 64 pairs; B's receives are posted in INIT, so they are in place at RTR.
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = b.device.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add);
      QueuePair[] qa = new QueuePair[QPS];
      QueuePair[] qb = new QueuePair[QPS];
      int recvIndex = 0;
      int[] recvSlot = new int[QPS * (DEPTH + 1)];
      for (int i = 0; i < QPS; i++) {
        qa[i] = a.newQp(DEPTH, 4, 2);
        qb[i] = b.newQp(4, 2 * DEPTH, 2);
        if (!RECV_AFTER) {
          recvIndex = postReceives(qb[i], sends[i], recv, recvSlot, recvIndex);
        }
        CompletableFuture<RdmaConnection> cf = a.device.connect(qa[i], listener.localAddress(),
            ConnectParams.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
        ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(request, "no connect request for pair " + i);
        request.accept(qb[i]).get(WAIT, TimeUnit.SECONDS);
        cf.get(WAIT, TimeUnit.SECONDS);
        if (RECV_AFTER) {
          recvIndex = postReceives(qb[i], sends[i], recv, recvSlot, recvIndex);
          qb[i].postSend(new SendWorkRequest(1).wrId(i).opcode(WorkRequestOpcode.RDMA_WRITE)
              .flags(SendFlags.SIGNALED).remote(sink.stag(), sink.address()));
          assertEquals(WcStatus.SUCCESS, b.take(1, WAIT).get(0).status());
        }
      }
      listener.close();
      long connected = System.nanoTime();

      // 4 threads post concurrently: thread t posts slots j = t (mod 4) of every QP.
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      List<Future<?>> posters = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        posters.add(pool.submit(() -> {
          SendWorkRequest wr = new SendWorkRequest(2);
          for (int j = thread; j < DEPTH; j += THREADS) {
            for (int i = 0; i < QPS; i++) {
              Op op = plan[i][j];
              int s = slot(i, j);
              wr.reset().wrId(wrId(i, j)).opcode(op.opcode()).flags(SendFlags.SIGNALED);
              if (op.opcode() == WorkRequestOpcode.RDMA_READ) {
                wr.remote(readSrc.stag(), readSrc.address() + s).addSge(sink, s, op.len());
              } else {
                if (op.opcode() == WorkRequestOpcode.RDMA_WRITE) {
                  wr.remote(target.stag(), target.address() + s);
                }
                wr.addSge(src, s, op.split());
                if (op.len() > op.split()) {
                  wr.addSge(src, s + op.split() + GAP, op.len() - op.split());
                }
              }
              qa[i].postSend(wr);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : posters) {
        f.get(WAIT, TimeUnit.SECONDS);
      }
      pool.shutdown();

      // Every send-side work request completes exactly once.
      Map<Long, Integer> seen = new HashMap<>();
      for (WorkCompletion wc : a.take(QPS * DEPTH, WAIT)) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        int i = (int) (wc.wrId() >>> 16);
        int j = (int) (wc.wrId() & 0xFFFF);
        assertTrue(i < QPS && j < DEPTH, wc.toString());
        assertEquals(plan[i][j].opcode().completionOpcode(), wc.opcode(), wc.toString());
        assertNull(seen.put(wc.wrId(), 1), "completed twice: " + wc);
      }
      assertEquals(QPS * DEPTH, seen.size());
      // A zero-length Send per QP behind everything: its arrival means every Write landed.
      for (int i = 0; i < QPS; i++) {
        qa[i].postSend(new SendWorkRequest(1).wrId(wrId(i, 0xFFFF))
            .opcode(WorkRequestOpcode.SEND).flags(SendFlags.SIGNALED));
      }
      for (WorkCompletion wc : a.take(QPS, WAIT)) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(0xFFFF, wc.wrId() & 0xFFFF, wc.toString());
      }
      int totalRecv = recvIndex;
      List<WorkCompletion> received = b.take(totalRecv, WAIT);
      a.assertQuiet(100);
      b.assertQuiet(100);

      // Receive side: each receive once, each Send delivered once with its octets.
      Map<Long, Integer> recvSeen = new HashMap<>();
      Map<Long, Integer> delivered = new HashMap<>();
      int markers = 0;
      for (WorkCompletion wc : received) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertNull(recvSeen.put(wc.wrId(), 1), "receive completed twice: " + wc);
        int at = recvSlot[(int) wc.wrId()];
        if (wc.byteLen() == 0) {
          markers++;
          continue;
        }
        long id = recv.buffer().getLong(at);
        assertNull(delivered.put(id, 1), "Send " + Long.toHexString(id) + " delivered twice; "
            + wc + " plan[0][0]=" + plan[0][0] + " crc " + crc(recv.buffer(), at, (int) wc.byteLen(), -1, 0)
            + " vs " + expected.get(id));
        Op op = plan[(int) (id >>> 16)][(int) (id & 0xFFFF)];
        assertEquals(WorkRequestOpcode.SEND, op.opcode());
        assertEquals(op.len(), wc.byteLen());
        assertEquals(expected.get(id), crc(recv.buffer(), at, op.len(), -1, 0),
            "Send " + Long.toHexString(id));
      }
      assertEquals(QPS, markers);
      // Writes and Reads: the target range holds the source octets.
      List<String> bad = new ArrayList<>();
      int checked = 0;
      for (int i = 0; i < QPS; i++) {
        for (int j = 0; j < DEPTH; j++) {
          Op op = plan[i][j];
          int s = slot(i, j);
          long id = wrId(i, j);
          if (op.opcode() == WorkRequestOpcode.RDMA_WRITE) {
            if (expected.get(id) != crc(target.buffer(), s, op.len(), -1, 0)) {
              bad.add("Write " + Long.toHexString(id) + " " + op + describe(target.buffer(), s, op.len()));
            }
            checked++;
          } else if (op.opcode() == WorkRequestOpcode.RDMA_READ) {
            if (expected.get(id) != crc(sink.buffer(), s, op.len(), -1, 0)) {
              bad.add("Read " + Long.toHexString(id) + " " + op + describe(sink.buffer(), s, op.len())
                  + " foundInSinkAt=" + find(sink.buffer(), readSrc.buffer(), s, bytes) + " s=" + s
                  + " foundInSrcAt=" + find(src.buffer(), readSrc.buffer(), s, bytes));
            }
            checked++;
          } else {
            assertEquals(1, delivered.get(id), "Send " + Long.toHexString(id) + " not delivered");
            checked++;
          }
        }
      }
      assertEquals(List.of(), bad, bad.size() + " operations left wrong octets");
      assertEquals(QPS * DEPTH, checked);
      long end = System.nanoTime();
      System.out.printf("VerbsConcurrencyIT: %d QPs x %d WRs; connect %d ms, traffic %d ms%n",
          QPS, DEPTH, (connected - start) / 1_000_000, (end - connected) / 1_000_000);
    }
  }

  /** Diagnosis: which kinds the plan may use, W(rite), R(ead), S(end); default all. */
  private static final String MIX = System.getProperty("it.mix", "WRS");

  private static final boolean RECV_AFTER = Boolean.getBoolean("it.recvAfter");

  private static int postReceives(QueuePair qp, int sends, MemoryRegion recv, int[] recvSlot,
      int recvIndex) {
    for (int k = 0; k <= sends; k++) {
      recvSlot[recvIndex] = recvIndex * SLOT;
      qp.postRecv(new RecvWorkRequest(1).wrId(recvIndex)
          .addSge(recv, (long) recvIndex * SLOT, SLOT));
      recvIndex++;
    }
    return recvIndex;
  }

  private static int find(ByteBuf hay, ByteBuf needle, int at, int limit) {
    long want = needle.getLong(at);
    for (int k = 0; k + 8 <= limit; k++) {
      if (hay.getLong(k) == want) {
        return k;
      }
    }
    return -1;
  }

  /** Where the octets differ: the first zero run, for diagnosis. */
  private static String describe(ByteBuf buf, int at, int len) {
    int zeros = 0;
    int firstZero = -1;
    for (int k = 0; k < len; k++) {
      if (buf.getByte(at + k) == 0) {
        zeros++;
        if (firstZero < 0) {
          firstZero = k;
        }
      }
    }
    return " zeros=" + zeros + " firstZero=" + firstZero;
  }

  private static long crc(ByteBuf buf, int at, int len, int at2, int len2) {
    CRC32C c = new CRC32C();
    c.update(buf.nioBuffer(at, len));
    if (len2 > 0) {
      c.update(buf.nioBuffer(at2, len2));
    }
    return c.getValue();
  }
}
