package io.iwarp4j.it.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testkit.CompletionAssert;
import io.iwarp4j.testkit.Completions;
import io.iwarp4j.testkit.RdmaTest;
import io.iwarp4j.testkit.ScriptedPeer;
import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer's FIN at an FPDU boundary while our RDMA Read waits for its response is an LLP error,
 * not a graceful close (RFC 5040 §2.4, §6.2, §6.2.1; RFC 5044 §7.2, error 0x01; see
 * docs/conformance.md): a raw peer reads our Read Request, then half-closes. The Read completes
 * FATAL_ERR (not a silent flush), the Send behind it WR_FLUSH_ERR, and the connection reports
 * ERROR then DISCONNECTED. Written with the testkit: the device is injected by {@link RdmaTest},
 * the peer is a {@link ScriptedPeer}.
 */
@Timeout(60)
@RdmaTest(timeoutMillis = 10_000)
class FinWithReadsOutstandingIT {
  private static final long T = 10;

  @Test
  void aFinWithAReadOutstandingFailsTheReadAndReportsAnError(RdmaDevice device)
      throws Exception {
    ProtectionDomain pd = device.allocateProtectionDomain();
    CompletionQueue cq = device.createCompletionQueue(16);
    Completions completions = Completions.of(cq, Duration.ofSeconds(T));
    MemoryRegion sink = pd.allocate(4096,
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
    RdmaListener listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
    QueuePair qp = device.createQueuePair(pd,
        QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(1).build());
    try (ScriptedPeer peer = ScriptedPeer.connect(listener.localAddress())
        .timeout(Duration.ofSeconds(T))) {
      peer.sendRequest(new byte[0]);
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
      peer.readReply();
      peer.sendWrite(sink.stag(), sink.address(), new byte[0]);
      ConnectionEvent est = events.poll(T, TimeUnit.SECONDS);
      assertNotNull(est, "not established");
      assertEquals(ConnectionEventType.ESTABLISHED, est.type(), est.toString());

      qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.RDMA_READ)
          .flags(SendFlags.SIGNALED).remote(0x1234_5600, 0).addSge(sink, 0, 64));
      qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.SEND)
          .flags(SendFlags.SIGNALED).addSge(sink, 64, 8));
      byte[] readRequest = peer.readUlpdu();
      assertEquals(0x41, readRequest[1] & 0xff, "RDMAP Read Request (opcode 1)");
      peer.fin(); // a FIN right after a whole FPDU; the Read is never answered

      List<CompletionAssert> done = completions.next(2);
      done.get(0).hasWrId(1).hasStatus(WcStatus.FATAL_ERR);
      WcStatus send = done.get(1).hasWrId(2).completion().status();
      assertTrue(send == WcStatus.WR_FLUSH_ERR || send == WcStatus.SUCCESS, done.toString());
      List<ConnectionEvent> seen = new ArrayList<>();
      ConnectionEvent e;
      do {
        e = events.poll(T, TimeUnit.SECONDS);
        assertNotNull(e, "no DISCONNECTED: " + seen);
        seen.add(e);
      } while (e.type() != ConnectionEventType.DISCONNECTED);
      assertEquals(ConnectionEventType.ERROR, seen.get(0).type(), seen.toString());
      assertEquals(QpState.ERROR, qp.state());
      // The Send may have left before the FIN arrived; then the device's FIN (or a reset).
      int more = 0;
      while (peer.readUlpduUnlessClosed() != null) {
        more++;
      }
      assertTrue(more <= 1, more + " FPDUs after the Read Request");
    }
  }
}
