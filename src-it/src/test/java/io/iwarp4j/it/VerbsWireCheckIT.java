package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.RegionOptions;
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
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The verbs API on the wire: two {@link io.iwarp4j.verbs.RdmaDevice}s over real TCP on a free
 * port of 127.0.0.1, captured with tshark and checked by
 * the project's wire checker ({@code io.iwarp4j.it.wirecheck}), which must find zero errors.
 *
 * <ol>
 *   <li>One connection with CRC on runs every operation type, both directions where the verbs
 *       allow it: RDMA Write (4096 octets, zero-length, and a 200 000-octet multi-segment one
 *       gathered from two SGEs), RDMA Read (4096 octets and zero-length, so Read Request and Read
 *       Response), Send, Send with Invalidate, Send with SE, Send with SE and Invalidate (the
 *       last two naming invalidatable STags of the server), a zero-length Send and a
 *       100 000-octet multi-segment Send scattered over two receive SGEs; every completion is
 *       checked (status, opcode, length, invalidated STag) and the octets compared; it ends
 *       with a graceful disconnect.
 *   <li>One connection that ends in a Terminate: a Send with no receive posted. The Terminate's
 *       fields decoded by tshark must be DDP (1) / Untagged Buffer (2) / no buffer (0x02), M=1,
 *       segment length 34 and the echoed 18-octet DDP header of the Send (QN 0, MSN 1, MO 0).
 * </ol>
 * The wire checker must see two MPA connections, good CRCs only, and the RDMAP opcodes 0 to 7
 * (Terminate once). The verbs API does not expose the channel, so {@link QuickAck}
 * cannot be installed: a capture spoilt by a kernel retransmission alone ({@code T_CAPTURE}) is
 * taken again, up to three times ({@link WireCheck#withCaptureRetries}).
 */
@Timeout(180)
class VerbsWireCheckIT {
  private static final long T = ErrItPeer.TIMEOUT_SECONDS;
  private static final int BIG_WRITE = 200_000;
  private static final int BIG_SEND = 100_000;

  @Test
  void everyOperationAndATerminatePassTheWireCheck() throws Exception {
    WireCheck.requireAvailable();
    Path dir = Paths.get("target", "wirecheck");
    Files.createDirectories(dir);
    WireReport result = WireCheck.withCaptureRetries(3, () -> {
      int port = WireCheck.freePort();
      Path pcap = dir.resolve("verbs-" + port + ".pcap").toAbsolutePath();
      try (LoopbackCapture capture = WireCheck.startCapture(port, 120, pcap)) {
        try (ErrItPeer server = new ErrItPeer(); ErrItPeer client = new ErrItPeer()) {
          BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
          RdmaListener listener = server.device.listen(
              new InetSocketAddress("127.0.0.1", port), requests::add);
          everyOperation(server, client, listener, requests);
          sendWithNoReceive(server, client, listener, requests);
        }
        capture.stop();
      }
      WireReport r = WireCheck.check(pcap, port);
      if (r.passed()) {
        checkTerminateFields(pcap, port);
      }
      return r;
    });
    String out = result.summary();
    System.out.println(out);
    assertTrue(result.passed(), "the wire check found errors:\n" + out);
    assertEquals(2, result.connections().size(), out);
    assertEquals(2, result.mpaConnections(), out);
    assertTrue(result.totals().crcGood() > 0, "good CRCs: " + out);
    assertEquals(0, result.totals().crcBad(), "bad CRCs: " + out);
    Map<Integer, Integer> messages = result.messages();
    for (int op = 0; op <= 7; op++) {
      assertTrue(messages.getOrDefault(op, 0) > 0, "opcode " + op + " on the wire: " + out);
    }
    assertEquals(1, messages.get(7), "one Terminate: " + out);
    // Writes: 4096, zero-length, multi-segment from the client, one from the server.
    assertEquals(4, messages.get(0), "RDMA Writes: " + out);
    // Read Requests: 2 + 1 on the first connection, maybe the one behind the faulty Send.
    assertTrue(messages.get(1) >= 3, "Read Requests: " + out);
    assertEquals(3, messages.get(2), "Read Responses (none after the Terminate): " + out);
    // Sends: 8 octets, zero-length, multi-segment, the server's, the faulty one.
    assertEquals(5, messages.get(3), "Sends: " + out);
    assertEquals(1, messages.get(4), "Send with Invalidate: " + out);
    assertEquals(1, messages.get(5), "Send with SE: " + out);
    assertEquals(1, messages.get(6), "Send with SE and Invalidate: " + out);
  }

  /**
   * The exact Terminate octets of one error per kind, as tshark decodes them: a DDP Tagged
   * Buffer error (Write to an unknown STag, 1/1/0x00, echoing the 14-octet tagged header), an
   * RDMAP Remote Protection error (Send with Invalidate of an STag that may not be invalidated,
   * 0/1/0x09, echoing the 18-octet untagged header with the Invalidate STag) and a DDP Untagged
   * Buffer error (Send longer than the receive, 1/2/0x05). Each on its own connection in one
   * capture; the wire checker must find no error and three Terminates. tshark's fields give Layer,
   * EType, code, M, segment length, QN and MSN; the whole FPDU up to the CRC is compared octet by
   * octet with the TCP payload, because tshark 4.0 shows only the first 14 octets of the
   * terminated (18-octet, untagged) DDP header of an RDMAP-layer Terminate.
   */
  @Test
  void theTerminateOfEachKindHasItsExactOctets() throws Exception {
    WireCheck.requireAvailable();
    Path dir = Paths.get("target", "wirecheck");
    Files.createDirectories(dir);
    WireReport result = WireCheck.withCaptureRetries(3, () -> {
      int port = WireCheck.freePort();
      Path pcap = dir.resolve("verbs-terminates-" + port + ".pcap").toAbsolutePath();
      List<String[]> expected = new ArrayList<>();
      try (LoopbackCapture capture = WireCheck.startCapture(port, 120, pcap)) {
        try (ErrItPeer server = new ErrItPeer(); ErrItPeer client = new ErrItPeer()) {
          BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
          RdmaListener listener = server.device.listen(
              new InetSocketAddress("127.0.0.1", port), requests::add);
          MemoryRegion local = client.region(256);
          MemoryRegion sRecv = server.region(256);
          MemoryRegion noInvalidate = server.pd.allocate(64,
              AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
          int unknownStag = noInvalidate.stag() ^ 0xFF;
          long to = 0x1122_3344_5566_7788L;

          terminated(server, client, listener, requests, sqp -> { },
              cqp -> cqp.postSend(new SendWorkRequest(1).wrId(1)
                  .opcode(WorkRequestOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                  .remote(unknownStag, to).addSge(local, 0, 16)), 0x01_01_00);
          expected.add(new String[] {"1", "", "1", "", "0", "", "001e",
              "c140" + hex(unknownStag, 8) + Long.toHexString(to)});

          terminated(server, client, listener, requests,
              sqp -> sqp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(sRecv, 0, 64)),
              cqp -> cqp.postSend(new SendWorkRequest(1).wrId(1)
                  .opcode(WorkRequestOpcode.SEND_WITH_INVALIDATE).flags(SendFlags.SIGNALED)
                  .invalidateStag(noInvalidate.stag()).addSge(local, 0, 8)), 0x00_01_09);
          expected.add(new String[] {"0", "1", "", "9", "", "", "001a",
              "4144" + hex(noInvalidate.stag(), 8) + "00000000" + "00000001" + "00000000"});

          terminated(server, client, listener, requests,
              sqp -> sqp.postRecv(new RecvWorkRequest(1).wrId(1).addSge(sRecv, 0, 16)),
              cqp -> cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.SEND)
                  .flags(SendFlags.SIGNALED).addSge(local, 0, 17)), 0x01_02_05);
          expected.add(new String[] {"1", "", "2", "", "", "5", "0023",
              "4143" + "00000000" + "00000000" + "00000001" + "00000000"});
        }
        capture.stop();
      }
      WireReport r = WireCheck.check(pcap, port);
      if (r.passed()) {
        List<String[]> got = terminateFields(pcap, port);
        assertEquals(expected.size(), got.size(), "Terminate frames");
        for (int i = 0; i < expected.size(); i++) {
          String[] e = expected.get(i);
          String[] f = got.get(i);
          String what = "Terminate " + (i + 1) + ": " + String.join("|", f);
          for (int k = 0; k < 6; k++) {
            assertEquals(e[k], f[k].isEmpty() ? "" : Integer.toString(Integer.decode(f[k])),
                what + " field " + k);
          }
          assertTrue(f[6].equals("1") || f[6].equalsIgnoreCase("True"), "M=1: " + what);
          assertEquals(e[6], f[7].replace(":", ""), "segment length: " + what);
          assertEquals(2, Integer.decode(f[9]), "QN 2: " + what);
          assertEquals(1, Integer.decode(f[10]), "MSN 1: " + what);
          // The exact octets from the TCP payload (tshark 4.0 shows only 14 octets of the
          // terminated DDP header of an RDMAP-layer Terminate, so its field is not used):
          // ULPDU_LENGTH, the untagged DDP header (L=1, DV=1, RV=1, opcode 7, QN 2, MSN 1,
          // MO 0), then the Terminate control (Layer|EType, code, M=1 D=1 R=0), the segment
          // length and the echoed header.
          int layerType = Integer.parseInt(e[0]) << 4
              | Integer.parseInt(e[1].isEmpty() ? e[2] : e[1]);
          int code = Integer.parseInt(!e[3].isEmpty() ? e[3] : !e[4].isEmpty() ? e[4] : e[5]);
          String terminate = hex(layerType, 2) + hex(code, 2) + "c000" + e[6] + e[7];
          String ddp = "4147" + "00000000" + "00000002" + "00000001" + "00000000";
          String fpdu = hex((ddp.length() + terminate.length()) / 2, 4) + ddp + terminate;
          assertTrue(f[11].replace(":", "").startsWith(fpdu),
              "the Terminate's octets: expected " + fpdu + ", got " + f[11]);
        }
      }
      return r;
    });
    String out = result.summary();
    System.out.println(out);
    assertTrue(result.passed(), "the wire check found errors:\n" + out);
    assertEquals(3, result.connections().size(), out);
    assertEquals(3, result.mpaConnections(), out);
    assertEquals(0, result.totals().crcBad(), out);
    assertEquals(3, result.messages(7), "three Terminates: " + out);
  }

  private static String hex(long v, int digits) {
    String h = Long.toHexString(v & 0xFFFF_FFFFL);
    return "0".repeat(Math.max(0, digits - h.length())) + h;
  }

  /**
   * One connection: {@code first} posts the faulty message on the event loop (at ESTABLISHED),
   * the server refuses it; both sides must report the Terminate {@code vendor}.
   */
  private static void terminated(ErrItPeer server, ErrItPeer client, RdmaListener listener,
      BlockingQueue<ConnectRequest> requests, Consumer<QueuePair> setup,
      Consumer<QueuePair> first, int vendor) throws Exception {
    QueuePair cqp = client.newQp(-1, -1);
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().crc(true).eventListener(e -> {
          if (e.type() == ConnectionEventType.ESTABLISHED) {
            first.accept(cqp);
          }
          client.events.add(e);
        }).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "connect request");
    QueuePair sqp = server.newQp(-1, -1);
    setup.accept(sqp);
    request.accept(sqp, AcceptParams.builder().eventListener(server.events::add).build());
    cf.get(T, TimeUnit.SECONDS);
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
    // Whatever each side had posted completes (error or flush); drain it.
    while (client.cq.size() > 0 || server.cq.size() > 0) {
      if (client.cq.size() > 0) {
        client.nextCompletion();
      }
      if (server.cq.size() > 0) {
        server.nextCompletion();
      }
    }
  }

  /** The Terminates tshark decoded, in frame order, as raw field strings. */
  private static List<String[]> terminateFields(Path pcap, int port)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-n",
        "-o", "tcp.try_heuristic_first:TRUE",
        "-o", "iwarp_ddp_rdmap.reassemble_iwarp_rdma_send:FALSE",
        "--disable-heuristic", "rpcrdma_iwarp", "--disable-heuristic", "smb_direct_iwarp",
        "-Y", "tcp.port == " + port + " && iwarp_rdma.terminate",
        "-T", "fields", "-E", "separator=|",
        "-e", "iwarp_rdma.term_layer", "-e", "iwarp_rdma.term_etype_rdma",
        "-e", "iwarp_rdma.term_etype_ddp", "-e", "iwarp_rdma.term_errcode_rdma",
        "-e", "iwarp_rdma.term_errcode_ddp_tagged", "-e", "iwarp_rdma.term_errcode_ddp_untagged",
        "-e", "iwarp_rdma.term_hdrct_m", "-e", "iwarp_rdma.term_ddp_seg_len",
        "-e", "iwarp_rdma.term_ddp_h", "-e", "iwarp_ddp.qn", "-e", "iwarp_ddp.msn",
        "-e", "tcp.payload"));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "tshark finished");
    System.out.println("Terminates as tshark decodes them:\n" + out);
    List<String[]> rows = new ArrayList<>();
    out.lines().filter(l -> l.contains("|")).forEach(l -> rows.add(l.split("\\|", -1)));
    return rows;
  }

  private static void post(QueuePair qp, long wrId, WorkRequestOpcode op, MemoryRegion local,
      int offset, int length, MemoryRegion remote, long remoteOffset, int invalidate) {
    SendWorkRequest wr = new SendWorkRequest(2).wrId(wrId).opcode(op).flags(SendFlags.SIGNALED);
    if (length > 0 || op == WorkRequestOpcode.RDMA_READ) {
      // A zero-length Read still names its (empty) sink; other zero-length messages have no SGE.
      wr.addSge(local, offset, length);
    }
    if (remote != null) {
      wr.remote(remote.stag(), remote.address() + remoteOffset);
    }
    if (invalidate != 0) {
      wr.invalidateStag(invalidate);
    }
    qp.postSend(wr);
  }

  private static void fill(MemoryRegion mr, int seed) {
    for (int i = 0; i < mr.length(); i++) {
      mr.buffer().setByte(i, i * seed + 3);
    }
  }

  private void everyOperation(ErrItPeer server, ErrItPeer client, RdmaListener listener,
      BlockingQueue<ConnectRequest> requests) throws Exception {
    MemoryRegion cSrc = client.region(BIG_WRITE + 1000);
    MemoryRegion cSink = client.region(8192);
    MemoryRegion cRecv = client.region(4096);
    MemoryRegion sTarget = server.region(BIG_WRITE + 8192);
    MemoryRegion sRecv = server.region(BIG_SEND + 8192);
    MemoryRegion sSrc = server.region(4096);
    int both = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    MemoryRegion inv1 = server.pd.allocate(64, both,
        RegionOptions.defaults().allowRemoteInvalidation(true));
    MemoryRegion inv2 = server.pd.allocate(64, both,
        RegionOptions.defaults().allowRemoteInvalidation(true));
    fill(cSrc, 7);
    fill(sSrc, 11);

    QueuePair cqp = client.newQp(-1, -1);
    cqp.postRecv(new RecvWorkRequest(1).wrId(500).addSge(cRecv, 0, 64));
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().crc(true).eventListener(client.events::add).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "connect request");
    QueuePair sqp = server.newQp(-1, -1);
    // Receives, in the order the Sends come: 8, 8 (Inv), 8 (SE), 8 (SE+Inv), 0, big (2 SGEs).
    for (int i = 0; i < 5; i++) {
      sqp.postRecv(new RecvWorkRequest(1).wrId(200 + i).addSge(sRecv, 64L * i, 64));
    }
    sqp.postRecv(new RecvWorkRequest(2).wrId(205).addSge(sRecv, 4096, BIG_SEND / 2)
        .addSge(sRecv, 4096 + BIG_SEND / 2 + 64, BIG_SEND - BIG_SEND / 2));
    CompletableFuture<RdmaConnection> sf = request.accept(sqp,
        AcceptParams.builder().eventListener(server.events::add).build());
    RdmaConnection cc = cf.get(T, TimeUnit.SECONDS);
    assertTrue(cc.mpaInfo().crc(), "CRC negotiated");

    // Client to server, one of each.
    post(cqp, 1, WorkRequestOpcode.RDMA_WRITE, cSrc, 0, 4096, sTarget, 0, 0);
    post(cqp, 2, WorkRequestOpcode.RDMA_WRITE, cSrc, 0, 0, sTarget, 0, 0);
    SendWorkRequest bigWrite = new SendWorkRequest(2).wrId(3)
        .opcode(WorkRequestOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
        .remote(sTarget.stag(), sTarget.address() + 8192)
        .addSge(cSrc, 0, BIG_WRITE / 2).addSge(cSrc, 1000 + BIG_WRITE / 2, BIG_WRITE / 2);
    cqp.postSend(bigWrite);
    post(cqp, 4, WorkRequestOpcode.SEND, cSrc, 10, 8, null, 0, 0);
    post(cqp, 5, WorkRequestOpcode.SEND_WITH_INVALIDATE, cSrc, 20, 8, null, 0, inv1.stag());
    post(cqp, 6, WorkRequestOpcode.SEND_WITH_SOLICITED, cSrc, 30, 8, null, 0, 0);
    post(cqp, 7, WorkRequestOpcode.SEND_WITH_SOLICITED_INVALIDATE, cSrc, 40, 8, null, 0,
        inv2.stag());
    post(cqp, 8, WorkRequestOpcode.SEND, cSrc, 0, 0, null, 0, 0);
    post(cqp, 9, WorkRequestOpcode.SEND, cSrc, 100, BIG_SEND, null, 0, 0);
    post(cqp, 10, WorkRequestOpcode.RDMA_READ, cSink, 0, 4096, sSrc, 0, 0);
    post(cqp, 11, WorkRequestOpcode.RDMA_READ, cSink, 0, 0, sSrc, 0, 0);
    List<WorkCompletion> done = client.nextCompletions(11);
    for (int i = 0; i < 11; i++) {
      assertEquals(i + 1, done.get(i).wrId(), done.toString());
      assertTrue(done.get(i).isSuccess(), done.get(i).toString());
    }
    assertEquals(WcOpcode.RDMA_READ, done.get(9).opcode());
    assertEquals(4096, done.get(9).byteLen());
    for (int i = 0; i < 4096; i++) {
      assertEquals(sSrc.buffer().getByte(i), cSink.buffer().getByte(i), "read octet " + i);
    }

    RdmaConnection sc = sf.get(T, TimeUnit.SECONDS);
    List<WorkCompletion> recvs = server.nextCompletions(6);
    int[] lengths = {8, 8, 8, 8, 0, BIG_SEND};
    for (int i = 0; i < 6; i++) {
      WorkCompletion wc = recvs.get(i);
      assertEquals(200 + i, wc.wrId(), recvs.toString());
      assertTrue(wc.isSuccess(), wc.toString());
      assertEquals(lengths[i], wc.byteLen(), wc.toString());
    }
    assertTrue(recvs.get(1).hasInvalidatedStag());
    assertEquals(inv1.stag(), recvs.get(1).invalidatedStag());
    assertTrue(recvs.get(2).solicited());
    assertTrue(recvs.get(3).solicited());
    assertEquals(inv2.stag(), recvs.get(3).invalidatedStag());
    assertFalse(inv1.isValid());
    assertFalse(inv2.isValid());
    for (int i = 0; i < 4096; i++) {
      assertEquals(cSrc.buffer().getByte(i), sTarget.buffer().getByte(i), "written " + i);
    }
    for (int i = 0; i < BIG_WRITE; i++) {
      int from = i < BIG_WRITE / 2 ? i : 1000 + i;
      assertEquals(cSrc.buffer().getByte(from), sTarget.buffer().getByte(8192 + i),
          "big write " + i);
    }
    for (int i = 0; i < BIG_SEND; i++) {
      int at = i < BIG_SEND / 2 ? 4096 + i : 4096 + 64 + i;
      assertEquals(cSrc.buffer().getByte(100 + i), sRecv.buffer().getByte(at), "big send " + i);
    }

    // Server to client: a Write, a Read and a Send.
    post(sqp, 20, WorkRequestOpcode.RDMA_WRITE, sSrc, 0, 100, cSink, 4096, 0);
    post(sqp, 21, WorkRequestOpcode.RDMA_READ, sSrc, 2048, 64, cSrc, 0, 0);
    post(sqp, 22, WorkRequestOpcode.SEND, sSrc, 0, 16, null, 0, 0);
    List<WorkCompletion> sdone = server.nextCompletions(3);
    for (int i = 0; i < 3; i++) {
      assertEquals(20 + i, sdone.get(i).wrId(), sdone.toString());
      assertTrue(sdone.get(i).isSuccess(), sdone.get(i).toString());
    }
    WorkCompletion back = client.nextCompletion();
    assertEquals(500, back.wrId());
    assertEquals(16, back.byteLen());

    cc.disconnect().get(T, TimeUnit.SECONDS);
    sc.closeFuture().get(T, TimeUnit.SECONDS);
    drainUntilDisconnected(client);
    drainUntilDisconnected(server);
  }

  private static void drainUntilDisconnected(ErrItPeer peer) throws InterruptedException {
    List<ConnectionEvent> events = peer.eventsUntilDisconnected();
    for (ConnectionEvent e : events) {
      assertFalse(e.type() == ConnectionEventType.ERROR, "no error: " + events);
    }
  }

  private void sendWithNoReceive(ErrItPeer server, ErrItPeer client, RdmaListener listener,
      BlockingQueue<ConnectRequest> requests) throws Exception {
    MemoryRegion local = client.region(256);
    MemoryRegion remote = server.region(256);
    QueuePair cqp = client.newQp(-1, -1);
    // Posted on the event loop when ESTABLISHED is reported: issued together, before the
    // Terminate can be read, so one of them is in flight when it arrives.
    CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress(),
        ConnectParams.builder().crc(true).eventListener(e -> {
          if (e.type() == ConnectionEventType.ESTABLISHED) {
            post(cqp, 1, WorkRequestOpcode.SEND, local, 0, 16, null, 0, 0);
            post(cqp, 2, WorkRequestOpcode.RDMA_READ, local, 64, 32, remote, 0, 0);
          }
          client.events.add(e);
        }).build());
    ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
    assertNotNull(request, "connect request");
    QueuePair sqp = server.newQp(-1, -1); // no receive posted
    request.accept(sqp, AcceptParams.builder().eventListener(server.events::add).build());
    cf.get(T, TimeUnit.SECONDS);
    List<WorkCompletion> done = client.nextCompletions(2);
    // The Terminate is charged to the oldest in flight: the Send if its completion was not
    // reported yet (the Read is then flushed), else the Read.
    WorkCompletion charged = done.get(0).isSuccess() ? done.get(1) : done.get(0);
    assertEquals(WcStatus.REM_INV_REQ_ERR, charged.status(), done.toString());
    assertEquals(0x01_02_02, charged.vendorError());
    if (charged == done.get(0)) {
      assertEquals(WcStatus.WR_FLUSH_ERR, done.get(1).status(), done.toString());
    }
    List<ConnectionEvent> events = client.eventsUntilDisconnected();
    TerminateInfo t = null;
    for (ConnectionEvent e : events) {
      if (e.type() == ConnectionEventType.ERROR) {
        t = e.terminate();
      }
    }
    assertNotNull(t, events.toString());
    assertEquals(0x01_02_02, t.vendorError());
    server.eventsUntilDisconnected();
  }

  /** tshark's decoding of the one Terminate: layer, type, code, M, length, echoed header. */
  private static void checkTerminateFields(Path pcap, int port)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-n",
        "-o", "tcp.try_heuristic_first:TRUE",
        "-o", "iwarp_ddp_rdmap.reassemble_iwarp_rdma_send:FALSE",
        "--disable-heuristic", "rpcrdma_iwarp", "--disable-heuristic", "smb_direct_iwarp",
        "-Y", "tcp.port == " + port + " && iwarp_rdma.terminate",
        "-T", "fields", "-E", "separator=|",
        "-e", "iwarp_rdma.term_layer", "-e", "iwarp_rdma.term_etype_ddp",
        "-e", "iwarp_rdma.term_errcode_ddp_untagged", "-e", "iwarp_rdma.term_hdrct_m",
        "-e", "iwarp_rdma.term_ddp_seg_len", "-e", "iwarp_rdma.term_ddp_h",
        "-e", "iwarp_ddp.qn", "-e", "iwarp_ddp.msn"));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "tshark finished");
    System.out.println("Terminate as tshark decodes it: " + out);
    String[] lines = out.lines().filter(l -> l.contains("|")).toArray(String[]::new);
    assertEquals(1, lines.length, "one Terminate frame: " + out);
    String[] f = lines[0].split("\\|", -1);
    assertEquals(1, Integer.decode(f[0]), "layer DDP: " + out);
    assertEquals(2, Integer.decode(f[1]), "EType untagged buffer: " + out);
    assertEquals(2, Integer.decode(f[2]), "code no buffer available: " + out);
    assertTrue(f[3].equals("1") || f[3].equalsIgnoreCase("True"), "M bit: " + out);
    assertEquals("0022", f[4].replace(":", ""), "DDP segment length 18 + 16: " + out);
    // The Send's untagged header: T=0 L=1 DV=1, RV=1 opcode 3, no STag, QN 0, MSN 1, MO 0.
    assertEquals("4143" + "00000000" + "00000000" + "00000001" + "00000000",
        f[5].replace(":", ""), "the echoed DDP header: " + out);
    assertEquals(2, Integer.decode(f[6]), "the Terminate goes on QN 2: " + out);
    assertEquals(1, Integer.decode(f[7]), "the first message of QN 2: " + out);
  }
}
