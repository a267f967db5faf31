package com.example.kv;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A client of {@link KvServer}: {@link #get} Sends the key and waits, bounded, for the value. */
public final class KvClient implements AutoCloseable {
  private final Duration timeout;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  private final QueuePair qp;
  private final MemoryRegion buffers;
  private final WorkCompletion[] out = {new WorkCompletion()};

  private KvClient(RdmaDevice device, InetSocketAddress server, Duration timeout)
      throws Exception {
    this.timeout = timeout;
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(16);
    qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4)
        .build());
    buffers = pd.allocate(2 * KvServer.SLOT, AccessFlags.LOCAL_WRITE);
    device.connect(qp, server).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Connects to a {@link KvServer}; every later {@link #get} waits at most {@code timeout}. */
  public static KvClient connect(RdmaDevice device, InetSocketAddress server, Duration timeout)
      throws Exception {
    return new KvClient(device, server, timeout);
  }

  /**
   * The value of {@code key} ("" if none).
   *
   * @throws TimeoutException if the server does not answer within the timeout
   */
  public String get(String key) throws TimeoutException, InterruptedException {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    buffers.buffer().setBytes(0, k);
    qp.postRecv(new RecvWorkRequest(1).wrId(2).addSge(buffers, KvServer.SLOT, KvServer.SLOT));
    qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(buffers, 0, k.length));
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || cq.await(out, left, TimeUnit.NANOSECONDS) == 0) {
        throw new TimeoutException("no answer to GET " + key + " within " + timeout);
      }
      if (!out[0].isSuccess()) {
        throw new IllegalStateException("GET " + key + " failed: " + out[0]);
      }
      if (out[0].opcode() == WcOpcode.RECV) {
        return buffers.buffer().toString(KvServer.SLOT, (int) out[0].byteLen(),
            StandardCharsets.UTF_8);
      }
    }
  }

  @Override
  public void close() {
    qp.close();
    buffers.close();
    cq.close();
    pd.close();
  }
}
