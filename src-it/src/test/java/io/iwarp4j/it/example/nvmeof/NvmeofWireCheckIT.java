package io.iwarp4j.it.example.nvmeof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.examples.nvmeof.host.HostOptions;
import io.iwarp4j.examples.nvmeof.host.NvmeHost;
import io.iwarp4j.examples.nvmeof.server.NvmeTarget;
import io.iwarp4j.examples.nvmeof.server.TargetConfig;
import io.iwarp4j.examples.nvmeof.wire.CmPrivateData;
import io.iwarp4j.it.WireCheck;
import io.iwarp4j.it.wirecheck.LoopbackCapture;
import io.iwarp4j.it.wirecheck.WireReport;
import io.iwarp4j.verbs.DeviceConfig;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NVMe over Fabrics example on the wire: a host and a target in this JVM, captured with
 * tshark on 127.0.0.1 and checked by the project's wire checker, which must find no error. The
 * capture holds two MPA connections (admin and I/O queue) whose MPA Requests carry the NVMe/RDMA
 * request private data, and the RDMAP messages the protocol is made of: Sends (commands,
 * responses), RDMA Read Request and Response (Connect data, keyed Writes), RDMA Writes (Identify,
 * Reads) and Send with Invalidate (responses to keyed I/O), and no Terminate.
 */
@Timeout(180)
class NvmeofWireCheckIT {
  private static final String NQN = "nqn.2026-11.io.iwarp4j:wirecheck";

  @Test
  void anAssociationWithReadsAndWritesPassesTheWireCheck() throws Exception {
    WireCheck.requireAvailable();
    Path dir = Paths.get("target", "wirecheck");
    Files.createDirectories(dir);
    WireReport result = WireCheck.withCaptureRetries(3, () -> {
      int port = WireCheck.freePort();
      Path pcap = dir.resolve("nvmeof-" + port + ".pcap").toAbsolutePath();
      try (LoopbackCapture capture = WireCheck.startCapture(port, 120, pcap)) {
        try (NvmeTarget target = NvmeTarget.start(DeviceConfig.defaults(),
            new InetSocketAddress("127.0.0.1", port), TargetConfig.of(NQN, 4L << 20));
            NvmeHost host = NvmeHost.connect(DeviceConfig.defaults(), target.address(),
                HostOptions.of(NQN))) {
          Random random = new Random(7);
          for (int blocks : new int[] {1, 8, 64, 256}) { // 512 B and 4 KiB go in the capsule
            byte[] data = new byte[blocks * 512];
            random.nextBytes(data);
            host.write(1000, blocks, data, 0);
            byte[] back = new byte[data.length];
            host.read(1000, blocks, back, 0);
            assertTrue(Arrays.equals(data, back), blocks + " blocks");
          }
        }
        capture.stop();
      }
      return WireCheck.check(pcap, port);
    });
    String out = result.summary();
    System.out.println(out);
    assertTrue(result.passed(), "the wire check found errors:\n" + out);
    assertEquals(2, result.mpaConnections(), out);
    assertEquals(0, result.totals().crcBad(), "bad CRCs: " + out);
    assertTrue(result.totals().crcGood() > 0, out);
    Set<Integer> qids = new HashSet<>();
    for (WireReport.Connection c : result.connections()) {
      byte[] pd = c.request().privateData();
      assertTrue(pd.length >= CmPrivateData.REQUEST_SIZE, out);
      byte[] nvme = Arrays.copyOfRange(pd, pd.length - CmPrivateData.REQUEST_SIZE, pd.length);
      CmPrivateData.Request r = CmPrivateData.parseRequest(nvme);
      assertEquals(0, r.recfmt());
      qids.add(r.qid());
      assertEquals(32, r.hrqsize()); // the admin queue and the default I/O depth
    }
    assertEquals(Set.of(0, 1), qids, "an admin and an I/O queue");
    assertTrue(result.messages(0) > 0, "RDMA Writes: " + out);
    assertTrue(result.messages(1) > 0, "RDMA Read Requests: " + out);
    assertTrue(result.messages(2) > 0, "RDMA Read Responses: " + out);
    assertTrue(result.messages(3) > 0, "Sends: " + out);
    assertTrue(result.messages(4) > 0, "Send with Invalidate: " + out);
    assertEquals(0, result.messages(7), "Terminates: " + out);
  }
}
