package io.iwarp4j.it.hostile;

import static io.iwarp4j.it.hostile.HostilePeer.TAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.UNTAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.rdmap;
import static io.iwarp4j.it.hostile.HostilePeer.tagged;
import static io.iwarp4j.it.hostile.HostilePeer.untagged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QpState;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.Transport;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer that stalls in the middle of an FPDU and stops acknowledging (its host vanished, as
 * far as TCP can tell) loses its connection by {@code DeviceConfig.tcpUserTimeout}, not after
 * TCP's 15 minutes of retransmission: the queue pair goes to ERROR and its posted receives are
 * flushed. The peer is a raw socket on 127.0.0.1; an iptables rule on the loopback drops only
 * its packets to the device (its ACKs), matched by both ports, and is removed afterwards. Needs
 * root, iptables and the epoll transport; skipped (loudly) otherwise.
 */
@Timeout(60)
class TcpUserTimeoutIT {
  private static final long T = 20;
  private static final Duration USER_TIMEOUT = Duration.ofSeconds(1);
  private static final int RECEIVES = 3;

  @Test
  void aStalledPeerThatStopsAcknowledgingIsDroppedByTcpUserTimeout() throws Exception {
    try (RdmaDevice device = RdmaDevice.open(DeviceConfig.builder().transport(Transport.AUTO)
        .eventLoopThreads(1).tcpUserTimeout(USER_TIMEOUT).build())) {
      assumeTrue(device.transport() == Transport.EPOLL,
          "TcpUserTimeoutIT SKIPPED: TCP_USER_TIMEOUT needs the epoll transport");
      ProtectionDomain pd = device.allocateProtectionDomain();
      CompletionQueue cq = device.createCompletionQueue(16);
      MemoryRegion target = pd.allocate(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
      MemoryRegion recv = pd.allocate(4096, AccessFlags.LOCAL_WRITE);
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
      RdmaListener listener = device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
      int listenPort = ((InetSocketAddress) listener.localAddress()).getPort();
      try (HostilePeer peer = new HostilePeer((InetSocketAddress) listener.localAddress())) {
        peer.sendRequest();
        ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
        assertNotNull(request, "no connect request");
        QueuePair qp = device.createQueuePair(pd,
            QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(4).build());
        for (int i = 0; i < RECEIVES; i++) {
          qp.postRecv(new RecvWorkRequest(1).wrId(i).addSge(recv, 64 * i, 64));
        }
        request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
        peer.readReply();
        peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), target.stag(), target.address(), new byte[0]));
        ConnectionEvent established = events.poll(T, TimeUnit.SECONDS);
        assertNotNull(established, "not established");
        assertEquals(ConnectionEventType.ESTABLISHED, established.type(), established.toString());

        // Half of a Send's FPDU, then silence: the device holds a partial FPDU.
        byte[] fpdu = HostilePeer.fpdu(untagged(UNTAGGED_LAST, rdmap(3), 0, 0, 0, 0,
            new byte[48]), false);
        peer.writeRaw(Arrays.copyOf(fpdu, fpdu.length / 2));
        // The peer's host "vanishes": nothing it sends reaches the device any more, ACKs included.
        List<String> rule = List.of("INPUT", "-i", "lo", "-p", "tcp", "--sport",
            String.valueOf(peer.localPort()), "--dport", String.valueOf(listenPort), "-j", "DROP");
        assumeTrue(iptables("-I", rule), "TcpUserTimeoutIT SKIPPED: cannot add an iptables "
            + "rule (run as root with iptables)");
        try {
          long start = System.nanoTime();
          // Data the device sends now goes unacknowledged: TCP_USER_TIMEOUT runs.
          qp.postSend(new SendWorkRequest(1).wrId(100).opcode(WorkRequestOpcode.SEND)
              .flags(SendFlags.SIGNALED).addSge(target, 0, 64));
          ConnectionEvent e;
          do {
            e = events.poll(T, TimeUnit.SECONDS);
            assertNotNull(e, "the connection outlived TCP_USER_TIMEOUT " + USER_TIMEOUT
                + " by " + T + " s");
          } while (e.type() != ConnectionEventType.ERROR
              && e.type() != ConnectionEventType.DISCONNECTED);
          long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          System.out.printf("TcpUserTimeoutIT: connection ended %d ms after the peer went "
              + "silent (TCP_USER_TIMEOUT %s): %s%n", took, USER_TIMEOUT, e);
          assertEquals(QpState.ERROR, qp.state());
          Set<Long> flushed = new HashSet<>();
          WorkCompletion[] out = {new WorkCompletion()};
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
          while (flushed.size() < RECEIVES && System.nanoTime() < deadline) {
            if (cq.await(out, 1, TimeUnit.SECONDS) == 1 && out[0].wrId() < RECEIVES) {
              assertEquals(WcStatus.WR_FLUSH_ERR, out[0].status(), out[0].toString());
              assertTrue(flushed.add(out[0].wrId()), "completed twice: " + out[0]);
            }
          }
          assertEquals(RECEIVES, flushed.size(), "receives flushed: " + flushed);
        } finally {
          iptables("-D", rule);
        }
      }
    }
  }

  private static boolean iptables(String op, List<String> rule) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("iptables", "-w", op));
    cmd.addAll(rule);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes());
      boolean done = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
      if (!done) {
        System.out.println("TcpUserTimeoutIT: " + cmd + ": " + output);
      }
      return done;
    } catch (java.io.IOException noTool) {
      return false;
    }
  }
}
