package io.iwarp4j.benchmarks;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.MpaConnectionInfo;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The README's "run something" command: two verbs devices on 127.0.0.1, a connection, an
 * exchange of memory region advertisements, then for about two seconds each: RDMA Write
 * bandwidth (64 KiB messages, 64 outstanding), RDMA Read of a region with every octet verified,
 * and Send/Receive ping-pong latency. Prints what was negotiated and the results; throws with a
 * message naming the failure otherwise.
 */
final class LoopbackDemo {
  private static final long PHASE_NANOS = TimeUnit.MILLISECONDS.toNanos(2000);
  private static final long WAIT_SECONDS = 5;
  private static final int MESSAGE = 64 * 1024;
  private static final int DEPTH = 64;
  private static final int CHUNKS = 16; // the server's regions hold 16 messages each
  private static final int REGION = CHUNKS * MESSAGE;
  private static final int PING = 8;
  private static final int ACCESS =
      AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

  private LoopbackDemo() {
  }

  /** One side: a device with one PD, one CQ and one QP. */
  private static final class Side implements AutoCloseable {
    final RdmaDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final WorkCompletion[] wc = new WorkCompletion[DEPTH];

    Side() {
      device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
      pd = device.allocateProtectionDomain();
      cq = device.createCompletionQueue(4 * DEPTH);
      qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
          .maxSendWr(2 * DEPTH).maxRecvWr(16).maxSendSge(1).maxRecvSge(1).build());
      for (int i = 0; i < wc.length; i++) {
        wc[i] = new WorkCompletion();
      }
    }

    /** Waits (bounded) for at least one completion; fails on an error completion. */
    int await(String what) throws InterruptedException {
      int n = cq.await(wc, WAIT_SECONDS, TimeUnit.SECONDS);
      if (n == 0) {
        throw new IllegalStateException(what + ": no completion within " + WAIT_SECONDS + " s");
      }
      for (int i = 0; i < n; i++) {
        if (!wc[i].isSuccess()) {
          throw new IllegalStateException(what + " failed: " + wc[i]);
        }
      }
      return n;
    }

    @Override
    public void close() {
      device.close();
    }
  }

  static void run(String[] args) throws Exception {
    try (Side server = new Side(); Side client = new Side()) {
      // Server regions: a Write target, a Read source with a known pattern, ping-pong buffers.
      MemoryRegion writeTarget = server.pd.allocate(REGION, ACCESS);
      MemoryRegion readSource = server.pd.allocate(REGION, ACCESS);
      byte[] pattern = new byte[REGION];
      for (int i = 0; i < REGION; i++) {
        pattern[i] = (byte) (i * 31 + 7 + (i >>> 16));
      }
      readSource.buffer().setBytes(0, pattern);
      MemoryRegion serverMsgs = server.pd.allocate(4096, AccessFlags.LOCAL_WRITE);
      // Client regions: a Write source, a Read sink (one slot per outstanding Read), messages.
      MemoryRegion writeSource = client.pd.allocate(MESSAGE, AccessFlags.LOCAL_WRITE);
      MemoryRegion readSink = client.pd.allocate(DEPTH * MESSAGE, AccessFlags.LOCAL_WRITE);
      MemoryRegion clientMsgs = client.pd.allocate(4096, AccessFlags.LOCAL_WRITE);

      // Connect (peer-to-peer MPA, so either side may send first); both post a receive for
      // the peer's advertisement before the connection exists.
      server.qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(serverMsgs, 0, 64));
      client.qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(clientMsgs, 0, 64));
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add);
      CompletableFuture<RdmaConnection> cf = client.device.connect(client.qp,
          listener.localAddress(), ConnectParams.builder().peerToPeer(true).build());
      ConnectRequest request = requests.poll(WAIT_SECONDS, TimeUnit.SECONDS);
      if (request == null) {
        throw new IllegalStateException("no connect request within " + WAIT_SECONDS + " s");
      }
      RdmaConnection sc = request.accept(server.qp).get(WAIT_SECONDS, TimeUnit.SECONDS);
      RdmaConnection cc = cf.get(WAIT_SECONDS, TimeUnit.SECONDS);
      MpaConnectionInfo info = cc.mpaInfo();
      System.out.printf("iwarp4j loopback demo: two verbs devices on %s -> %s (%s transport)%n",
          text(cc.localAddress()), text(cc.remoteAddress()), client.device.transport());
      System.out.printf("MPA rev %d, enhanced %s, %s, CRC %s, markers %s, MULPDU %d;"
              + " client IRD/ORD %d/%d, server IRD/ORD %d/%d%n", info.revision(),
          info.enhanced(), info.peerToPeer() ? "peer-to-peer (RTR " + info.rtr() + ")"
              : "client-server", info.crc() ? "on" : "off",
          info.markersOut() || info.markersIn() ? "on" : "off", info.maxUlpduLength(),
          cc.ird(), cc.ord(), sc.ird(), sc.ord());

      // Advertisements: the server sends its two regions, the client its message buffer.
      serverMsgs.buffer().setBytes(64, writeTarget.remote().toBytes());
      serverMsgs.buffer().setBytes(64 + RemoteBuffer.ENCODED_LENGTH, readSource.remote().toBytes());
      server.qp.postSend(new SendWorkRequest(1).opcode(WorkRequestOpcode.SEND)
          .addSge(serverMsgs, 64, 2 * RemoteBuffer.ENCODED_LENGTH));
      clientMsgs.buffer().setBytes(64, clientMsgs.remote().toBytes());
      client.qp.postSend(new SendWorkRequest(1).opcode(WorkRequestOpcode.SEND)
          .addSge(clientMsgs, 64, RemoteBuffer.ENCODED_LENGTH));
      client.await("receiving the server's advertisement");
      server.await("receiving the client's advertisement");
      byte[] ad = new byte[2 * RemoteBuffer.ENCODED_LENGTH];
      clientMsgs.buffer().getBytes(0, ad);
      RemoteBuffer target = RemoteBuffer.fromBytes(ad, 0);
      RemoteBuffer source = RemoteBuffer.fromBytes(ad, RemoteBuffer.ENCODED_LENGTH);
      System.out.printf("server advertised: write target %s, read source %s%n", target, source);

      writeBandwidth(client, writeSource, target);
      readVerified(client, readSink, source, pattern);
      pingPong(server, client, serverMsgs, clientMsgs);

      cc.disconnect().get(WAIT_SECONDS, TimeUnit.SECONDS);
      listener.close();
    }
    System.out.println("loopback demo OK");
  }

  private static String text(java.net.SocketAddress address) {
    return address instanceof InetSocketAddress a ? a.getHostString() + ":" + a.getPort()
        : String.valueOf(address);
  }

  /** RDMA Write of 64 KiB messages, {@link #DEPTH} outstanding, for a couple of seconds. */
  private static void writeBandwidth(Side client, MemoryRegion src, RemoteBuffer target)
      throws InterruptedException {
    for (int i = 0; i < MESSAGE; i++) {
      src.buffer().setByte(i, i);
    }
    SendWorkRequest wr = new SendWorkRequest(1);
    long posted = 0;
    long done = 0;
    long start = System.nanoTime();
    long deadline = start + PHASE_NANOS;
    while (true) {
      boolean open = System.nanoTime() < deadline;
      while (open && posted - done < DEPTH) {
        client.qp.postSend(wr.reset().wrId(posted).opcode(WorkRequestOpcode.RDMA_WRITE)
            .flags(SendFlags.SIGNALED)
            .remote(target.stag(), target.address() + (posted % CHUNKS) * MESSAGE)
            .addSge(src, 0, MESSAGE));
        posted++;
      }
      if (done == posted) {
        break;
      }
      done += client.await("RDMA Write");
    }
    double secs = (System.nanoTime() - start) / 1e9;
    System.out.printf("RDMA Write: %d x 64 KiB, queue depth %d, in %.2f s: %.0f MB/s,"
        + " %.0f msgs/s%n", done, DEPTH, secs, done * (double) MESSAGE / 1e6 / secs, done / secs);
  }

  /** RDMA Read of the server's 1 MiB source, 64 KiB per Read, each one checked octet by octet. */
  private static void readVerified(Side client, MemoryRegion sink, RemoteBuffer source,
      byte[] pattern) throws InterruptedException {
    SendWorkRequest wr = new SendWorkRequest(1);
    byte[] got = new byte[MESSAGE];
    long posted = 0;
    long done = 0;
    long start = System.nanoTime();
    long deadline = start + PHASE_NANOS;
    while (true) {
      boolean open = System.nanoTime() < deadline;
      while (open && posted - done < DEPTH) {
        client.qp.postSend(wr.reset().wrId(posted).opcode(WorkRequestOpcode.RDMA_READ)
            .flags(SendFlags.SIGNALED)
            .remote(source.stag(), source.address() + (posted % CHUNKS) * MESSAGE)
            .addSge(sink, (posted % DEPTH) * MESSAGE, MESSAGE));
        posted++;
      }
      if (done == posted) {
        break;
      }
      int n = client.await("RDMA Read");
      for (int i = 0; i < n; i++) {
        WorkCompletion c = client.wc[i];
        long id = c.wrId();
        if (c.opcode() != WcOpcode.RDMA_READ || c.byteLen() != MESSAGE || id != done + i) {
          throw new IllegalStateException("unexpected RDMA Read completion " + c);
        }
        sink.buffer().getBytes((int) (id % DEPTH) * MESSAGE, got);
        int from = (int) (id % CHUNKS) * MESSAGE;
        if (!Arrays.equals(got, 0, MESSAGE, pattern, from, from + MESSAGE)) {
          throw new IllegalStateException("RDMA Read " + id + " returned wrong data (chunk "
              + id % CHUNKS + ")");
        }
      }
      done += n;
    }
    double secs = (System.nanoTime() - start) / 1e9;
    System.out.printf("RDMA Read:  %d x 64 KiB verified, ORD-limited, in %.2f s: %.0f MB/s,"
        + " %.0f msgs/s%n", done, secs, done * (double) MESSAGE / 1e6 / secs, done / secs);
  }

  /** 8-octet Send/Receive ping-pong; the server echoes from its own thread. */
  private static void pingPong(Side server, Side client, MemoryRegion serverMsgs,
      MemoryRegion clientMsgs) throws Exception {
    RecvWorkRequest srecv = new RecvWorkRequest(1);
    RecvWorkRequest crecv = new RecvWorkRequest(1);
    for (int i = 0; i < 8; i++) {
      server.qp.postRecv(srecv.reset().wrId(i).addSge(serverMsgs, 1024 + i * PING, PING));
    }
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> echoFailure = new AtomicReference<>();
    Thread echo = new Thread(() -> {
      SendWorkRequest pong = new SendWorkRequest(1);
      try {
        while (!stop.get()) {
          int n = server.cq.await(server.wc, 100, TimeUnit.MILLISECONDS);
          for (int i = 0; i < n; i++) {
            WorkCompletion c = server.wc[i];
            if (!c.isSuccess()) {
              throw new IllegalStateException("echo side: " + c);
            }
            int slot = (int) c.wrId();
            server.qp.postRecv(srecv.reset().wrId(slot)
                .addSge(serverMsgs, 1024 + slot * PING, PING));
            server.qp.postSend(pong.reset().opcode(WorkRequestOpcode.SEND)
                .addSge(serverMsgs, 1024 + slot * PING, PING));
          }
        }
      } catch (Throwable t) {
        echoFailure.set(t);
      }
    }, "iwarp4j-demo-echo");
    echo.setDaemon(true);
    echo.start();

    SendWorkRequest ping = new SendWorkRequest(1);
    long[] rtt = new long[1 << 20];
    int count = 0;
    long start = System.nanoTime();
    long deadline = start + PHASE_NANOS;
    try {
      while (System.nanoTime() < deadline && count < rtt.length) {
        client.qp.postRecv(crecv.reset().wrId(count).addSge(clientMsgs, 2048, PING));
        clientMsgs.buffer().setLong(3072, count);
        long t0 = System.nanoTime();
        client.qp.postSend(ping.reset().opcode(WorkRequestOpcode.SEND)
            .addSge(clientMsgs, 3072, PING));
        if (client.cq.await(client.wc, 1, WAIT_SECONDS, TimeUnit.SECONDS) != 1) {
          Throwable t = echoFailure.get();
          throw new IllegalStateException("ping " + count + ": no pong within " + WAIT_SECONDS
              + " s" + (t == null ? "" : " (" + t + ")"));
        }
        rtt[count] = System.nanoTime() - t0;
        WorkCompletion c = client.wc[0];
        if (!c.isSuccess() || c.wrId() != count || c.byteLen() != PING
            || clientMsgs.buffer().getLong(2048) != count) {
          throw new IllegalStateException("ping " + count + ": bad pong " + c);
        }
        count++;
      }
    } finally {
      stop.set(true);
      echo.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    }
    if (echoFailure.get() != null) {
      throw new IllegalStateException("echo side failed", echoFailure.get());
    }
    double secs = (System.nanoTime() - start) / 1e9;
    long[] sorted = Arrays.copyOf(rtt, count);
    Arrays.sort(sorted);
    System.out.printf("Send/Recv ping-pong: %d round trips of %d octets in %.2f s: %.0f msgs/s,"
            + " median RTT %.1f us (half: %.1f us), p99 %.1f us%n", count, PING, secs,
        count / secs, sorted[count / 2] / 1e3, sorted[count / 2] / 2e3,
        sorted[Math.min(count - 1, (int) (count * 0.99))] / 1e3);
  }
}
