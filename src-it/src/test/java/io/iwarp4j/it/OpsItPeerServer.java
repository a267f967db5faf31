package io.iwarp4j.it;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RemoteBuffer;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The server half of {@link SeparateProcessPeerIT}, run in its own JVM: an rping-like peer.
 * It listens on 127.0.0.1 (an ephemeral port, printed as {@code PORT n}), accepts one
 * connection, receives the client's 16-octet {@code {stag, addr, len}} advertisement, answers
 * with its own region's, waits for the client's "done" Send, checks that the client's RDMA
 * Write left exactly the expected octets in its region, RDMA-Writes a pattern into the
 * client's advertised buffer and answers with a Send carrying the verdict (1 = good). Prints
 * {@code DONE ok} or {@code DONE bad: why} and exits 0 or 1. Every wait is bounded.
 *
 * <p>Arguments: seed, size of the server's region, size of the client's buffer.
 */
public final class OpsItPeerServer {
  static final long WAIT_SECONDS = 30;

  private OpsItPeerServer() {
  }

  /** The seeded octets both processes agree on. */
  static byte[] pattern(long seed, int size) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  public static void main(String[] args) throws Exception {
    long seed = Long.parseLong(args[0]);
    int size = Integer.parseInt(args[1]);
    int clientSize = Integer.parseInt(args[2]);
    String verdict;
    try (OpsItPeer peer = new OpsItPeer(1, 64)) {
      verdict = serve(peer, seed, size, clientSize);
    } catch (Throwable t) {
      t.printStackTrace();
      verdict = "bad: " + t;
    }
    System.out.println("DONE " + verdict);
    System.out.flush();
    System.exit(verdict.equals("ok") ? 0 : 1);
  }

  private static String serve(OpsItPeer peer, long seed, int size, int clientSize)
      throws Exception {
    MemoryRegion region = peer.region(size);
    region.buffer().setBytes(0, pattern(seed, size));
    MemoryRegion msgs = peer.region(256);
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = peer.device.listen(new InetSocketAddress("127.0.0.1", 0),
        requests::add);
    System.out.println("PORT " + listener.localAddress().getPort());
    System.out.flush();
    ConnectRequest request = requests.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    if (request == null) {
      return "bad: no connect request";
    }
    QueuePair qp = peer.newQp(8, 8, 1);
    // Both receives are posted in INIT: they are in place when the connection is.
    qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(msgs, 0, 16));
    qp.postRecv(new RecvWorkRequest(1).wrId(2).addSge(msgs, 64, 16));
    CountDownLatch disconnected = new CountDownLatch(1);
    request.accept(qp, AcceptParams.builder().eventListener(e -> {
      if (e.type() == ConnectionEventType.DISCONNECTED) {
        disconnected.countDown();
      }
    }).build());
    WorkCompletion wc = peer.take(1, WAIT_SECONDS).get(0);
    if (wc.wrId() != 1 || wc.status() != WcStatus.SUCCESS || wc.byteLen() != 16) {
      return "bad: client advertisement " + wc;
    }
    RemoteBuffer client = RemoteBuffer.fromBytes(OpsItPeer.bytes(msgs.buffer(), 0, 16), 0);
    if (client.length() != clientSize) {
      return "bad: client advertised " + client;
    }
    msgs.buffer().setBytes(128, region.remote().toBytes());
    qp.postSend(new SendWorkRequest(1).wrId(10).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(msgs, 128, 16));
    wc = peer.take(2, WAIT_SECONDS).stream().filter(w -> w.wrId() == 2).findFirst()
        .orElseThrow();
    if (wc.status() != WcStatus.SUCCESS || wc.byteLen() != 12) {
      return "bad: done message " + wc;
    }
    long claimed = msgs.buffer().getLong(64);
    int written = msgs.buffer().getInt(72);
    byte[] got = OpsItPeer.bytes(region.buffer(), 0, size);
    boolean good = written == size && Arrays.equals(pattern(seed + 1, size), got)
        && claimed == OpsItPeer.crc(region.buffer(), 0, size);
    // Write into the client's buffer, then answer; the Send follows the Write in order.
    MemoryRegion reply = peer.region(clientSize);
    reply.buffer().setBytes(0, pattern(seed + 2, clientSize));
    msgs.buffer().setLong(192, good ? 1 : 0);
    qp.postSend(new SendWorkRequest(1).wrId(11).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(client.stag(), client.address())
        .addSge(reply, 0, clientSize));
    qp.postSend(new SendWorkRequest(1).wrId(12).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(msgs, 192, 8));
    for (WorkCompletion w : peer.take(2, WAIT_SECONDS)) {
      if (w.status() != WcStatus.SUCCESS) {
        return "bad: " + w;
      }
    }
    if (!disconnected.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
      return "bad: the client did not disconnect";
    }
    return good ? "ok" : "bad: the client's Write left the wrong octets (length " + written
        + ")";
  }
}
