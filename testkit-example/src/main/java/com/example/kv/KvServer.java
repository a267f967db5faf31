package com.example.kv;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
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
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A key-value service over RDMA Sends: a client Sends a key, the server Sends back its value
 * (empty if none), one request at a time per client. One connection at a time, {@code receives} receives posted for it, each
 * reposted after use. When the connection fails (say the peer's CRC was wrong) the stack
 * completes every posted receive flushed; the server collects those and closes the queue pair.
 */
public final class KvServer implements AutoCloseable {
  static final int SLOT = 256;

  private final RdmaDevice device;
  private final Map<String, String> store;
  private final int receives;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  private final MemoryRegion buffers;
  private final RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<WorkCompletion> failed = new LinkedBlockingQueue<>();
  private final Thread loop;
  private volatile boolean running = true;
  private QueuePair qp;

  private KvServer(RdmaDevice device, Map<String, String> store, int receives) throws Exception {
    this.device = device;
    this.store = Map.copyOf(store);
    this.receives = receives;
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(4 * receives);
    // receives slots for requests, then one for the reply
    buffers = pd.allocate((receives + 1) * SLOT, AccessFlags.LOCAL_WRITE);
    listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    loop = new Thread(this::serve, "kv-server");
    loop.start();
  }

  /** Starts serving {@code store} on 127.0.0.1, with {@code receives} receives per connection. */
  public static KvServer start(RdmaDevice device, Map<String, String> store, int receives)
      throws Exception {
    return new KvServer(device, store, receives);
  }

  /** Where clients connect. */
  public InetSocketAddress address() {
    return listener.localAddress();
  }

  /** The failed receive completions of the last connection, waiting up to {@code timeout}. */
  public List<WorkCompletion> awaitFailedReceives(int n, Duration timeout)
      throws InterruptedException {
    List<WorkCompletion> all = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (all.size() < n) {
      WorkCompletion wc = failed.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (wc == null) {
        break;
      }
      all.add(wc);
    }
    return all;
  }

  private void serve() {
    WorkCompletion[] out = {new WorkCompletion()};
    try {
      while (running) {
        ConnectRequest request = requests.poll();
        if (request != null) {
          accept(request);
        }
        if (cq.await(out, 20, TimeUnit.MILLISECONDS) == 1) {
          handle(out[0]);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void accept(ConnectRequest request) {
    if (qp != null) {
      request.reject("busy".getBytes(StandardCharsets.US_ASCII));
      return;
    }
    qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(receives).maxRecvWr(receives).build());
    for (int i = 0; i < receives; i++) {
      qp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(buffers, i * SLOT, SLOT));
    }
    request.accept(qp);
  }

  private void handle(WorkCompletion wc) {
    if (!wc.isSuccess()) {
      if (wc.opcode() == WcOpcode.RECV) {
        failed.add(new WorkCompletion().copyFrom(wc));
      }
      closeConnection();
      return;
    }
    if (wc.opcode() != WcOpcode.RECV) {
      return; // our reply was sent
    }
    int slot = (int) wc.wrId();
    String key = buffers.buffer().toString(slot * SLOT, (int) wc.byteLen(),
        StandardCharsets.UTF_8);
    byte[] value = store.getOrDefault(key, "").getBytes(StandardCharsets.UTF_8);
    buffers.buffer().setBytes(receives * SLOT, value);
    qp.postRecv(new RecvWorkRequest(1).wrId(slot).addSge(buffers, slot * SLOT, SLOT));
    qp.postSend(new SendWorkRequest(1).wrId(-1).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(buffers, receives * SLOT, value.length));
  }

  private void closeConnection() {
    // The stack flushes the other receives on its own; the queue pair is closed once all are in.
    if (qp != null && qp.outstandingReceives() == 0 && qp.outstandingSends() == 0) {
      qp.close();
      qp = null;
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    loop.join();
    listener.close();
    if (qp != null) {
      qp.close();
    }
    buffers.close();
    cq.close();
    pd.close();
  }
}
