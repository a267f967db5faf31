package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RegionOptions;
import io.iwarp4j.verbs.WorkCompletion;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * Test helper shared by the operations, concurrency and separate-process ITs: one side of a
 * connection, i.e. a device with one protection domain and one completion queue (used for both
 * send and receive completions), plus bounded waits and checksums.
 */
final class OpsItPeer implements AutoCloseable {
  static final int ALL_ACCESS =
      AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

  final RdmaDevice device;
  final ProtectionDomain pd;
  final CompletionQueue cq;
  private final WorkCompletion[] out = new WorkCompletion[256];

  OpsItPeer(int eventLoopThreads, int cqCapacity) {
    this(DeviceConfig.builder().eventLoopThreads(eventLoopThreads).build(), cqCapacity);
  }

  OpsItPeer(DeviceConfig config, int cqCapacity) {
    device = RdmaDevice.open(config);
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(cqCapacity);
    for (int i = 0; i < out.length; i++) {
      out[i] = new WorkCompletion();
    }
  }

  QueuePair newQp(int sendWr, int recvWr, int sge) {
    return device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(sendWr).maxRecvWr(recvWr).maxSendSge(sge).maxRecvSge(sge).build());
  }

  MemoryRegion region(int length) {
    return pd.allocate(length, ALL_ACCESS);
  }

  MemoryRegion invalidatableRegion(int length) {
    return pd.allocate(length, ALL_ACCESS, RegionOptions.defaults().allowRemoteInvalidation(true));
  }

  /** Exactly {@code n} completions, waiting at most {@code seconds} in total. */
  List<WorkCompletion> take(int n, long seconds) throws InterruptedException {
    List<WorkCompletion> all = new ArrayList<>(n);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (all.size() < n) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        fail("only " + all.size() + " of " + n + " completions within " + seconds + " s: "
            + all);
      }
      int got = cq.await(out, Math.min(out.length, n - all.size()), left, TimeUnit.NANOSECONDS);
      for (int i = 0; i < got; i++) {
        all.add(new WorkCompletion().copyFrom(out[i]));
      }
    }
    return all;
  }

  /** Asserts that no completion arrives within {@code millis}. */
  void assertQuiet(long millis) throws InterruptedException {
    int got = cq.await(out, 1, millis, TimeUnit.MILLISECONDS);
    assertEquals(0, got, got == 0 ? "" : "unexpected completion " + out[0]);
  }

  static long crc(ByteBuf buf, int index, int length) {
    CRC32C c = new CRC32C();
    c.update(buf.nioBuffer(index, length));
    return c.getValue();
  }

  static byte[] bytes(ByteBuf buf, int index, int length) {
    byte[] b = new byte[length];
    buf.getBytes(index, b);
    return b;
  }

  @Override
  public void close() {
    device.close();
  }
}
