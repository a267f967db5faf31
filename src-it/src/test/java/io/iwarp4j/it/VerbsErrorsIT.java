package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RegionOptions;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Remote errors end to end: two {@link io.iwarp4j.verbs.RdmaDevice}s over real TCP on
 * 127.0.0.1, a client (MPA Initiator, the requester) and a server (the responder). Each case
 * makes the client send something the server must refuse, and proves, on both sides:
 * <ul>
 *   <li>the server sends the Terminate the RFCs prescribe (its ERROR event carries the decoded
 *       Layer/EType/Code, {@code receivedFromPeer=false}) and the client receives the same one
 *       (ERROR event, {@code receivedFromPeer=true}); DISCONNECTED follows on both;
 *   <li>the client's oldest send work request still in flight when the Terminate arrives
 *       completes with the status of the package Javadoc's Terminate table and {@code
 *       vendorError = layer << 16 | type << 8 | code}. A Write or Send completes once TCP took
 *       it, which races with the Terminate, so an RDMA Read is posted behind the faulty message
 *       (both posted on the event loop from the ESTABLISHED listener, so both are issued before
 *       the Terminate can be read; posted from the test thread, the Read may still be in the
 *       posting ring when the Terminate arrives, and then nothing is charged, all is flushed):
 *       either the faulty message completed SUCCESS and the Read carries the error, or the
 *       faulty message carries it and the Read is flushed; both orders are accepted, nothing
 *       else. A server receive the error is charged to (LOC_LEN_ERR, LOC_ACCESS_ERR) carries
 *       the same vendor error;
 *   <li>every other posted work request completes exactly once, SUCCESS or WR_FLUSH_ERR, as do
 *       work requests posted after the error; both queue pairs end in ERROR; nothing else is
 *       left in the completion queues; the devices close without a leak (PARANOID detector).
 * </ul>
 * The Terminate octets themselves are checked on the wire by {@link VerbsWireCheckIT}.
 *
 * <p>Terminates observed (the codes this test pins down):
 * <table>
 *   <caption>Case, Terminate, requester status, responder receive status</caption>
 *   <tr><th>case</th><th>Terminate</th><th>client WR</th><th>server receive</th></tr>
 *   <tr><td>Write, unknown STag</td><td>DDP 1/1/0x00</td><td>REM_ACCESS_ERR</td><td>-</td></tr>
 *   <tr><td>Write out of bounds</td><td>DDP 1/1/0x01</td><td>REM_ACCESS_ERR</td><td>-</td></tr>
 *   <tr><td>Write, no REMOTE_WRITE</td><td>DDP 1/1/0x00 ({@link #WRITE_NO_ACCESS})</td>
 *       <td>REM_ACCESS_ERR</td><td>-</td></tr>
 *   <tr><td>Write, STag of another PD</td><td>DDP 1/1/0x02</td><td>REM_ACCESS_ERR</td>
 *       <td>-</td></tr>
 *   <tr><td>Send, no receive posted</td><td>DDP 1/2/0x02</td><td>REM_INV_REQ_ERR</td>
 *       <td>-</td></tr>
 *   <tr><td>Send longer than the receive</td><td>DDP 1/2/0x05</td><td>REM_INV_REQ_ERR</td>
 *       <td>LOC_LEN_ERR</td></tr>
 *   <tr><td>Send with Invalidate, STag of another PD / not invalidatable</td>
 *       <td>RDMAP 0/1/0x09</td><td>REM_ACCESS_ERR</td><td>LOC_ACCESS_ERR</td></tr>
 *   <tr><td>Send with SE and Invalidate, unknown STag</td><td>RDMAP 0/2/0x09</td>
 *       <td>REM_ACCESS_ERR</td><td>LOC_ACCESS_ERR</td></tr>
 *   <tr><td>Read Requests beyond the responder's IRD</td><td>DDP 1/2/0x02</td>
 *       <td>REM_INV_REQ_ERR</td><td>-</td></tr>
 * </table>
 */
@Timeout(60)
class VerbsErrorsIT {
  /**
   * The Terminate for a Write into a region without REMOTE_WRITE: DDP Tagged Buffer Error,
   * Invalid STag (1/1/0x00). RFC 5041 has no access-rights code, so DDP reports the STag as
   * invalid for this access (as Linux siw does); RDMAP's 0/1/0x02 is not used for a Write.
   */
  static final int WRITE_NO_ACCESS = 0x01_01_00;

  private static final long T = ErrItPeer.TIMEOUT_SECONDS;
  private static final long CLIENT_RECV = 100;
  private static final long SERVER_RECV = 200;
  private static final long SERVER_RECV_2 = 201;
  private static final long LATER = 900;

  private ErrItPeer server;
  private ErrItPeer client;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();

  /** Server regions: Write target / Read source, and a receive buffer. */
  private MemoryRegion target;
  private MemoryRegion srvRecv;
  /** Client regions: message source and Read sink. */
  private MemoryRegion src;
  private MemoryRegion sink;

  @BeforeEach
  void setUp() throws Exception {
    server = new ErrItPeer();
    client = new ErrItPeer();
    listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    target = server.region(4096);
    srvRecv = server.region(4096);
    src = client.region(1 << 20);
    sink = client.region(4 << 20);
  }

  @AfterEach
  void tearDown() {
    client.close();
    server.close();
  }

  /** A connected pair. */
  private final class Conn {
    QueuePair cqp;
    QueuePair sqp;
    RdmaConnection clientConnection;
    CompletableFuture<RdmaConnection> serverConnection;
  }

  /**
   * Connects: the client posts receive {@link #CLIENT_RECV} first, {@code serverSetup} prepares
   * the server's queue pair (e.g. posts receives) before the accept.
   */
  private Conn connect(ConnectParams.Builder params, int serverIrd, int clientOrd,
      AcceptParams.Builder accept, Consumer<QueuePair> serverSetup,
      Consumer<QueuePair> clientFirst) throws Exception {
    Conn c = new Conn();
    c.cqp = client.newQp(-1, clientOrd);
    c.cqp.postRecv(new RecvWorkRequest(1).wrId(CLIENT_RECV).addSge(src, 0, 64));
    AtomicReference<RuntimeException> postFailure = new AtomicReference<>();
    CompletableFuture<RdmaConnection> cf = client.device.connect(c.cqp, listener.localAddress(),
        params.eventListener(e -> {
          if (e.type() == ConnectionEventType.ESTABLISHED && clientFirst != null) {
            // On the event loop: what is posted here is issued in one batch, before the loop
            // reads anything from the peer, so it is all in flight when a Terminate arrives.
            try {
              clientFirst.accept(e.queuePair());
            } catch (RuntimeException ex) {
              postFailure.set(ex);
            }
          }
          client.events.add(e);
        }).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    c.sqp = server.newQp(serverIrd, -1);
    serverSetup.accept(c.sqp);
    c.serverConnection = request.accept(c.sqp, accept.eventListener(server.events::add).build());
    c.clientConnection = cf.get(T, TimeUnit.SECONDS);
    if (postFailure.get() != null) {
      throw postFailure.get();
    }
    return c;
  }

  private Conn connect(Consumer<QueuePair> serverSetup, Consumer<QueuePair> clientFirst)
      throws Exception {
    return connect(ConnectParams.builder(), -1, -1, AcceptParams.builder(), serverSetup,
        clientFirst);
  }

  private static void postRecv(QueuePair qp, long wrId, MemoryRegion mr, int offset, int len) {
    qp.postRecv(new RecvWorkRequest(1).wrId(wrId).addSge(mr, offset, len));
  }

  private void postWrite(QueuePair qp, long wrId, int stag, long address, int length) {
    qp.postSend(new SendWorkRequest(1).wrId(wrId).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(stag, address).addSge(src, 0, length));
  }

  private void postRead(QueuePair qp, long wrId, MemoryRegion from, int length, int sinkOffset) {
    qp.postSend(new SendWorkRequest(1).wrId(wrId).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(from.stag(), from.address())
        .addSge(sink, sinkOffset, length));
  }

  private void postSend(QueuePair qp, long wrId, WorkRequestOpcode opcode, int length,
      int invalidate) {
    SendWorkRequest wr = new SendWorkRequest(1).wrId(wrId).opcode(opcode)
        .flags(SendFlags.SIGNALED).addSge(src, 0, length);
    if (invalidate != 0) {
      wr.invalidateStag(invalidate);
    }
    qp.postSend(wr);
  }

  /**
   * Collects {@code expected.size() + chain.length} completions of {@code peer}, each work
   * request exactly once, and checks the status of each one in {@code expected}; a status other
   * than SUCCESS and WR_FLUSH_ERR must carry {@code vendor}. {@code chain} lists send work
   * requests in posting order, one of which the Terminate is charged to: the oldest still in
   * flight when it arrived (a Write or Send completes once TCP took it, which may or may not
   * have been reported yet). So the chain must read SUCCESS*, {@code charged}, WR_FLUSH_ERR*.
   */
  private static Map<Long, WorkCompletion> expectCompletions(ErrItPeer peer, String who,
      Map<Long, WcStatus> expected, int vendor, WcStatus charged, long... chain)
      throws InterruptedException {
    Map<Long, WorkCompletion> got = new HashMap<>();
    for (WorkCompletion wc : peer.nextCompletions(expected.size() + chain.length)) {
      assertFalse(got.containsKey(wc.wrId()), who + ": completed twice: " + wc);
      got.put(wc.wrId(), wc);
    }
    for (Map.Entry<Long, WcStatus> e : expected.entrySet()) {
      WorkCompletion wc = got.get(e.getKey());
      assertNotNull(wc, who + ": no completion for wrId " + e.getKey() + " in " + got);
      assertEquals(e.getValue(), wc.status(), who + ": " + wc);
      if (e.getValue() != WcStatus.SUCCESS && e.getValue() != WcStatus.WR_FLUSH_ERR) {
        assertEquals(vendor, wc.vendorError(), who + ": vendorError of " + wc);
      }
    }
    int phase = 0; // 0: SUCCESS so far, 1: charged seen
    for (long id : chain) {
      WorkCompletion wc = got.get(id);
      assertNotNull(wc, who + ": no completion for wrId " + id + " in " + got);
      if (phase == 0 && wc.status() == WcStatus.SUCCESS) {
        continue;
      }
      if (phase == 0) {
        assertEquals(charged, wc.status(), who + ": the charged work request " + wc + " in " + got);
        assertEquals(vendor, wc.vendorError(), who + ": vendorError of " + wc);
        phase = 1;
      } else {
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), who + ": after the charged one " + wc);
      }
    }
    if (chain.length > 0) {
      assertEquals(1, phase, who + ": one work request of " + Arrays.toString(chain)
          + " carries the Terminate: " + got);
    }
    return got;
  }

  private static Map<Long, WorkCompletion> expectCompletions(ErrItPeer peer, String who,
      Map<Long, WcStatus> expected, int vendor) throws InterruptedException {
    return expectCompletions(peer, who, expected, vendor, WcStatus.SUCCESS);
  }

  /** The one ERROR event among {@code events}, with its Terminate. */
  private static TerminateInfo terminateOf(List<ConnectionEvent> events, String who) {
    TerminateInfo t = null;
    for (ConnectionEvent e : events) {
      if (e.type() == ConnectionEventType.ERROR) {
        assertEquals(null, t, who + ": one ERROR only: " + events);
        assertNotNull(e.terminate(), who + ": ERROR without Terminate: " + e);
        t = e.terminate();
      }
    }
    assertNotNull(t, who + ": no ERROR event in " + events);
    assertEquals(ConnectionEventType.DISCONNECTED, events.get(events.size() - 1).type(),
        who + ": DISCONNECTED is last");
    return t;
  }

  /**
   * The common end of every case: the Terminate on both sides, the completions, ERROR states,
   * flushes of later work requests, empty completion queues.
   */
  private void expectTerminate(Conn c, int vendor, WcStatus charged, long[] chain,
      Map<Long, WcStatus> clientWrs, Map<Long, WcStatus> serverWrs) throws Exception {
    expectCompletions(client, "client", clientWrs, vendor, charged, chain);
    expectCompletions(server, "server", serverWrs, vendor);

    List<ConnectionEvent> ce = client.eventsUntilDisconnected();
    assertEquals(ConnectionEventType.ESTABLISHED, ce.get(0).type(), ce.toString());
    TerminateInfo received = terminateOf(ce, "client");
    assertTrue(received.receivedFromPeer(), received.toString());
    assertEquals(vendor, received.vendorError(), "client received " + received);

    TerminateInfo sent = terminateOf(server.eventsUntilDisconnected(), "server");
    assertFalse(sent.receivedFromPeer(), sent.toString());
    assertEquals(vendor, sent.vendorError(), "server sent " + sent);
    assertEquals(received.layer(), sent.layer());
    assertEquals(received.errorType(), sent.errorType());
    assertEquals(received.errorCode(), sent.errorCode());

    assertEquals(QpState.ERROR, c.cqp.state());
    assertEquals(QpState.ERROR, c.sqp.state());
    c.clientConnection.closeFuture().get(T, TimeUnit.SECONDS);
    assertFalse(c.clientConnection.isOpen());

    // Work requests posted after the error are flushed on both sides.
    postSend(c.cqp, LATER, WorkRequestOpcode.SEND, 4, 0);
    postRecv(c.cqp, LATER + 1, src, 0, 8);
    postSend(c.sqp, LATER, WorkRequestOpcode.SEND, 0, 0);
    postRecv(c.sqp, LATER + 1, srvRecv, 0, 8);
    expectCompletions(client, "client, later",
        Map.of(LATER, WcStatus.WR_FLUSH_ERR, LATER + 1, WcStatus.WR_FLUSH_ERR), vendor);
    expectCompletions(server, "server, later",
        Map.of(LATER, WcStatus.WR_FLUSH_ERR, LATER + 1, WcStatus.WR_FLUSH_ERR), vendor);
    client.assertNoCompletion();
    server.assertNoCompletion();
    // A work request is retired just after its completion was queued: wait a bounded time.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
    while (c.cqp.outstandingSends() + c.cqp.outstandingReceives() + c.sqp.outstandingSends()
        + c.sqp.outstandingReceives() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(0, c.cqp.outstandingSends(), "client sends retired");
    assertEquals(0, c.cqp.outstandingReceives(), "client receives retired");
    assertEquals(0, c.sqp.outstandingSends(), "server sends retired");
    assertEquals(0, c.sqp.outstandingReceives(), "server receives retired");
  }

  private static Map<Long, WcStatus> wrs(Object... idStatus) {
    Map<Long, WcStatus> m = new TreeMap<>();
    for (int i = 0; i < idStatus.length; i += 2) {
      m.put(((Number) idStatus[i]).longValue(), (WcStatus) idStatus[i + 1]);
    }
    return m;
  }

  // ---- RDMA Write ----

  /**
   * A faulty Write (wrId 1) and behind it a valid Read (wrId 2), which the Terminate is charged
   * to; the server has one receive posted, which is flushed.
   */
  private void faultyWrite(int stag, long address, int length, int vendor) throws Exception {
    Conn c = connect(sqp -> postRecv(sqp, SERVER_RECV, srvRecv, 0, 64), cqp -> {
      postWrite(cqp, 1, stag, address, length);
      postRead(cqp, 2, target, 64, 0);
    });
    expectTerminate(c, vendor,
        WcStatus.REM_ACCESS_ERR, new long[] {1, 2},
        wrs(CLIENT_RECV, WcStatus.WR_FLUSH_ERR),
        wrs(SERVER_RECV, WcStatus.WR_FLUSH_ERR));
    for (int i = 0; i < target.length(); i++) {
      assertEquals(0, target.buffer().getByte(i), "nothing placed at " + i);
    }
  }

  @Test
  void writeToAnInvalidStag() throws Exception {
    // An STag no region of the server has: the target's index with another key.
    int unknown = target.stag() ^ 0x0000_00FF;
    faultyWrite(unknown, target.address(), 16, 0x01_01_00);
  }

  @Test
  void writeOutOfBounds() throws Exception {
    faultyWrite(target.stag(), target.address() + target.length() - 8, 16, 0x01_01_01);
  }

  @Test
  void writeToARegionWithoutRemoteWrite() throws Exception {
    MemoryRegion readOnly = server.pd.allocate(256,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
    faultyWrite(readOnly.stag(), readOnly.address(), 16, WRITE_NO_ACCESS);
  }

  @Test
  void writeToAnStagOfAnotherProtectionDomain() throws Exception {
    ProtectionDomain other = server.device.allocateProtectionDomain();
    MemoryRegion foreign = other.allocate(256,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
    faultyWrite(foreign.stag(), foreign.address(), 16, 0x01_01_02);
  }

  // ---- Send ----

  @Test
  void sendWithNoReceivePosted() throws Exception {
    Conn c = connect(sqp -> { }, cqp -> {
      postSend(cqp, 1, WorkRequestOpcode.SEND, 16, 0);
      postRead(cqp, 2, target, 64, 0);
    });
    expectTerminate(c, 0x01_02_02,
        WcStatus.REM_INV_REQ_ERR, new long[] {1, 2},
        wrs(CLIENT_RECV, WcStatus.WR_FLUSH_ERR),
        wrs());
  }

  @Test
  void sendLongerThanThePostedReceive() throws Exception {
    Conn c = connect(sqp -> {
      postRecv(sqp, SERVER_RECV, srvRecv, 0, 16);
      postRecv(sqp, SERVER_RECV_2, srvRecv, 64, 64);
    }, cqp -> {
      postSend(cqp, 1, WorkRequestOpcode.SEND, 17, 0);
      postRead(cqp, 2, target, 64, 0);
    });
    expectTerminate(c, 0x01_02_05,
        WcStatus.REM_INV_REQ_ERR, new long[] {1, 2},
        wrs(CLIENT_RECV, WcStatus.WR_FLUSH_ERR),
        wrs(SERVER_RECV, WcStatus.LOC_LEN_ERR, SERVER_RECV_2, WcStatus.WR_FLUSH_ERR));
  }

  // ---- Send with Invalidate ----

  private void faultyInvalidate(WorkRequestOpcode opcode, MemoryRegion victim, int stag,
      int vendor) throws Exception {
    Conn c = connect(sqp -> {
      postRecv(sqp, SERVER_RECV, srvRecv, 0, 64);
      postRecv(sqp, SERVER_RECV_2, srvRecv, 64, 64);
    }, cqp -> {
      postSend(cqp, 1, opcode, 8, stag);
      postRead(cqp, 2, target, 64, 0);
    });
    expectTerminate(c, vendor,
        WcStatus.REM_ACCESS_ERR, new long[] {1, 2},
        wrs(CLIENT_RECV, WcStatus.WR_FLUSH_ERR),
        wrs(SERVER_RECV, WcStatus.LOC_ACCESS_ERR, SERVER_RECV_2, WcStatus.WR_FLUSH_ERR));
    if (victim != null) {
      assertTrue(victim.isValid(), "the STag was not invalidated");
    }
  }

  @Test
  void sendWithInvalidateOfAnStagOfAnotherProtectionDomain() throws Exception {
    ProtectionDomain other = server.device.allocateProtectionDomain();
    MemoryRegion foreign = other.allocate(256, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE,
        RegionOptions.defaults().allowRemoteInvalidation(true));
    faultyInvalidate(WorkRequestOpcode.SEND_WITH_INVALIDATE, foreign, foreign.stag(),
        0x00_01_09);
  }

  @Test
  void sendWithInvalidateOfAnStagThatMayNotBeInvalidated() throws Exception {
    MemoryRegion protectedRegion = server.pd.allocate(256,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
    faultyInvalidate(WorkRequestOpcode.SEND_WITH_INVALIDATE, protectedRegion,
        protectedRegion.stag(), 0x00_01_09);
  }

  @Test
  void sendWithSolicitedEventAndInvalidateOfAnUnknownStag() throws Exception {
    faultyInvalidate(WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE, null,
        target.stag() ^ 0x0000_00FF, 0x00_02_09);
  }

  // ---- IRD ----

  /**
   * More Read Requests than the responder's IRD. With RFC 6581 negotiation the Initiator's ORD
   * is cut to the Responder's IRD ({@code min(ord, reply IRD)}), so the requester cannot exceed
   * it through the API. An unenhanced connection (MPA revision 1, no IRD/ORD exchanged) leaves
   * each side with its own queue pair's depth: the client's ORD 4 against the server's IRD 1.
   * Three 1 MiB Reads in one batch: the first response is still in the transport when the
   * second request arrives.
   */
  @Test
  void readRequestsBeyondTheRespondersIrd() throws Exception {
    MemoryRegion big = server.region(1 << 20);
    Conn c = connect(ConnectParams.builder().revision(1), 1, 4, AcceptParams.builder(),
        sqp -> postRecv(sqp, SERVER_RECV, srvRecv, 0, 64), cqp -> {
          postRead(cqp, 1, big, 1 << 20, 0);
          postRead(cqp, 2, big, 1 << 20, 1 << 20);
          postRead(cqp, 3, big, 1 << 20, 2 << 20);
        });
    assertEquals(4, c.clientConnection.ord(), "the client's ORD is its own");
    Map<Long, WorkCompletion> got = new HashMap<>();
    for (WorkCompletion wc : client.nextCompletions(4)) {
      got.put(wc.wrId(), wc);
    }
    int charged = 0;
    for (long id = 1; id <= 3; id++) {
      WorkCompletion wc = got.get(id);
      assertNotNull(wc, "read " + id + " completed: " + got);
      if (wc.status() == WcStatus.REM_INV_REQ_ERR) {
        charged++;
        assertEquals(0x01_02_02, wc.vendorError(), wc.toString());
      } else {
        assertTrue(wc.status() == WcStatus.SUCCESS || wc.status() == WcStatus.WR_FLUSH_ERR,
            wc.toString());
      }
    }
    assertEquals(1, charged, "one Read carries the Terminate: " + got);
    assertEquals(WcStatus.WR_FLUSH_ERR, got.get(CLIENT_RECV).status());
    assertEquals(1, c.serverConnection.get(T, TimeUnit.SECONDS).ird(), "server IRD");
    expectTerminate(c, 0x01_02_02, WcStatus.REM_INV_REQ_ERR, new long[0], wrs(),
        wrs(SERVER_RECV, WcStatus.WR_FLUSH_ERR));
  }
}
