package io.iwarp4j.it.hostile;

import static io.iwarp4j.it.hostile.HostilePeer.TAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.UNTAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.rdmap;
import static io.iwarp4j.it.hostile.HostilePeer.readRequest;
import static io.iwarp4j.it.hostile.HostilePeer.tagged;
import static io.iwarp4j.it.hostile.HostilePeer.untagged;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.FastRegisterRegion;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.MemoryWindow;
import io.iwarp4j.verbs.MemoryWindowType;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.TerminateMessage;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One case per row of the RFC 5040 / 5041 / 5044 error tables a remote peer can trigger, end to
 * end: a real {@link RdmaDevice} accepts a {@link HostilePeer} over 127.0.0.1, posts two
 * receives, and the peer sends one crafted ULPDU. Each case asserts
 * <ul>
 *   <li>the exact Terminate the device sends back: QN 2, Layer / EType / Error Code, the M, D
 *       and R bits, the DDP Segment Length, the echoed DDP header (and the echoed Read Request
 *       header for a Read Request), and that the device then closes the connection;
 *   <li>the device's ERROR event carries the same Layer / EType / Code with {@code
 *       receivedFromPeer=false}, and DISCONNECTED follows;
 *   <li>both posted receives complete exactly once: WR_FLUSH_ERR, or (for a Send too long for
 *       its buffer) LOC_LEN_ERR with {@code vendorError} naming the Terminate;
 *   <li>no octet of the target region or of the receive buffers changed (guard pattern);
 *   <li>no buffer leaked (Netty's PARANOID leak detector fails the build on any leak).
 * </ul>
 */
@Timeout(60)
class HostileTerminateIT {
  private static final long T = 10;
  private static final byte GUARD = (byte) 0xA5;
  private static final int REGION = 4096;
  private static final int RECV_LEN = 64;
  private static final byte[] PAYLOAD_16 = filled(16, (byte) 0x3C);

  private RdmaDevice device;
  private ProtectionDomain pd;
  private CompletionQueue cq;
  private RdmaListener listener;
  private MemoryRegion target;
  private MemoryRegion recv;
  private MemoryRegion otherPdRegion;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
  private final BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();

  /** What a row sends, given the device's regions. */
  interface Attack {
    byte[] ulpdu(HostileTerminateIT it);
  }

  /** One row of the error tables. */
  record Row(String name, int layer, int type, int code, boolean m, boolean d, boolean r,
      Attack attack, boolean badCrc, WcStatus chargedRecv) {
    @Override
    public String toString() {
      return String.format("%d/%d/0x%02X %s", layer, type, code, name);
    }
  }

  static Stream<Arguments> rows() {
    List<Row> rows = List.of(
        // RDMAP layer 0, EType 1: Remote Protection Error (RFC 5040 §7.2, Read Request source)
        new Row("Read Request, invalid source STag", 0, 1, 0x00, true, true, true,
            it -> untagged(UNTAGGED_LAST, rdmap(1), 0, 1, 1, 0,
                readRequest(0x1234, 0, 16, 0x7777_7700, 0)), false, null),
        new Row("Read Request, source out of bounds", 0, 1, 0x01, true, true, true,
            it -> untagged(UNTAGGED_LAST, rdmap(1), 0, 1, 1, 0, readRequest(0x1234, 0, 200,
                it.target.stag(), it.target.address() + REGION - 100)), false, null),
        new Row("Read Request, source STag of another PD", 0, 1, 0x03, true, true, true,
            it -> untagged(UNTAGGED_LAST, rdmap(1), 0, 1, 1, 0, readRequest(0x1234, 0, 16,
                it.otherPdRegion.stag(), it.otherPdRegion.address())), false, null),
        new Row("Send with Invalidate, STag of another PD", 0, 1, 0x09, true, true, false,
            it -> untagged(UNTAGGED_LAST, rdmap(4), it.otherPdRegion.stag(), 0, 1, 0,
                PAYLOAD_16), false, WcStatus.LOC_ACCESS_ERR),
        // RDMAP layer 0, EType 2: Remote Operation Error
        new Row("Send, RDMAP version 2", 0, 2, 0x05, true, true, false,
            it -> untagged(UNTAGGED_LAST, 0x80 | 3, 0, 0, 1, 0, PAYLOAD_16), false, null),
        new Row("reserved opcode 0xD on QN 0", 0, 2, 0x06, true, true, false,
            it -> untagged(UNTAGGED_LAST, rdmap(0xD), 0, 0, 1, 0, PAYLOAD_16), false, null),
        new Row("Send with SE and Invalidate, unknown STag", 0, 2, 0x09, true, true, false,
            it -> untagged(UNTAGGED_LAST, rdmap(6), 0x5555_5500, 0, 1, 0, PAYLOAD_16), false,
            WcStatus.LOC_ACCESS_ERR),
        // DDP layer 1, EType 1: Tagged Buffer Error (RFC 5041 §7.2)
        new Row("Write, invalid STag", 1, 1, 0x00, true, true, false,
            it -> tagged(TAGGED_LAST, rdmap(0), 0x6666_6600, 0, PAYLOAD_16), false, null),
        new Row("Write, base or bounds", 1, 1, 0x01, true, true, false,
            it -> tagged(TAGGED_LAST, rdmap(0), it.target.stag(),
                it.target.address() + REGION - 8, PAYLOAD_16), false, null),
        new Row("Write, STag of another PD", 1, 1, 0x02, true, true, false,
            it -> tagged(TAGGED_LAST, rdmap(0), it.otherPdRegion.stag(),
                it.otherPdRegion.address(), PAYLOAD_16), false, null),
        new Row("Write, TO wrap", 1, 1, 0x03, true, true, false,
            it -> tagged(TAGGED_LAST, rdmap(0), it.target.stag(), -8L, PAYLOAD_16), false,
            null),
        new Row("Write, DDP version 2", 1, 1, 0x04, true, true, false,
            it -> tagged(0xC2, rdmap(0), it.target.stag(), it.target.address(), PAYLOAD_16),
            false, null),
        // DDP layer 1, EType 2: Untagged Buffer Error
        new Row("Send on QN 5", 1, 2, 0x01, true, true, false,
            it -> untagged(UNTAGGED_LAST, rdmap(3), 0, 5, 1, 0, PAYLOAD_16), false, null),
        new Row("Send with MSN 7 (1 expected)", 1, 2, 0x03, true, true, false,
            it -> untagged(UNTAGGED_LAST, rdmap(3), 0, 0, 7, 0, PAYLOAD_16), false, null),
        new Row("Send with MO 8 on a new message", 1, 2, 0x04, true, true, false,
            it -> untagged(UNTAGGED_LAST, rdmap(3), 0, 0, 1, 8, PAYLOAD_16), false, null),
        new Row("Send longer than the receive", 1, 2, 0x05, true, true, false,
            it -> untagged(UNTAGGED_LAST, rdmap(3), 0, 0, 1, 0, filled(RECV_LEN + 1, (byte) 1)),
            false, WcStatus.LOC_LEN_ERR),
        new Row("Send, DDP version 2", 1, 2, 0x06, true, true, false,
            it -> untagged(0x42, rdmap(3), 0, 0, 1, 0, PAYLOAD_16), false, null),
        // MPA layer 2, EType 0 (RFC 5044 §8): a CRC error; the header is not trusted
        new Row("FPDU with a bad CRC after a valid one", 2, 0, 0x02, false, false, false,
            it -> tagged(TAGGED_LAST, rdmap(0), it.target.stag(), it.target.address(),
                PAYLOAD_16), true, null),
        // RFC 5044 §7.1.2 rule 4: a Responder sends no FPDU (so no Terminate either) before it
        // has received and validated one from the Initiator; it reports 0x02 locally and closes.
        new Row("FPDU with a bad CRC as the first FPDU: no Terminate", 2, 0, 0x02, false, false,
            false, it -> tagged(TAGGED_LAST, rdmap(0), it.target.stag(), it.target.address(),
                PAYLOAD_16), true, null));
    return rows.stream().map(Arguments::of);
  }

  @BeforeEach
  void setUp() throws Exception {
    device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
    pd = device.allocateProtectionDomain();
    cq = device.createCompletionQueue(64);
    int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    target = pd.allocate(REGION, all);
    recv = pd.allocate(REGION, AccessFlags.LOCAL_WRITE);
    otherPdRegion = device.allocateProtectionDomain().allocate(REGION, all);
    for (MemoryRegion mr : List.of(target, recv, otherPdRegion)) {
      mr.buffer().setBytes(0, filled(REGION, GUARD));
    }
    listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    device.close();
  }

  /** Row "2 receive buffers posted", the peer attacks, the device terminates. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void terminateForEachErrorRow(Row row) throws Exception {
    java.util.concurrent.CompletableFuture<?> accepted;
    boolean firstFpdu = row.name().endsWith("no Terminate");
    try (HostilePeer peer = new HostilePeer((InetSocketAddress) listener.localAddress())) {
      peer.sendRequest();
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      QueuePair qp = device.createQueuePair(pd,
          QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4).build());
      qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(recv, 0, RECV_LEN));
      qp.postRecv(new RecvWorkRequest(1).wrId(2).addSge(recv, RECV_LEN, RECV_LEN));
      accepted = request.accept(qp, io.iwarp4j.verbs.AcceptParams.builder()
          .eventListener(events::add).build());
      peer.readReply();

      byte[] ulpdu = row.attack().ulpdu(this);
      if (row.badCrc() && !firstFpdu) {
        // A valid zero-length Write first, so the device may send FPDUs (RFC 5044 §7.1.2).
        peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), target.stag(), target.address(),
            new byte[0]));
      }
      if (row.badCrc()) {
        peer.sendFpduWithBadCrc(ulpdu);
      } else {
        peer.sendFpdu(ulpdu);
      }

      byte[] term = peer.readFpdu();
      if (firstFpdu) {
        assertEquals(null, term, "a Responder sent an FPDU before it validated one");
      } else {
        assertNotNull(term, "the device closed without a Terminate");
        assertTerminate(row, ulpdu, term);
        assertTrue(peer.closedByDevice(), "the device sent more after its Terminate");
      }
    }

    if (firstFpdu) {
      // The connection never reached RTS: the accept fails, and no ERROR event is raised.
      java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions
          .assertThrows(java.util.concurrent.ExecutionException.class,
              () -> accepted.get(T, TimeUnit.SECONDS));
      assertTrue(String.valueOf(failed.getCause()).contains("0x02")
          || String.valueOf(failed.getCause()).toLowerCase().contains("crc"),
          "accept failure names the CRC error: " + failed.getCause());
      assertTrue(String.valueOf(failed.getCause()).contains("closed without a Terminate")
          && !String.valueOf(failed.getCause()).contains("Terminate sent"),
          "nothing was sent, and the failure says so: " + failed.getCause());
      assertRecvsCompleted(row);
      assertUnchanged(target, "target region");
      assertUnchanged(recv, "receive buffers");
      return;
    }
    ConnectionEvent error = nextEvent();
    List<ConnectionEvent> seen = new ArrayList<>(List.of(error));
    while (error.type() != ConnectionEventType.ERROR) {
      error = nextEvent();
      seen.add(error);
    }
    assertEquals(new TerminateInfo(row.layer(), row.type(), row.code(), false),
        error.terminate(), seen.toString());
    ConnectionEvent last = error;
    while (last.type() != ConnectionEventType.DISCONNECTED) {
      last = nextEvent();
    }

    assertRecvsCompleted(row);
    assertUnchanged(target, "target region");
    assertUnchanged(recv, "receive buffers");
    assertUnchanged(otherPdRegion, "region of the other PD");
  }

  /**
   * Row "a Write to an invalidated fast-register key" (DDP 1/1/0x00, RFC 5041 §7.2): the device
   * fast-registers a buffer (REG_MR), the peer Writes into it (placed), ends the I/O with a Send
   * with Invalidate naming the STag (the device's receive reports it, the region is INVALID),
   * then Writes to the same STag again: the exact Terminate, the connection closed, and not one
   * octet of the buffer changed by the last Write.
   */
  @Test
  void terminateForAWriteToAnInvalidatedFastRegisterKey() throws Exception {
    Row row = new Row("Write to an invalidated fast-register key", 1, 1, 0x00, true, true, false,
        null, false, null);
    ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(REGION, REGION);
    memory.setBytes(0, filled(REGION, GUARD));
    FastRegisterRegion fr = pd.allocateFastRegisterRegion(REGION);
    int stag = fr.nextStag();
    long address = memory.memoryAddress();
    try (HostilePeer peer = new HostilePeer((InetSocketAddress) listener.localAddress())) {
      peer.sendRequest();
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      QueuePair qp = device.createQueuePair(pd,
          QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4).build());
      qp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(recv, 0, RECV_LEN));
      qp.postRecv(new RecvWorkRequest(1).wrId(2).addSge(recv, RECV_LEN, RECV_LEN));
      var accepted = request.accept(qp, io.iwarp4j.verbs.AcceptParams.builder()
          .eventListener(events::add).build());
      peer.readReply();
      // A valid zero-length Write first: the device may send (and post sends) from then on.
      peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), target.stag(), target.address(), new byte[0]));
      accepted.get(T, TimeUnit.SECONDS);
      qp.postSend(new SendWorkRequest(0).wrId(10).opcode(WorkRequestOpcode.REG_MR)
          .flags(SendFlags.SIGNALED).fastRegister(fr, stag, memory, 0, REGION,
              AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE));
      WorkCompletion[] out = {new WorkCompletion()};
      assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "REG_MR not completed");
      assertEquals(WcOpcode.REG_MR, out[0].opcode(), out[0].toString());
      assertTrue(out[0].isSuccess(), out[0].toString());

      peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), stag, address + 8, PAYLOAD_16));
      peer.sendFpdu(untagged(UNTAGGED_LAST, rdmap(4), stag, 0, 1, 0, PAYLOAD_16));
      assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "Send with Invalidate not received");
      assertEquals(1, out[0].wrId(), out[0].toString());
      assertTrue(out[0].isSuccess() && out[0].hasInvalidatedStag(), out[0].toString());
      assertEquals(stag, out[0].invalidatedStag());
      assertFalse(fr.isValid());
      byte[] placed = new byte[PAYLOAD_16.length];
      memory.getBytes(8, placed);
      assertArrayEquals(PAYLOAD_16, placed, "the Write while valid was placed");
      byte[] before = new byte[REGION];
      memory.getBytes(0, before);

      byte[] ulpdu = tagged(TAGGED_LAST, rdmap(0), stag, address, filled(32, (byte) 0x11));
      peer.sendFpdu(ulpdu);
      byte[] term = peer.readFpdu();
      assertNotNull(term, "the device closed without a Terminate");
      assertTerminate(row, ulpdu, term);
      assertTrue(peer.closedByDevice(), "the device sent more after its Terminate");

      ConnectionEvent error = nextEvent();
      while (error.type() != ConnectionEventType.ERROR) {
        error = nextEvent();
      }
      assertEquals(new TerminateInfo(1, 1, 0x00, false), error.terminate());
      assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "receive 2 not flushed");
      assertEquals(2, out[0].wrId());
      assertEquals(WcStatus.WR_FLUSH_ERR, out[0].status());
      assertEquals(0, cq.poll(out), "a completion too many");
      byte[] after = new byte[REGION];
      memory.getBytes(0, after);
      assertArrayEquals(before, after, "octets placed through the invalidated key");
    } finally {
      fr.close();
      assertEquals(1, memory.refCnt(), "the registration kept its memory reference");
      memory.release();
    }
    assertUnchanged(target, "target region");
  }

  /**
   * Row "stream-scoped STag used from another stream" (DDP 1/1/0x02, RFC 5041 §8.2): the device
   * accepts two connections into one protection domain; queue pair A binds a type 2 memory
   * window (BIND_MW); peer A Writes through it (placed), peer B Writes to the same STag: the
   * exact Terminate on B's connection, and not one octet placed by B.
   */
  @Test
  void terminateForAStreamScopedStagUsedFromAnotherStream() throws Exception {
    Row row = new Row("Write, window STag bound on another stream", 1, 1, 0x02, true, true,
        false, null, false, null);
    MemoryRegion bindable = pd.allocate(REGION, AccessFlags.LOCAL_WRITE
        | AccessFlags.REMOTE_WRITE | AccessFlags.MW_BIND);
    bindable.buffer().setBytes(0, filled(REGION, GUARD));
    MemoryWindow mw = pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
    InetSocketAddress at = (InetSocketAddress) listener.localAddress();
    try (HostilePeer a = new HostilePeer(at); HostilePeer b = new HostilePeer(at)) {
      QueuePair qpA = acceptHostile(a, 0, new LinkedBlockingQueue<>());
      int stag = bindOn(qpA, mw, bindable, AccessFlags.REMOTE_WRITE);
      a.sendFpdu(tagged(TAGGED_LAST, rdmap(0), stag, bindable.address() + 8, PAYLOAD_16));
      acceptHostile(b, 10, events);
      byte[] ulpdu = tagged(TAGGED_LAST, rdmap(0), stag, bindable.address(),
          filled(32, (byte) 0x11));
      b.sendFpdu(ulpdu);
      byte[] term = b.readFpdu();
      assertNotNull(term, "the device closed without a Terminate");
      assertTerminate(row, ulpdu, term);
      assertTrue(b.closedByDevice(), "the device sent more after its Terminate");
      assertEquals(new TerminateInfo(1, 1, 0x02, false), errorTerminate());
      // A's Send behind its Write: once it is received, the Write was placed.
      a.sendFpdu(untagged(UNTAGGED_LAST, rdmap(3), 0, 0, 1, 0, PAYLOAD_16));
      assertTrue(awaitWrId(1).isSuccess());
      assertTrue(mw.isValid());
      byte[] expected = filled(REGION, GUARD);
      System.arraycopy(PAYLOAD_16, 0, expected, 8, PAYLOAD_16.length);
      byte[] now = new byte[REGION];
      bindable.buffer().getBytes(0, now);
      assertArrayEquals(expected, now, "only peer A's Write was placed");
    }
  }

  /**
   * Row "a Send with Invalidate naming a window" (RDMAP 0/1/0x09, RFC 5040 §7.2 item 5): peer
   * B's Send with Invalidate names the window queue pair A bound: the exact Terminate, its
   * receive charged LOC_ACCESS_ERR, the window still valid; peer A's invalidates it.
   */
  @Test
  void terminateForASendWithInvalidateNamingAWindowOfAnotherStream() throws Exception {
    Row row = new Row("Send with Invalidate, window of another stream", 0, 1, 0x09, true, true,
        false, null, false, WcStatus.LOC_ACCESS_ERR);
    MemoryRegion bindable = pd.allocate(REGION, AccessFlags.LOCAL_WRITE
        | AccessFlags.REMOTE_WRITE | AccessFlags.MW_BIND);
    MemoryWindow mw = pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
    InetSocketAddress at = (InetSocketAddress) listener.localAddress();
    try (HostilePeer a = new HostilePeer(at); HostilePeer b = new HostilePeer(at)) {
      QueuePair qpA = acceptHostile(a, 0, new LinkedBlockingQueue<>());
      int stag = bindOn(qpA, mw, bindable, AccessFlags.REMOTE_WRITE);
      acceptHostile(b, 10, events);
      byte[] ulpdu = untagged(UNTAGGED_LAST, rdmap(4), stag, 0, 1, 0, PAYLOAD_16);
      b.sendFpdu(ulpdu);
      byte[] term = b.readFpdu();
      assertNotNull(term, "the device closed without a Terminate");
      assertTerminate(row, ulpdu, term);
      assertTrue(b.closedByDevice(), "the device sent more after its Terminate");
      assertEquals(new TerminateInfo(0, 1, 0x09, false), errorTerminate());
      WorkCompletion charged = awaitWrId(11);
      assertEquals(WcStatus.LOC_ACCESS_ERR, charged.status(), charged.toString());
      assertTrue(mw.isValid(), "another stream invalidated the window");
      a.sendFpdu(untagged(UNTAGGED_LAST, rdmap(4), stag, 0, 1, 0, PAYLOAD_16));
      WorkCompletion recv = awaitWrId(1);
      assertTrue(recv.isSuccess() && recv.hasInvalidatedStag(), recv.toString());
      assertEquals(stag, recv.invalidatedStag());
      assertFalse(mw.isValid());
    }
  }

  /** Accepts a hostile peer's connection (receives wrIds base+1, base+2), open for sends. */
  private QueuePair acceptHostile(HostilePeer peer, long base,
      BlockingQueue<ConnectionEvent> eventQueue) throws Exception {
    peer.sendRequest();
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "no connect request");
    QueuePair qp = device.createQueuePair(pd,
        QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4).build());
    qp.postRecv(new RecvWorkRequest(1).wrId(base + 1).addSge(recv, 0, RECV_LEN));
    qp.postRecv(new RecvWorkRequest(1).wrId(base + 2).addSge(recv, RECV_LEN, RECV_LEN));
    var accepted = request.accept(qp, io.iwarp4j.verbs.AcceptParams.builder()
        .eventListener(eventQueue::add).build());
    peer.readReply();
    // A valid zero-length Write first: the device may send (and post sends) from then on.
    peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), target.stag(), target.address(), new byte[0]));
    accepted.get(T, TimeUnit.SECONDS);
    return qp;
  }

  /** BIND_MW of the whole region on {@code qp}; returns the window's STag. */
  private int bindOn(QueuePair qp, MemoryWindow mw, MemoryRegion region, int access)
      throws InterruptedException {
    int stag = mw.nextStag();
    qp.postSend(new SendWorkRequest(0).wrId(100).opcode(WorkRequestOpcode.BIND_MW)
        .flags(SendFlags.SIGNALED).bindMemoryWindow(mw, stag, region, 0, REGION, access));
    WorkCompletion wc = awaitWrId(100);
    assertEquals(WcOpcode.BIND_MW, wc.opcode(), wc.toString());
    assertTrue(wc.isSuccess(), wc.toString());
    return stag;
  }

  /** The next completion with {@code wrId}; others (flushed receives) are skipped. */
  private WorkCompletion awaitWrId(long wrId) throws InterruptedException {
    WorkCompletion[] out = {new WorkCompletion()};
    while (true) {
      assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "no completion for wrId " + wrId);
      if (out[0].wrId() == wrId) {
        return new WorkCompletion().copyFrom(out[0]);
      }
    }
  }

  private TerminateInfo errorTerminate() throws InterruptedException {
    ConnectionEvent error = nextEvent();
    while (error.type() != ConnectionEventType.ERROR) {
      error = nextEvent();
    }
    return error.terminate();
  }

  /** Both posted receives complete exactly once: flushed, or charged with the error. */
  private void assertRecvsCompleted(Row row) throws InterruptedException {
    Set<Long> done = new HashSet<>();
    WorkCompletion[] out = {new WorkCompletion()};
    int charged = 0;
    for (int i = 0; i < 2; i++) {
      assertEquals(1, cq.await(out, T, TimeUnit.SECONDS), "receive not completed");
      WorkCompletion wc = out[0];
      assertTrue(done.add(wc.wrId()), "completed twice: " + wc);
      if (wc.status() != WcStatus.WR_FLUSH_ERR) {
        assertEquals(row.chargedRecv(), wc.status(), wc.toString());
        assertEquals(row.layer() << 16 | row.type() << 8 | row.code(), wc.vendorError());
        charged++;
      }
    }
    assertEquals(row.chargedRecv() == null ? 0 : 1, charged, "receives charged with the error");
    assertEquals(0, cq.poll(out), "a completion too many");
  }

  private ConnectionEvent nextEvent() throws InterruptedException {
    ConnectionEvent e = events.poll(T, TimeUnit.SECONDS);
    assertNotNull(e, "no connection event within " + T + " s");
    return e;
  }

  private static void assertTerminate(Row row, byte[] sent, byte[] term) {
    TerminateMessage t = new TerminateMessage().wrap(Unpooled.wrappedBuffer(term), 0,
        term.length);
    assertEquals(null, t.check(), "malformed Terminate " + Arrays.toString(term));
    assertEquals(0x41, term[0] & 0xFF, "Terminate DDP control: untagged, L=1, DV=1");
    assertEquals(0x47, term[1] & 0xFF, "Terminate RDMAP control: RV=1, opcode 0x7");
    assertEquals(OpcodeTable.TERMINATE_QN, t.queueNumber());
    assertEquals(1, t.msn(), "first Terminate: MSN 1");
    assertEquals(row.layer(), t.layer(), "layer");
    assertEquals(row.type(), t.errorType(), "error type");
    assertEquals(row.code(), t.errorCode(), "error code");
    assertEquals(row.m(), t.segmentLengthValid(), "M bit");
    assertEquals(row.d(), t.ddpHeaderIncluded(), "D bit");
    assertEquals(row.r(), t.rdmaHeaderIncluded(), "R bit");
    if (row.m()) {
      assertEquals(sent.length, t.ddpSegmentLength(), "DDP Segment Length");
    }
    int at = TerminateMessage.TERMINATED_DDP_HEADER_OFFSET;
    // Without M the Terminate ends after the Terminate Control (RFC 5040 §4.8).
    int expectedLength = row.m() ? at : TerminateMessage.MIN_LENGTH;
    if (row.d()) {
      int h = (sent[0] & 0x80) != 0 ? TaggedHeader.LENGTH
          : UntaggedHeader.LENGTH;
      assertArrayEquals(Arrays.copyOf(sent, h), Arrays.copyOfRange(term, at, at + h),
          "echoed DDP header");
      expectedLength += h;
      if (row.r()) {
        int rh = TerminateMessage.RDMA_HEADER_LENGTH;
        assertArrayEquals(Arrays.copyOfRange(sent, h, h + rh),
            Arrays.copyOfRange(term, at + h, at + h + rh), "echoed Read Request header");
        expectedLength += rh;
      }
    }
    assertEquals(expectedLength, term.length, "Terminate length");
  }

  private static void assertUnchanged(MemoryRegion mr, String what) {
    byte[] now = new byte[REGION];
    mr.buffer().getBytes(0, now);
    for (int i = 0; i < REGION; i++) {
      if (now[i] != GUARD) {
        throw new AssertionError(what + ": octet " + i + " changed to " + now[i]);
      }
    }
  }

  private static byte[] filled(int n, byte b) {
    byte[] a = new byte[n];
    Arrays.fill(a, b);
    return a;
  }
}
