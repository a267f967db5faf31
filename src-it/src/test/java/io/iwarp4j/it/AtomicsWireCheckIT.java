package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.it.wirecheck.LoopbackCapture;
import io.iwarp4j.it.wirecheck.WireReport;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every RFC 7306 message on the wire, captured with tshark and checked by
 * the project's wire checker ({@code io.iwarp4j.it.wirecheck}) (0 errors), between two devices over TCP on
 * 127.0.0.1:
 *
 * <ol>
 *   <li>One connection: an Atomic Request FetchAdd and a masked CmpSwap with their Atomic
 *       Responses (the wire checker matches each response to its request by the echoed identifier),
 *       Immediate Data, Immediate Data with SE, and an RDMA Write with Immediate (a Write and an
 *       Immediate Data message), every completion checked.
 *   <li>One connection whose Atomic targets the 8 octets just past its region: the Terminate is
 *       RDMAP (0) / Remote Protection (1) / 0x01 with M=1, D=1, segment length 70 and the echoed
 *       18-octet DDP header of the Atomic Request, compared octet by octet (RFC 7306 §8.1 item
 *       2). (An unaligned target's 0/2/0x07 Terminate is asserted octet for
 *       octet in {@code RdmapAtomicsTest}.)
 *   <li>One connection to a queue pair without RFC 7306: the Atomic Request gets 0/2/0x06
 *       (what Linux siw answers, RFC 7306 §1.1), same layout.
 * </ol>
 */
@Timeout(180)
class AtomicsWireCheckIT {
  private static final long T = ErrItPeer.TIMEOUT_SECONDS;
  private static final int ATOMIC = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
      | AccessFlags.REMOTE_ATOMIC;
  private static final long INITIAL = 0x7306_0000_0000_0001L;

  @Test
  void everyRfc7306MessageAndItsTerminatesPassTheWireCheck() throws Exception {
    WireCheck.requireAvailable();
    Path dir = Paths.get("target", "wirecheck");
    Files.createDirectories(dir);
    WireReport result = WireCheck.withCaptureRetries(3, () -> {
      int port = WireCheck.freePort();
      Path pcap = dir.resolve("atomics-" + port + ".pcap").toAbsolutePath();
      try (LoopbackCapture capture = WireCheck.startCapture(port, 120, pcap)) {
        try (ErrItPeer server = new ErrItPeer(); ErrItPeer client = new ErrItPeer()) {
          BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
          RdmaListener listener = server.device.listen(
              new InetSocketAddress("127.0.0.1", port), requests::add);
          everyMessage(server, client, listener, requests);
          terminated(server, client, listener, requests, true, 64, 0x00_01_01);
          terminated(server, client, listener, requests, false, 8, 0x00_02_06);
        }
        capture.stop();
      }
      WireReport r = WireCheck.check(pcap, port);
      if (r.passed()) {
        List<String> terminates = terminatePayloads(pcap, port);
        assertEquals(2, terminates.size(), "Terminate frames: " + terminates);
        assertTerminate(terminates.get(0), 0x01, 0x01);
        assertTerminate(terminates.get(1), 0x02, 0x06);
      }
      return r;
    });
    String out = result.summary();
    System.out.println(out);
    assertTrue(result.passed(), "the wire check found errors:\n" + out);
    assertEquals(3, result.connections().size(), out);
    assertEquals(3, result.mpaConnections(), out);
    assertEquals(0, result.totals().crcBad(), "bad CRCs: " + out);
    assertTrue(result.totals().crcGood() > 0, "good CRCs: " + out);
    Map<Integer, Integer> messages = result.messages();
    assertEquals(1, messages.get(0), "the Write of the Write with Immediate: " + out);
    assertEquals(2, messages.get(8), "Immediate Data, alone and behind the Write: " + out);
    assertEquals(1, messages.get(9), "Immediate Data with SE: " + out);
    assertEquals(4, messages.get(10), "Atomic Requests (2 answered, 2 terminated): " + out);
    assertEquals(2, messages.get(11), "Atomic Responses: " + out);
    assertEquals(2, messages.get(7), "Terminates: " + out);
  }

  private static void everyMessage(ErrItPeer server, ErrItPeer client, RdmaListener listener,
      BlockingQueue<ConnectRequest> requests) throws Exception {
    MemoryRegion target = server.pd.allocate(4096, ATOMIC);
    MemoryRegion sRecv = server.region(256);
    MemoryRegion cSrc = client.region(4096);
    MemoryRegion result = client.pd.allocate(64, AccessFlags.LOCAL_WRITE);
    for (int i = 0; i < 1000; i++) {
      cSrc.buffer().setByte(i, i * 7 + 1);
    }
    target.putLong(0, INITIAL);
    target.putLong(8, 0x00ff_00ff_1234_5678L);

    QueuePair cqp = client.newQp(-1, -1);
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().crc(true).eventListener(client.events::add).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "connect request");
    QueuePair sqp = server.newQp(-1, -1);
    for (int i = 0; i < 3; i++) {
      sqp.postRecv(new RecvWorkRequest(1).wrId(200 + i).addSge(sRecv, 64L * i, 64));
    }
    CompletableFuture<RdmaConnection> sf = request.accept(sqp,
        AcceptParams.builder().eventListener(server.events::add).build());
    RdmaConnection cc = cf.get(T, TimeUnit.SECONDS);
    assertTrue(cc.mpaInfo().crc(), "CRC negotiated");

    cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD)
        .flags(SendFlags.SIGNALED).remote(target.stag(), target.address())
        .addData(0x10).localResult(result, 0));
    // Masked CmpSwap: compare the low 32 bits only, replace the high 16.
    cqp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.ATOMIC_CMP_SWAP)
        .flags(SendFlags.SIGNALED).remote(target.stag(), target.address() + 8)
        .compareData(0xaaaa_aaaa_1234_5678L).compareMask(0xffff_ffffL)
        .swapData(0xbeef_0000_0000_0000L).swapMask(0xffff_0000_0000_0000L)
        .localResult(result, 8));
    cqp.postSend(new SendWorkRequest(1).wrId(3).opcode(WorkRequestOpcode.IMMEDIATE_DATA)
        .flags(SendFlags.SIGNALED).immData(0x0123_4567_89ab_cdefL));
    cqp.postSend(new SendWorkRequest(1).wrId(4)
        .opcode(WorkRequestOpcode.IMMEDIATE_DATA_WITH_SOLICITED).flags(SendFlags.SIGNALED)
        .immData(0xfedc_ba98_7654_3210L));
    cqp.postSend(new SendWorkRequest(1).wrId(5).opcode(WorkRequestOpcode.RDMA_WRITE_WITH_IMMEDIATE)
        .flags(SendFlags.SIGNALED).remote(target.stag(), target.address() + 64)
        .addSge(cSrc, 0, 1000).immData(5));
    List<WorkCompletion> done = client.nextCompletions(5);
    WcOpcode[] ops = {WcOpcode.ATOMIC_FETCH_ADD, WcOpcode.ATOMIC_CMP_SWAP, WcOpcode.IMMEDIATE_DATA,
        WcOpcode.IMMEDIATE_DATA, WcOpcode.RDMA_WRITE_WITH_IMMEDIATE};
    for (int i = 0; i < 5; i++) {
      assertEquals(i + 1, done.get(i).wrId(), done.toString());
      assertEquals(WcStatus.SUCCESS, done.get(i).status(), done.get(i).toString());
      assertEquals(ops[i], done.get(i).opcode(), done.get(i).toString());
    }
    assertEquals(INITIAL, result.getLong(0));
    assertEquals(0x00ff_00ff_1234_5678L, result.getLong(8));
    assertEquals(INITIAL + 0x10, target.getLong(0));
    assertEquals(0xbeef_00ff_1234_5678L, target.getLong(8));

    RdmaConnection sc = sf.get(T, TimeUnit.SECONDS);
    List<WorkCompletion> recvs = server.nextCompletions(3);
    long[] imm = {0x0123_4567_89ab_cdefL, 0xfedc_ba98_7654_3210L, 5};
    for (int i = 0; i < 3; i++) {
      WorkCompletion wc = recvs.get(i);
      assertEquals(200 + i, wc.wrId(), recvs.toString());
      assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
      assertEquals(WcOpcode.RECV_IMMEDIATE_DATA, wc.opcode(), wc.toString());
      assertEquals(0, wc.byteLen(), wc.toString());
      assertTrue(wc.hasImmData(), wc.toString());
      assertEquals(imm[i], wc.immData(), wc.toString());
      assertEquals(i == 1, wc.solicited(), wc.toString());
    }
    for (int i = 0; i < 1000; i++) {
      assertEquals(cSrc.buffer().getByte(i), target.buffer().getByte(64 + i), "written " + i);
    }
    cc.disconnect().get(T, TimeUnit.SECONDS);
    sc.closeFuture().get(T, TimeUnit.SECONDS);
    for (ErrItPeer peer : List.of(client, server)) {
      for (ConnectionEvent e : peer.eventsUntilDisconnected()) {
        assertTrue(e.type() != ConnectionEventType.ERROR, e.toString());
      }
    }
  }

  /** One connection whose first Atomic is refused with Terminate {@code vendor}. */
  private static void terminated(ErrItPeer server, ErrItPeer client, RdmaListener listener,
      BlockingQueue<ConnectRequest> requests, boolean serverRfc7306, int offset, int vendor)
      throws Exception {
    MemoryRegion target = server.pd.allocate(64, ATOMIC);
    target.putLong(8, INITIAL);
    MemoryRegion result = client.pd.allocate(64, AccessFlags.LOCAL_WRITE);
    QueuePair cqp = client.newQp(-1, -1);
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().crc(true).eventListener(client.events::add).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "connect request");
    QueuePair sqp = server.device.createQueuePair(server.pd,
        QueuePairConfig.builder(server.cq, server.cq).rfc7306(serverRfc7306).build());
    request.accept(sqp, AcceptParams.builder().eventListener(server.events::add).build());
    cf.get(T, TimeUnit.SECONDS);
    cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.ATOMIC_FETCH_ADD)
        .flags(SendFlags.SIGNALED).remote(target.stag(), target.address() + offset)
        .addData(1).localResult(result, 0));
    WorkCompletion wc = client.nextCompletion();
    assertEquals(vendor, wc.vendorError(), wc.toString());
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
    }
    assertEquals(INITIAL, target.getLong(8), "the target is untouched");
  }

  /**
   * A Terminate FPDU from the TCP payload, up to its CRC: ULPDU_Length, the untagged DDP header
   * (L=1, DV=1, RV=1, opcode 7, QN 2, MSN 1, MO 0), Layer|EType, code, M=1 D=1 R=0, the segment
   * length of the Atomic Request (18 + 52 = 70) and its echoed DDP header (opcode 0xA, QN 1,
   * MSN 1, MO 0).
   */
  private static void assertTerminate(String payload, int layerType, int code) {
    String ddp = "4147" + "00000000" + "00000002" + "00000001" + "00000000";
    String body = String.format("%02x%02x", layerType, code) + "c000" + "0046"
        + "414a" + "00000000" + "00000001" + "00000001" + "00000000";
    String fpdu = String.format("%04x", (ddp.length() + body.length()) / 2) + ddp + body;
    assertTrue(payload.startsWith(fpdu), "the Terminate's octets: expected " + fpdu
        + ", got " + payload);
  }

  /** The TCP payloads of the frames tshark decodes as Terminates, in frame order, as hex. */
  private static List<String> terminatePayloads(Path pcap, int port)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-n",
        "-o", "tcp.try_heuristic_first:TRUE",
        "-o", "iwarp_ddp_rdmap.reassemble_iwarp_rdma_send:FALSE",
        "--disable-heuristic", "rpcrdma_iwarp", "--disable-heuristic", "smb_direct_iwarp",
        "-Y", "tcp.port == " + port + " && iwarp_rdma.terminate",
        "-T", "fields", "-e", "tcp.payload"));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "tshark finished");
    System.out.println("Terminates on the wire:\n" + out);
    List<String> rows = new ArrayList<>();
    out.lines().filter(l -> !l.isBlank()).forEach(l -> rows.add(l.replace(":", "")));
    return rows;
  }

}
