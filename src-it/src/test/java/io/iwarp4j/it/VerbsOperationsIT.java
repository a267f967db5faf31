package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.iwarp4j.verbs.AcceptParams;
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
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every RDMAP operation of the verbs API, in both directions, between two devices connected
 * over real TCP on 127.0.0.1: RDMA Write, RDMA Read, Send, Send with Solicited Event, Send with
 * Invalidate and Send with SE and Invalidate, each at 0, 1, 4095, 4096, 65535, 65536 octets and
 * 1 MiB (Write and Read also at 16 MiB). Data is seeded random, gathered from 1–4 SGEs (Read: one
 * SGE; Sends are also scattered over 1–4 receive SGEs) and compared octet for octet on the other
 * side. Proves: every posted work request completes exactly once with SUCCESS and the right
 * opcode and length, receive completions report the solicited flag and the invalidated STag,
 * and an invalidated region is no longer valid.
 */
@Timeout(180)
class VerbsOperationsIT {
  private static final long SEED = Long.getLong("it.seed", 0x0_5EED_0B5L);
  private static final int MIB = 1 << 20;
  private static final int[] SIZES = {0, 1, 4095, 4096, 65535, 65536, MIB};
  private static final int[] BIG_SIZES = {0, 1, 4095, 4096, 65535, 65536, MIB, 16 * MIB};
  private static final int GAP = 7;
  private static final int SLACK = 64;
  private static final long WAIT = 30;

  /** One end: its peer (device), the connected QP and its buffers. */
  private static final class Side {
    final String name;
    final OpsItPeer peer;
    QueuePair qp;
    RdmaConnection conn;
    MemoryRegion src;
    MemoryRegion dst;
    MemoryRegion recv;
    final Map<Long, Integer> completed = new HashMap<>();
    int posted;

    Side(String name) {
      this.name = name;
      peer = new OpsItPeer(1, 1024);
    }

    List<WorkCompletion> take(int n) throws InterruptedException {
      List<WorkCompletion> wcs = peer.take(n, WAIT);
      for (WorkCompletion wc : wcs) {
        assertEquals(WcStatus.SUCCESS, wc.status(), name + ": " + wc);
        completed.merge(wc.wrId(), 1, Integer::sum);
      }
      return wcs;
    }
  }

  private Side a;
  private Side b;
  private Random rnd;
  private long nextId = 1;

  @BeforeEach
  void connect() throws Exception {
    System.out.println("VerbsOperationsIT seed=0x" + Long.toHexString(SEED)
        + " (-Dit.seed to repeat)");
    rnd = new Random(SEED);
    a = new Side("A");
    b = new Side("B");
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    RdmaListener listener = b.peer.device.listen(new InetSocketAddress("127.0.0.1", 0),
        requests::add);
    a.qp = a.peer.newQp(16, 16, 4);
    b.qp = b.peer.newQp(16, 16, 4);
    // Peer-to-peer mode: either side may send first.
    CompletableFuture<RdmaConnection> cf = a.peer.device.connect(a.qp, listener.localAddress(),
        ConnectParams.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO)
            .eventListener(e -> System.out.println("A event: " + e)).build());
    ConnectRequest request = requests.poll(WAIT, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    b.conn = request.accept(b.qp, AcceptParams.builder()
        .eventListener(e -> System.out.println("B event: " + e)).build())
        .get(WAIT, TimeUnit.SECONDS);
    a.conn = cf.get(WAIT, TimeUnit.SECONDS);
    listener.close();
    for (Side s : List.of(a, b)) {
      s.src = s.peer.region(16 * MIB + SLACK);
      s.dst = s.peer.region(16 * MIB + SLACK);
      s.recv = s.peer.region(MIB + SLACK);
    }
  }

  @AfterEach
  void close() throws Exception {
    try {
      for (Side s : List.of(a, b)) {
        if (s != null) {
          s.peer.assertQuiet(100);
          assertEquals(s.posted, s.completed.size(), s.name + " completions: " + s.completed);
          s.completed.forEach((id, n) -> assertEquals(1, n, "wrId " + id + " completed " + n
              + " times on " + s.name));
        }
      }
    } finally {
      if (a != null) {
        a.peer.close();
      }
      if (b != null) {
        b.peer.close();
      }
    }
  }

  @Test
  void rdmaWrite() throws Exception {
    for (int size : BIG_SIZES) {
      write(a, b, size);
      write(b, a, size);
    }
  }

  @Test
  void rdmaRead() throws Exception {
    for (int size : BIG_SIZES) {
      read(a, b, size);
      read(b, a, size);
    }
  }

  @Test
  void send() throws Exception {
    sendAll(WorkRequestOpcode.SEND);
  }

  @Test
  void sendWithSolicitedEvent() throws Exception {
    sendAll(WorkRequestOpcode.SEND_WITH_SOLICITED);
  }

  @Test
  void sendWithInvalidate() throws Exception {
    sendAll(WorkRequestOpcode.SEND_WITH_INVALIDATE);
  }

  @Test
  void sendWithSolicitedEventAndInvalidate() throws Exception {
    sendAll(WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE);
  }

  @Test
  void sendFlagSolicitedOnAPlainSendIsReported() throws Exception {
    for (int size : new int[] {0, 4096}) {
      sendOne(a, b, WorkRequestOpcode.SEND, SendFlags.SOLICITED, size);
      sendOne(b, a, WorkRequestOpcode.SEND, SendFlags.SOLICITED, size);
    }
  }

  private void sendAll(WorkRequestOpcode op) throws Exception {
    for (int size : SIZES) {
      sendOne(a, b, op, 0, size);
      sendOne(b, a, op, 0, size);
    }
  }

  // ---- operations ----

  private void write(Side from, Side to, int size) throws Exception {
    fillRandom(from.src, size + 3 * GAP);
    to.dst.buffer().setZero(0, size + SLACK);
    long id = nextId++;
    SendWorkRequest wr = new SendWorkRequest(4).wrId(id).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(to.dst.stag(), to.dst.address());
    byte[] expected = gather(wr, from.src, size, from == a);
    // A zero-length Send behind the Write: its arrival means the Write was placed (RFC 5040
    // §5.5 ordering).
    long recvId = nextId++;
    to.qp.postRecv(new RecvWorkRequest(1).wrId(recvId).addSge(to.recv, 0, 16));
    to.posted++;
    ready(from, to);
    long markId = nextId++;
    from.qp.postSend(wr);
    from.qp.postSend(new SendWorkRequest(1).wrId(markId).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED));
    from.posted += 2;
    List<WorkCompletion> sent = from.take(2);
    assertEquals(id, sent.get(0).wrId());
    assertEquals(WcOpcode.RDMA_WRITE, sent.get(0).opcode());
    assertEquals(markId, sent.get(1).wrId());
    WorkCompletion mark = to.take(1).get(0);
    assertEquals(recvId, mark.wrId());
    assertEquals(0, mark.byteLen());
    assertArrayEquals(expected, OpsItPeer.bytes(to.dst.buffer(), 0, size),
        "Write " + from.name + "->" + to.name + " of " + size);
    assertEquals(0, to.dst.buffer().getByte(size), "nothing written past the end");
  }

  private void read(Side reader, Side source, int size) throws Exception {
    fillRandom(source.src, size);
    int at = size == 0 ? 0 : rnd.nextInt(SLACK);
    reader.dst.buffer().setZero(0, size + SLACK);
    long id = nextId++;
    reader.qp.postSend(new SendWorkRequest(1).wrId(id).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(source.src.stag(), source.src.address())
        .addSge(reader.dst, at, size));
    reader.posted++;
    WorkCompletion wc = reader.take(1).get(0);
    assertEquals(id, wc.wrId());
    assertEquals(WcOpcode.RDMA_READ, wc.opcode());
    assertEquals(size, wc.byteLen());
    assertEquals(OpsItPeer.crc(source.src.buffer(), 0, size),
        OpsItPeer.crc(reader.dst.buffer(), at, size),
        "Read " + reader.name + "<-" + source.name + " of " + size);
    assertArrayEquals(OpsItPeer.bytes(source.src.buffer(), 0, size),
        OpsItPeer.bytes(reader.dst.buffer(), at, size));
  }

  private void sendOne(Side from, Side to, WorkRequestOpcode op, int flags, int size)
      throws Exception {
    fillRandom(from.src, size + 3 * GAP);
    to.recv.buffer().setZero(0, size + SLACK);
    boolean invalidate = op.carriesInvalidateStag();
    MemoryRegion victim = invalidate ? to.peer.invalidatableRegion(4096) : null;
    // The receive scatters over 1-4 SGEs separated by gaps.
    int rk = size == 0 ? rnd.nextInt(2) : 1 + rnd.nextInt(Math.min(4, size));
    int[] rlen = split(size, rk);
    RecvWorkRequest rwr = new RecvWorkRequest(4).wrId(nextId++);
    int[] roff = new int[rk];
    int off = 0;
    for (int i = 0; i < rk; i++) {
      roff[i] = off;
      rwr.addSge(to.recv, off, rlen[i]);
      off += rlen[i] + GAP;
    }
    to.qp.postRecv(rwr);
    to.posted++;
    ready(from, to);
    long id = nextId++;
    SendWorkRequest wr = new SendWorkRequest(4).wrId(id).opcode(op)
        .flags(SendFlags.SIGNALED | flags);
    if (invalidate) {
      wr.invalidateStag(victim.stag());
    }
    byte[] expected = gather(wr, from.src, size, size == 0 && rk == 0);
    from.qp.postSend(wr);
    from.posted++;
    WorkCompletion s = from.take(1).get(0);
    assertEquals(id, s.wrId());
    assertEquals(WcOpcode.SEND, s.opcode());
    WorkCompletion r = to.take(1).get(0);
    String what = op + " " + from.name + "->" + to.name + " of " + size;
    assertEquals(rwr.wrId(), r.wrId(), what);
    assertEquals(WcOpcode.RECV, r.opcode(), what);
    assertEquals(size, r.byteLen(), what);
    boolean solicited = op.isSolicited() || (flags & SendFlags.SOLICITED) != 0;
    assertEquals(solicited, r.solicited(), what + ": solicited");
    assertEquals(invalidate, r.hasInvalidatedStag(), what + ": " + r);
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    for (int i = 0; i < rk; i++) {
      got.writeBytes(OpsItPeer.bytes(to.recv.buffer(), roff[i], rlen[i]));
    }
    assertArrayEquals(expected, got.toByteArray(), what);
    if (invalidate) {
      assertEquals(victim.stag(), r.invalidatedStag(), what);
      assertFalse(victim.isValid(), what + ": the region is invalidated");
      victim.close();
    } else {
      assertNull(victim);
    }
  }

  // ---- helpers ----

  /**
   * Makes sure the receives {@code to} posted were handed to its endpoint before the peer
   * sends: postRecv only queues a receive for the connection's event loop, and a Send that the
   * loop reads before draining that queue finds no buffer (see {@code VerbsReceiveRaceIT}). A
   * signaled zero-length RDMA Write from {@code to} completes only after the loop drained the
   * receive queue (it drains receives before it transmits), and consumes no peer receive.
   */
  private void ready(Side from, Side to) throws Exception {
    long t = nextId++;
    to.qp.postSend(new SendWorkRequest(1).wrId(t).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(from.dst.stag(), from.dst.address()));
    to.posted++;
    WorkCompletion wc = to.take(1).get(0);
    assertEquals(t, wc.wrId());
    assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
  }

  /** Adds 1-4 SGEs (none for a zero-length message when {@code noSge}) and returns the data. */
  private byte[] gather(SendWorkRequest wr, MemoryRegion src, int size, boolean noSge) {
    int k = size == 0 ? (noSge ? 0 : 1) : 1 + rnd.nextInt(Math.min(4, size));
    int[] len = split(size, k);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    int off = 0;
    for (int i = 0; i < k; i++) {
      wr.addSge(src, off, len[i]);
      expected.writeBytes(OpsItPeer.bytes(src.buffer(), off, len[i]));
      off += len[i] + GAP;
    }
    return expected.toByteArray();
  }

  /** Splits {@code size} into {@code k} lengths, each positive when size allows. */
  private int[] split(int size, int k) {
    int[] len = new int[k];
    int left = size;
    for (int i = 0; i < k; i++) {
      int remainingPieces = k - i - 1;
      if (remainingPieces == 0) {
        len[i] = left;
      } else {
        int max = left - remainingPieces;
        len[i] = max <= 1 ? Math.max(0, max) : 1 + rnd.nextInt(max);
      }
      left -= len[i];
    }
    return len;
  }

  private final byte[] scratch = new byte[16 * MIB + SLACK];

  private void fillRandom(MemoryRegion r, int length) {
    rnd.nextBytes(scratch);
    r.buffer().setBytes(0, scratch, 0, length);
  }
}
