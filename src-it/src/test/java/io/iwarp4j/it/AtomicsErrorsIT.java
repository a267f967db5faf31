package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.AtomicCapability;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
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
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RFC 7306 errors end to end: a real client queue pair sends a faulty Atomic (or an RFC 7306
 * message to a queue pair without RFC 7306) to a real server over TCP on 127.0.0.1. Each case
 * checks the Terminate code on both sides (the ERROR event's {@code vendorError}), the status and
 * {@code vendorError} of the charged completion, that the Send posted behind it is flushed, and
 * that the target's 8 octets are unchanged. The exact Terminate octets of these cases are in
 * {@code RdmapAtomicsTest} (unit level) and {@code AtomicsWireCheckIT} (on the wire).
 */
@Timeout(120)
class AtomicsErrorsIT {
  private static final long T = ErrItPeer.TIMEOUT_SECONDS;
  private static final long INITIAL = 0x0102_0304_0506_0708L;
  private static final int ATOMIC_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC;

  private ErrItPeer server;
  private ErrItPeer client;
  private RdmaListener listener;
  private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();

  @BeforeEach
  void setUp() throws Exception {
    server = new ErrItPeer();
    client = new ErrItPeer();
    listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
  }

  @AfterEach
  void tearDown() {
    client.close();
    server.close();
  }

  /**
   * A target whose memory address is not 64-bit aligned: {@code postSend} takes it (only the
   * responder knows where a TO lands in memory) and the responder answers Terminate 0/2/0x07
   * "Catastrophic error, localized to RDMAP Stream" (RFC 7306 §8.2), memory untouched. The exact
   * octets are in {@code RdmapAtomicsTest#unalignedTargetIsACatastrophicStreamError}.
   */
  @Test
  void unalignedTarget() throws Exception {
    MemoryRegion target = target(ATOMIC_ACCESS);
    faulty(true, fetchAdd(target.stag(), target.address() + 4), 0x00_02_07,
        WcStatus.REM_OP_ERR);
    assertUntouched(target);
  }

  /**
   * RFC 7306 requires the target's memory address to be aligned, not its Tagged Offset: a
   * zero-based region over memory 3 octets past an aligned address takes atomics at TO 5
   * (memory base + 8), from a FetchAdd and a CmpSwap over TCP.
   */
  @Test
  void aRegionAtAnOddBaseTakesAtomicsWhereTheAddressIsAligned() throws Exception {
    io.netty.buffer.ByteBuf memory = io.netty.buffer.Unpooled.directBuffer(72);
    try {
      assertEquals(0, memory.memoryAddress() % 8, "test premise: direct memory is 8-aligned");
      MemoryRegion target = server.pd.register(memory, 3, 64, ATOMIC_ACCESS,
          io.iwarp4j.verbs.RegionOptions.defaults().zeroBased());
      try {
        assertEquals(0, target.address());
        target.putLong(5, INITIAL);
        QueuePair cqp = client.newQp(-1, -1);
        connect(cqp, server.newQp(-1, -1));
        MemoryRegion result = client.pd.allocate(64, AccessFlags.LOCAL_WRITE);
        cqp.postSend(new SendWorkRequest(1).wrId(1).flags(SendFlags.SIGNALED)
            .opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).remote(target.stag(), 5).addData(2)
            .localResult(result, 0));
        cqp.postSend(new SendWorkRequest(1).wrId(2).flags(SendFlags.SIGNALED)
            .opcode(WorkRequestOpcode.ATOMIC_CMP_SWAP).remote(target.stag(), 5)
            .compareData(INITIAL + 2).swapData(7).localResult(result, 8));
        for (WorkCompletion wc : client.nextCompletions(2)) {
          assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
        assertEquals(INITIAL, result.getLong(0), "FetchAdd's original value");
        assertEquals(INITIAL + 2, result.getLong(8), "CmpSwap's original value");
        assertEquals(7, target.getLong(5), "swapped");
        assertEquals(QpState.RTS, cqp.state());
      } finally {
        target.close();
      }
    } finally {
      memory.release();
    }
  }

  @Test
  void outOfBounds() throws Exception {
    MemoryRegion target = target(ATOMIC_ACCESS);
    faulty(true, fetchAdd(target.stag(), target.address() + target.length()), 0x00_01_01,
        WcStatus.REM_ACCESS_ERR);
    assertUntouched(target);
  }

  @Test
  void noRemoteAtomicAccess() throws Exception {
    MemoryRegion target = target(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ
        | AccessFlags.REMOTE_WRITE);
    faulty(true, cmpSwap(target.stag(), target.address() + 8, INITIAL), 0x00_01_02,
        WcStatus.REM_ACCESS_ERR);
    assertUntouched(target);
  }

  @Test
  void stagOfAnotherProtectionDomain() throws Exception {
    ProtectionDomain other = server.device.allocateProtectionDomain();
    MemoryRegion target = other.allocate(64, ATOMIC_ACCESS);
    target.putLong(8, INITIAL);
    faulty(true, fetchAdd(target.stag(), target.address() + 8), 0x00_01_03,
        WcStatus.REM_ACCESS_ERR);
    assertUntouched(target);
  }

  @Test
  void unknownStag() throws Exception {
    MemoryRegion target = target(ATOMIC_ACCESS);
    faulty(true, fetchAdd(target.stag() ^ 0xFF, target.address() + 8), 0x00_01_00,
        WcStatus.REM_ACCESS_ERR);
    assertUntouched(target);
  }

  /**
   * A peer without RFC 7306 (here: our own server with it switched off, which answers as Linux
   * siw does) sends Terminate "Unexpected OpCode"; the requester surfaces it and flushes the rest.
   */
  @Test
  void atomicTowardAPeerWithoutRfc7306() throws Exception {
    MemoryRegion target = target(ATOMIC_ACCESS);
    faulty(false, fetchAdd(target.stag(), target.address() + 8), 0x00_02_06,
        WcStatus.REM_INV_REQ_ERR);
    assertUntouched(target);
  }

  @Test
  void immediateDataTowardAPeerWithoutRfc7306() throws Exception {
    // Immediate Data completes like a Send, when TCP took it, so the Terminate may come after
    // its successful completion: then it is charged to the Send behind it, or to nothing.
    faulty(false, wr -> wr.opcode(WorkRequestOpcode.IMMEDIATE_DATA).immData(1), 0x00_02_06,
        null);
  }

  /** Without RFC 7306 on the requester, posting one throws and nothing reaches the wire. */
  @Test
  void aQueuePairWithoutRfc7306RefusesToPostThem() throws Exception {
    try (RdmaDevice plain = RdmaDevice.open(DeviceConfig.builder().rfc7306(false)
        .eventLoopThreads(1).build())) {
      assertEquals(AtomicCapability.NONE, plain.atomicCapability());
      assertEquals(AtomicCapability.DEVICE, server.device.atomicCapability());
    }
    QueuePair cqp = client.device.createQueuePair(client.pd,
        QueuePairConfig.builder(client.cq, client.cq).rfc7306(false).build());
    QueuePair sqp = server.newQp(-1, -1);
    connect(cqp, sqp);
    MemoryRegion result = client.pd.allocate(64, AccessFlags.LOCAL_WRITE);
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> cqp.postSend(new SendWorkRequest(1).opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD)
            .remote(1, 0).localResult(result, 0).addData(1)));
    assertTrue(e.getMessage().contains("RFC 7306"), e.getMessage());
    // Everything else still works on it.
    MemoryRegion sink = server.region(64);
    MemoryRegion src = client.region(64);
    src.buffer().setLong(0, 42);
    cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).remote(sink.stag(), sink.address()).addSge(src, 0, 8));
    cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).remote(sink.stag(), sink.address()).addSge(src, 8, 8));
    for (WorkCompletion wc : client.nextCompletions(2)) {
      assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
    }
    assertEquals(42, sink.buffer().getLong(0));
    assertEquals(42, src.buffer().getLong(8), "read back");
  }

  // ---- helpers ----

  private MemoryRegion target(int access) {
    MemoryRegion t = server.pd.allocate(64, access);
    t.putLong(8, INITIAL);
    return t;
  }

  private static void assertUntouched(MemoryRegion t) {
    assertEquals(INITIAL, t.getLong(8), "the target is untouched");
    for (int i = 0; i < 64; i += 8) {
      if (i != 8) {
        assertEquals(0, t.getLong(i), "octets " + i + ".." + (i + 7) + " untouched");
      }
    }
  }

  private Function<SendWorkRequest, SendWorkRequest> fetchAdd(int stag, long address) {
    MemoryRegion result = client.pd.allocate(64, AccessFlags.LOCAL_WRITE);
    result.putLong(0, -1L);
    return wr -> wr.opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD).remote(stag, address)
        .addData(1).localResult(result, 0);
  }

  private Function<SendWorkRequest, SendWorkRequest> cmpSwap(int stag, long address,
      long compare) {
    MemoryRegion result = client.pd.allocate(64, AccessFlags.LOCAL_WRITE);
    return wr -> wr.opcode(WorkRequestOpcode.ATOMIC_CMP_SWAP).remote(stag, address)
        .compareData(compare).swapData(~compare).localResult(result, 0);
  }

  private void connect(QueuePair cqp, QueuePair sqp) throws Exception {
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().eventListener(client.events::add).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "connect request");
    request.accept(sqp, AcceptParams.builder().eventListener(server.events::add).build());
    cf.get(T, TimeUnit.SECONDS);
  }

  /**
   * Connects (the server's queue pair with or without RFC 7306, one receive posted), posts the
   * faulty request and a Send behind it, and checks what both sides report.
   */
  private void faulty(boolean serverRfc7306, Function<SendWorkRequest, SendWorkRequest> request,
      int vendor, WcStatus status) throws Exception {
    QueuePair cqp = client.newQp(-1, -1);
    QueuePair sqp = server.device.createQueuePair(server.pd,
        QueuePairConfig.builder(server.cq, server.cq).maxSendWr(16).maxRecvWr(16)
            .rfc7306(serverRfc7306).build());
    MemoryRegion recv = server.region(64);
    sqp.postRecv(new RecvWorkRequest(1).wrId(900).addSge(recv, 0, 64));
    connect(cqp, sqp);
    MemoryRegion src = client.region(64);
    cqp.postSend(request.apply(new SendWorkRequest(1).wrId(1).flags(SendFlags.SIGNALED)));
    cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(src, 0, 8));

    List<WorkCompletion> done = client.nextCompletions(2);
    assertEquals(1, done.get(0).wrId(), done.toString());
    assertEquals(2, done.get(1).wrId(), done.toString());
    if (status != null) {
      WorkCompletion charged = done.get(0);
      assertEquals(status, charged.status(), charged.toString());
      assertEquals(vendor, charged.vendorError(), charged.toString());
      assertEquals(WcStatus.WR_FLUSH_ERR, done.get(1).status(), done.toString());
    } else {
      assertEquals(WcStatus.SUCCESS, done.get(0).status(), done.toString());
      WorkCompletion send = done.get(1);
      assertTrue(send.status() == WcStatus.SUCCESS || send.status() == WcStatus.WR_FLUSH_ERR
          || send.vendorError() == vendor, send.toString());
    }
    WorkCompletion flushedRecv = server.nextCompletion();
    assertEquals(900, flushedRecv.wrId());
    assertEquals(WcStatus.WR_FLUSH_ERR, flushedRecv.status(), flushedRecv.toString());
    assertEquals(WcOpcode.RECV, flushedRecv.opcode(), flushedRecv.toString());

    for (ErrItPeer peer : List.of(client, server)) {
      TerminateInfo t = null;
      List<ConnectionEvent> events = peer.eventsUntilDisconnected();
      for (ConnectionEvent e : events) {
        if (e.type() == ConnectionEventType.ERROR) {
          t = e.terminate();
        }
      }
      assertNotNull(t, events.toString());
      assertEquals(vendor, t.vendorError(), t.toString());
      assertEquals(peer == client, t.receivedFromPeer(), t.toString());
    }
    assertEquals(QpState.ERROR, cqp.state());
    assertEquals(QpState.ERROR, sqp.state());
    client.assertNoCompletion();
    server.assertNoCompletion();
  }
}
