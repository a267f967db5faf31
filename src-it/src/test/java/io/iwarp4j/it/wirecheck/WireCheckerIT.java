package io.iwarp4j.it.wirecheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.it.WireCheck;
import io.iwarp4j.it.wirecheck.Finding.Sender;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wire checker itself, on a capture of this stack's traffic (dumpcap on lo): the capture as
 * taken passes with 0 errors, and the same capture with one FPDU altered fails, naming the rule and
 * the sender. Two alterations: one flipped payload bit (tshark's CRC verdict and the own framer's
 * CRC32c both see it), and an MSN moved on by 5 with the CRC recomputed (only the checker's DDP
 * rule can see it).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class WireCheckerIT {
  private static final long T = 30;
  private static final int SENDS = 4;

  @Test
  void aGoodCapturePassesAndItsCorruptedCopiesFail() throws Exception {
    WireCheck.requireAvailable();
    Path dir = Paths.get(System.getProperty("iwarp4j.build.dir", "target"), "wirecheck");
    Files.createDirectories(dir);
    int[] port = new int[1];
    Path[] pcap = new Path[1];
    WireReport good = WireCheck.withCaptureRetries(3, () -> {
      port[0] = WireCheck.freePort();
      pcap[0] = dir.resolve("checker-good-" + port[0] + ".pcap").toAbsolutePath();
      try (LoopbackCapture capture = WireCheck.startCapture(port[0], 120, pcap[0])) {
        traffic(port[0]);
        capture.stop();
      }
      return WireCheck.check(pcap[0], port[0]);
    });
    System.out.println(good.summary());
    assertTrue(good.passed(), good.summary());
    assertEquals(0, good.errors().size(), good.summary());
    assertEquals(1, good.mpaConnections(), good.summary());
    assertEquals(SENDS, good.messages(3), good.summary());
    assertEquals(1, good.messages(0), good.summary());
    assertTrue(good.totals().crcGood() >= SENDS + 1, good.summary());

    Path flipped = dir.resolve("checker-flipped-bit.pcap");
    rewriteFirstSend(pcap[0], flipped, port[0], fpdu -> {
      int i = fpdu.limit() / 2;
      fpdu.put(i, (byte) (fpdu.get(i) ^ 0x01));
    });
    WireReport bad = WireCheck.check(flipped, port[0]);
    System.out.println(bad.summary());
    assertFalse(bad.passed(), bad.summary());
    assertTrue(codes(bad).containsAll(Set.of(Code.T_CRC_BAD, Code.F_CRC_BAD)), bad.summary());
    assertTrue(bad.errors().stream().allMatch(f -> f.sender() == Sender.INITIATOR),
        "every error is the Initiator's: " + bad.summary());

    Path msn = dir.resolve("checker-msn.pcap");
    rewriteFirstSend(pcap[0], msn, port[0], fpdu -> {
      // ULPDU_LENGTH, then the untagged DDP header: control, RsvdULP (5), QN, MSN, MO.
      fpdu.putInt(2 + 10, fpdu.getInt(2 + 10) + 5);
      resealCrc(fpdu);
    });
    WireReport out = WireCheck.check(msn, port[0]);
    System.out.println(out.summary());
    assertFalse(out.passed(), out.summary());
    assertTrue(codes(out).contains(Code.S_MSN), out.summary());
    assertEquals(0, out.totals().crcBad(), "the CRC was recomputed: " + out.summary());
    assertTrue(out.errors().stream().filter(f -> f.code() == Code.S_MSN)
        .allMatch(f -> f.sender() == Sender.INITIATOR), out.summary());
  }

  private static Set<Code> codes(WireReport r) {
    return r.errors().stream().map(Finding::code)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(Code.class)));
  }

  /** CRC32c over the FPDU but its last 4 octets, written there least significant octet first. */
  private static void resealCrc(ByteBuffer fpdu) {
    CRC32C c = new CRC32C();
    ByteBuffer covered = fpdu.duplicate();
    covered.position(0).limit(fpdu.limit() - 4);
    c.update(covered);
    fpdu.order(ByteOrder.LITTLE_ENDIAN).putInt(fpdu.limit() - 4, (int) c.getValue());
    fpdu.order(ByteOrder.BIG_ENDIAN);
  }

  /**
   * Copies a classic pcap of Ethernet frames, applying {@code change} to the first whole FPDU
   * carrying a Send in a segment towards {@code port}.
   */
  private static void rewriteFirstSend(Path from, Path to, int port, Consumer<ByteBuffer> change)
      throws Exception {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(from));
    int magic = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
      b.order(ByteOrder.BIG_ENDIAN);
    }
    assertEquals(1, b.getInt(20), "an Ethernet capture (link type 1)");
    int at = 24;
    boolean done = false;
    while (at + 16 <= b.limit() && !done) {
      int caplen = b.getInt(at + 8);
      int frame = at + 16;
      int ip = frame + 14;
      int tcp = ip + (b.get(ip) & 0x0f) * 4;
      int dstPort = (b.get(tcp + 2) & 0xff) << 8 | b.get(tcp + 3) & 0xff;
      int payload = tcp + ((b.get(tcp + 12) & 0xf0) >> 4) * 4;
      // The FPDUs of the segment (no Markers here), when it begins with one.
      for (int o = payload; dstPort == port && !done && o + 4 <= frame + caplen; ) {
        int ulen = (b.get(o) & 0xff) << 8 | b.get(o + 1) & 0xff;
        int whole = 2 + ulen + (4 - (ulen + 2) % 4) % 4 + 4;
        if (o + whole > frame + caplen) {
          break; // not an FPDU boundary (the MPA Request, or an FPDU continued in a later segment)
        }
        boolean untaggedSend = (b.get(o + 2) & 0x80) == 0 && (b.get(o + 3) & 0x0f) == 3;
        if (untaggedSend && ulen > 18) {
          ByteBuffer p = b.duplicate().order(ByteOrder.BIG_ENDIAN);
          p.position(o).limit(o + whole);
          change.accept(p.slice());
          done = true;
        }
        o += whole;
      }
      at = frame + caplen;
    }
    assertTrue(done, "a segment holding one Send FPDU towards port " + port);
    Files.write(to, b.array());
  }

  /** One connection with CRC: a Write and {@link #SENDS} Sends from the client. */
  private static void traffic(int port) throws Exception {
    try (RdmaDevice server = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build());
        RdmaDevice client = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build())) {
      ProtectionDomain spd = server.allocateProtectionDomain();
      ProtectionDomain cpd = client.allocateProtectionDomain();
      CompletionQueue scq = server.createCompletionQueue(64);
      CompletionQueue ccq = client.createCompletionQueue(64);
      MemoryRegion sink = spd.allocate(8192, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
      MemoryRegion src = cpd.allocate(8192, AccessFlags.LOCAL_WRITE);
      QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
      QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
      for (int i = 0; i < SENDS; i++) {
        sqp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(sink, 4096 + 256 * i, 256));
      }
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      try (RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", port),
          requests::add)) {
        CompletableFuture<RdmaConnection> cf = client.connect(cqp, listener.localAddress(),
            ConnectParams.builder().crc(true).build());
        ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
        assertNotNull(request, "connect request");
        CompletableFuture<RdmaConnection> sf = request.accept(sqp, AcceptParams.defaults());
        RdmaConnection connection = cf.get(T, TimeUnit.SECONDS);
        SendWorkRequest wr = new SendWorkRequest(1);
        cqp.postSend(wr.reset().wrId(100).opcode(WorkRequestOpcode.RDMA_WRITE)
            .flags(SendFlags.SIGNALED).remote(sink.stag(), sink.address()).addSge(src, 0, 1024));
        for (int i = 0; i < SENDS; i++) {
          src.buffer().setByte(2048 + i, i + 1);
          cqp.postSend(wr.reset().wrId(i).opcode(WorkRequestOpcode.SEND)
              .flags(SendFlags.SIGNALED).addSge(src, 2048, 64));
        }
        WorkCompletion[] wc = {new WorkCompletion()};
        for (int i = 0; i < SENDS + 1; i++) {
          assertTrue(ccq.await(wc, T, TimeUnit.SECONDS) > 0, "client completion " + i);
          assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
        }
        for (int i = 0; i < SENDS; i++) {
          assertTrue(scq.await(wc, T, TimeUnit.SECONDS) > 0, "server receive " + i);
          assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
        }
        // The Responder's side completes once the Initiator's first FPDU arrived (RFC 5044).
        sf.get(T, TimeUnit.SECONDS);
        connection.disconnect().get(T, TimeUnit.SECONDS);
      }
    }
  }
}
