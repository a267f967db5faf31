package io.iwarp4j.it.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Soak: 32 queue pairs between two devices over TCP on 127.0.0.1 run rounds of random RDMA
 * Writes, RDMA Reads and Sends (random lengths up to {@value #SLOT} octets, fresh random octets
 * every round) for {@code -Dsoak.seconds} (default {@value #DEFAULT_SECONDS}, {@value #CI_SECONDS} when the
 * {@code CI} environment variable is set). Every payload is
 * verified by CRC32C against its source; every work request must complete with SUCCESS. Heap
 * (after a GC) and direct memory (JDK direct buffers plus Netty's pooled direct arenas) are
 * sampled every {@value #SAMPLE_MILLIS} ms: after the first third (warm-up), no sample may
 * exceed the warm-up maximum by more than {@value #HEAP_MARGIN_MB} MiB (heap) or
 * {@value #DIRECT_MARGIN_MB} MiB (direct). Results go to stdout (docs/reliability.md "Soak").
 */
class SoakIT {
  private static final int DEFAULT_SECONDS = 15;
  private static final int CI_SECONDS = 60;
  private static final int QPS = 32;
  private static final int OPS = 16;
  private static final int SLOT = 4096;
  private static final long SAMPLE_MILLIS = 1000;
  private static final long HEAP_MARGIN_MB = 32;
  private static final long DIRECT_MARGIN_MB = 16;
  private static final long WAIT = 60;
  private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ;

  private final WorkCompletion[] out = new WorkCompletion[512];

  @Test
  void thirtyTwoQueuePairsOfRandomOperationsStayCorrectAndFlat() throws Exception {
    long seconds = Long.getLong("soak.seconds", System.getenv("CI") != null ? CI_SECONDS
        : DEFAULT_SECONDS);
    long seed = Long.getLong("soak.seed", System.nanoTime());
    System.out.println("SoakIT seconds=" + seconds + " seed=" + seed + " (-Dsoak.seed to repeat)");
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < out.length; i++) {
      out[i] = new WorkCompletion();
    }
    int bytes = QPS * (OPS + 1) * SLOT;
    try (RdmaDevice a = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build());
        RdmaDevice b = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build())) {
      ProtectionDomain pa = a.allocateProtectionDomain();
      ProtectionDomain pb = b.allocateProtectionDomain();
      CompletionQueue cqa = a.createCompletionQueue(QPS * (OPS + 1) * 2);
      CompletionQueue cqb = b.createCompletionQueue(QPS * (OPS + 1) * 2);
      MemoryRegion src = pa.allocate(bytes, ALL);
      MemoryRegion sink = pa.allocate(bytes, ALL);
      MemoryRegion target = pb.allocate(bytes, ALL);
      MemoryRegion readSrc = pb.allocate(bytes, ALL);
      MemoryRegion recv = pb.allocate(bytes, ALL);
      QueuePair[] qa = new QueuePair[QPS];
      QueuePair[] qb = new QueuePair[QPS];
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = b.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
      for (int i = 0; i < QPS; i++) {
        // Twice a round's depth: a completion can be polled a moment before its slot is free.
        qa[i] = a.createQueuePair(pa, QueuePairConfig.builder(cqa, cqa).maxSendWr(2 * (OPS + 1))
            .maxRecvWr(1).maxSendSge(1).maxRecvSge(1).build());
        qb[i] = b.createQueuePair(pb, QueuePairConfig.builder(cqb, cqb).maxSendWr(1)
            .maxRecvWr(2 * (OPS + 1)).maxSendSge(1).maxRecvSge(1).build());
        var connected = a.connect(qa[i], listener.localAddress(),
            ConnectParams.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
        ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(request, "no connect request for pair " + i);
        request.accept(qb[i]).get(WAIT, TimeUnit.SECONDS);
        connected.get(WAIT, TimeUnit.SECONDS);
      }
      listener.close();

      WorkRequestOpcode[] kinds = {WorkRequestOpcode.RDMA_WRITE, WorkRequestOpcode.RDMA_READ,
          WorkRequestOpcode.SEND};
      WorkRequestOpcode[][] plan = new WorkRequestOpcode[QPS][OPS + 1];
      int[][] lengths = new int[QPS][OPS + 1];
      byte[] noise = new byte[bytes];
      SendWorkRequest wr = new SendWorkRequest(1);
      RecvWorkRequest rr = new RecvWorkRequest(1);
      List<long[]> samples = new ArrayList<>();
      long start = System.nanoTime();
      long end = start + TimeUnit.SECONDS.toNanos(seconds);
      long nextSample = 0;
      long ops = 0;
      long octets = 0;
      long mismatches = 0;
      int rounds = 0;
      while (System.nanoTime() < end) {
        // Fresh octets at every source; clear every destination.
        fill(rnd, noise, src.buffer());
        fill(rnd, noise, readSrc.buffer());
        target.buffer().setZero(0, bytes);
        sink.buffer().setZero(0, bytes);
        recv.buffer().setZero(0, bytes);
        int sends = 0;
        for (int i = 0; i < QPS; i++) {
          for (int j = 0; j <= OPS; j++) {
            // The last operation of each queue pair is a Send: its arrival at B means every
            // Write before it was placed (RDMAP delivers in order).
            plan[i][j] = j == OPS ? WorkRequestOpcode.SEND : kinds[rnd.nextInt(kinds.length)];
            lengths[i][j] = 1 + rnd.nextInt(SLOT);
            if (plan[i][j] == WorkRequestOpcode.SEND) {
              sends++;
            }
          }
        }
        for (int i = 0; i < QPS; i++) {
          for (int j = 0; j <= OPS; j++) {
            if (plan[i][j] == WorkRequestOpcode.SEND) {
              // Sends of a pair land in its receives in order: the one for op j in slot (i, j).
              qb[i].postRecv(rr.reset().wrId(slotId(i, j)).addSge(recv, slot(i, j), SLOT));
            }
          }
        }
        for (int i = 0; i < QPS; i++) {
          for (int j = 0; j <= OPS; j++) {
            int s = slot(i, j);
            wr.reset().wrId(slotId(i, j)).opcode(plan[i][j]).flags(SendFlags.SIGNALED);
            if (plan[i][j] == WorkRequestOpcode.RDMA_READ) {
              wr.remote(readSrc.stag(), readSrc.address() + s).addSge(sink, s, lengths[i][j]);
            } else {
              if (plan[i][j] == WorkRequestOpcode.RDMA_WRITE) {
                wr.remote(target.stag(), target.address() + s);
              }
              wr.addSge(src, s, lengths[i][j]);
            }
            qa[i].postSend(wr);
          }
        }
        awaitSuccess(cqa, QPS * (OPS + 1));
        awaitSuccess(cqb, sends);
        for (int i = 0; i < QPS; i++) {
          for (int j = 0; j <= OPS; j++) {
            int s = slot(i, j);
            int len = lengths[i][j];
            ByteBuf from = plan[i][j] == WorkRequestOpcode.RDMA_READ ? readSrc.buffer()
                : src.buffer();
            ByteBuf to = switch (plan[i][j]) {
              case RDMA_READ -> sink.buffer();
              case RDMA_WRITE -> target.buffer();
              default -> recv.buffer();
            };
            if (crc(from, s, len) != crc(to, s, len)) {
              mismatches++;
              System.out.println("SoakIT mismatch: round " + rounds + " qp " + i + " op " + j
                  + " " + plan[i][j] + " len " + len);
            }
            ops++;
            octets += len;
          }
        }
        rounds++;
        long now = System.nanoTime();
        if (now >= nextSample) {
          samples.add(sample(now - start));
          nextSample = now + TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS);
        }
      }
      double secs = (System.nanoTime() - start) / 1e9;
      System.out.printf("SoakIT: %d rounds, %d operations, %d octets, %d mismatches in %.1f s"
          + " (%.0f ops/s)%n", rounds, ops, octets, mismatches, secs, ops / secs);
      for (long[] s : samples) {
        System.out.printf("SoakIT sample t=%5.1fs heap=%6.1f MiB direct=%6.1f MiB"
            + " nettyPooledDirect=%6.1f MiB%n", s[0] / 1e9, s[1] / 1048576.0,
            s[2] / 1048576.0, s[3] / 1048576.0);
      }
      assertEquals(0, mismatches, "payloads differ from their sources");
      assertTrue(rounds > 0 && samples.size() >= 3, "too short to judge memory: "
          + samples.size() + " samples");
      assertFlat(samples, 1, HEAP_MARGIN_MB, "heap");
      assertFlat(samples, 2, DIRECT_MARGIN_MB, "JDK direct memory");
      assertFlat(samples, 3, DIRECT_MARGIN_MB, "Netty pooled direct memory");
    }
  }

  private static int slot(int qp, int op) {
    return (qp * (OPS + 1) + op) * SLOT;
  }

  private static long slotId(int qp, int op) {
    return (long) qp << 16 | op;
  }

  private static void fill(SplittableRandom rnd, byte[] noise, ByteBuf buf) {
    rnd.nextBytes(noise);
    buf.setBytes(0, noise);
  }

  private void awaitSuccess(CompletionQueue cq, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
    int got = 0;
    while (got < n) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        fail("only " + got + " of " + n + " completions within " + WAIT + " s");
      }
      int k = cq.await(out, Math.min(out.length, n - got), left, TimeUnit.NANOSECONDS);
      for (int i = 0; i < k; i++) {
        if (out[i].status() != WcStatus.SUCCESS) {
          fail("work request failed: " + out[i]);
        }
      }
      got += k;
    }
  }

  private static long crc(ByteBuf buf, int index, int length) {
    CRC32C c = new CRC32C();
    c.update(buf.nioBuffer(index, length));
    return c.getValue();
  }

  /** {elapsed ns, heap used after GC, JDK direct buffers in use, Netty pooled direct in use}. */
  private static long[] sample(long elapsed) {
    System.gc();
    Runtime rt = Runtime.getRuntime();
    long heap = rt.totalMemory() - rt.freeMemory();
    long direct = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        direct = pool.getMemoryUsed();
      }
    }
    long pooled = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    return new long[] {elapsed, heap, direct, pooled};
  }

  /** After the first third (warm-up), no sample exceeds the warm-up maximum by the margin. */
  private static void assertFlat(List<long[]> samples, int column, long marginMb, String what) {
    int warm = Math.max(1, samples.size() / 3);
    long warmMax = 0;
    for (int i = 0; i < warm; i++) {
      warmMax = Math.max(warmMax, samples.get(i)[column]);
    }
    for (int i = warm; i < samples.size(); i++) {
      long v = samples.get(i)[column];
      assertTrue(v <= warmMax + marginMb * 1048576L, what + " grew: sample " + i + " = "
          + v / 1048576 + " MiB, warm-up maximum " + warmMax / 1048576 + " MiB");
    }
  }
}
