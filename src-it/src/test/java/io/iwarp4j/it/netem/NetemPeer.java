package io.iwarp4j.it.netem;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.MemoryRegion;
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
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * One end of {@link NetemIT}, run in its own JVM inside a network namespace.
 *
 * <p>{@code server <ip> <seed>}: listens on ip:0, prints {@code PORT n}, accepts one connection
 * (peer-to-peer MPA), Sends the advertisement of a {@value #SIZE}-octet region filled with
 * pattern(seed), then receives {@value #SENDS} Sends of {@value #SEND_SIZE} octets and a final
 * "done" Send carrying the CRC32C of everything the client sent and wrote; checks its region
 * (now pattern(seed + 1), written by the client) and the Sends, answers a verdict, prints
 * {@code DONE ok} or {@code DONE bad ...}.
 *
 * <p>{@code client <ip> <port> <seed>}: connects, RDMA-Reads the whole region and compares it
 * with pattern(seed), RDMA-Writes pattern(seed + 1) over it, Sends pattern(seed + 2) in
 * {@value #SENDS} messages, then "done"; prints {@code DONE ok} when the server's verdict and its
 * own Read check agree.
 */
public final class NetemPeer {
  static final int SIZE = 4 << 20;
  static final int SENDS = 32;
  static final int SEND_SIZE = 32 << 10;
  private static final long WAIT = 100;
  private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_READ;

  private NetemPeer() {
  }

  /**
   * @param args see the class comment
   * @throws Exception on any failure (the exit code is then non-zero)
   */
  public static void main(String[] args) throws Exception {
    try (RdmaDevice device = RdmaDevice.open()) {
      boolean ok = args[0].equals("server")
          ? server(device, args[1], Long.parseLong(args[2]))
          : client(device, args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]));
      System.out.println(ok ? "DONE ok" : "DONE bad");
      System.out.flush();
      System.exit(ok ? 0 : 1);
    }
  }

  static byte[] pattern(long seed, int size) {
    byte[] b = new byte[size];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  private static long crc(ByteBuf buf, int index, int length) {
    CRC32C c = new CRC32C();
    c.update(buf.nioBuffer(index, length));
    return c.getValue();
  }

  private static boolean server(RdmaDevice device, String ip, long seed) throws Exception {
    ProtectionDomain pd = device.allocateProtectionDomain();
    CompletionQueue cq = device.createCompletionQueue(256);
    MemoryRegion region = pd.allocate(SIZE, ALL);
    region.buffer().setBytes(0, pattern(seed, SIZE));
    MemoryRegion sends = pd.allocate(SENDS * SEND_SIZE, ALL);
    MemoryRegion msgs = pd.allocate(256, ALL);
    QueuePair qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(8).maxRecvWr(SENDS + 2).build());
    for (int i = 0; i < SENDS; i++) {
      qp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(sends, (long) i * SEND_SIZE, SEND_SIZE));
    }
    qp.postRecv(new RecvWorkRequest(1).wrId(SENDS).addSge(msgs, 0, 16));
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = device.listen(new InetSocketAddress(ip, 0), requests::add);
    System.out.println("PORT " + listener.localAddress().getPort());
    System.out.flush();
    ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
    if (request == null) {
      throw new IllegalStateException("no connection within " + WAIT + " s");
    }
    RdmaConnection conn = request.accept(qp).get(WAIT, TimeUnit.SECONDS);
    msgs.buffer().setBytes(128, region.remote().toBytes());
    qp.postSend(new SendWorkRequest(1).wrId(100).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(msgs, 128, RemoteBuffer.ENCODED_LENGTH));
    take(cq, SENDS + 2);
    long expectWrite = msgs.buffer().getLong(0);
    long expectSends = msgs.buffer().getLong(8);
    boolean regionOk = crc(region.buffer(), 0, SIZE) == expectWrite;
    boolean sendsOk = crc(sends.buffer(), 0, SENDS * SEND_SIZE) == expectSends;
    System.out.println("server: written region " + (regionOk ? "matches" : "DIFFERS")
        + ", Sends " + (sendsOk ? "match" : "DIFFER"));
    msgs.buffer().setLong(64, regionOk && sendsOk ? 1 : 0);
    qp.postSend(new SendWorkRequest(1).wrId(101).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(msgs, 64, 8));
    take(cq, 1);
    conn.disconnect().get(WAIT, TimeUnit.SECONDS);
    listener.close();
    return regionOk && sendsOk;
  }

  private static boolean client(RdmaDevice device, String ip, int port, long seed)
      throws Exception {
    ProtectionDomain pd = device.allocateProtectionDomain();
    CompletionQueue cq = device.createCompletionQueue(256);
    MemoryRegion sink = pd.allocate(SIZE, ALL);
    MemoryRegion src = pd.allocate(SIZE, ALL);
    src.buffer().setBytes(0, pattern(seed + 1, SIZE));
    MemoryRegion sendSrc = pd.allocate(SENDS * SEND_SIZE, ALL);
    sendSrc.buffer().setBytes(0, pattern(seed + 2, SENDS * SEND_SIZE));
    MemoryRegion msgs = pd.allocate(256, ALL);
    QueuePair qp = device.createQueuePair(pd, QueuePairConfig.builder(cq, cq)
        .maxSendWr(SENDS + 8).maxRecvWr(4).build());
    qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(msgs, 0, 16));
    qp.postRecv(new RecvWorkRequest(1).wrId(2).addSge(msgs, 64, 8));
    RdmaConnection conn = device.connect(qp, new InetSocketAddress(ip, port),
        ConnectParams.builder().peerToPeer(true)
            .firstFpduDelay(Duration.ZERO).build()).get(WAIT, TimeUnit.SECONDS);
    take(cq, 1);
    byte[] advert = new byte[RemoteBuffer.ENCODED_LENGTH];
    msgs.buffer().getBytes(0, advert);
    RemoteBuffer remote = RemoteBuffer.fromBytes(advert, 0);
    qp.postSend(new SendWorkRequest(1).wrId(10).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address()).addSge(sink, 0, SIZE));
    take(cq, 1);
    byte[] read = new byte[SIZE];
    sink.buffer().getBytes(0, read);
    boolean readOk = java.util.Arrays.equals(read, pattern(seed, SIZE));
    System.out.println("client: Read " + (readOk ? "matches" : "DIFFERS"));
    qp.postSend(new SendWorkRequest(1).wrId(11).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(remote.stag(), remote.address()).addSge(src, 0, SIZE));
    for (int i = 0; i < SENDS; i++) {
      qp.postSend(new SendWorkRequest(1).wrId(20 + i).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(sendSrc, (long) i * SEND_SIZE, SEND_SIZE));
    }
    msgs.buffer().setLong(128, crc(src.buffer(), 0, SIZE));
    msgs.buffer().setLong(136, crc(sendSrc.buffer(), 0, SENDS * SEND_SIZE));
    qp.postSend(new SendWorkRequest(1).wrId(12).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(msgs, 128, 16));
    take(cq, SENDS + 3);
    boolean verdict = msgs.buffer().getLong(64) == 1;
    System.out.println("client: server verdict " + (verdict ? "ok" : "BAD"));
    conn.disconnect().get(WAIT, TimeUnit.SECONDS);
    return readOk && verdict;
  }

  private static void take(CompletionQueue cq, int n) throws InterruptedException {
    WorkCompletion[] out = new WorkCompletion[16];
    for (int i = 0; i < out.length; i++) {
      out[i] = new WorkCompletion();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
    int got = 0;
    while (got < n) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException("only " + got + " of " + n + " completions");
      }
      int k = cq.await(out, Math.min(out.length, n - got), left, TimeUnit.NANOSECONDS);
      for (int i = 0; i < k; i++) {
        if (out[i].status() != WcStatus.SUCCESS) {
          throw new IllegalStateException("work request failed: " + out[i]);
        }
      }
      got += k;
    }
  }
}
