package io.iwarp4j.it.hostile;

import static io.iwarp4j.it.hostile.HostilePeer.TAGGED_LAST;
import static io.iwarp4j.it.hostile.HostilePeer.rdmap;
import static io.iwarp4j.it.hostile.HostilePeer.tagged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.ConnectionEvent;
import io.iwarp4j.verbs.ConnectionEventType;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.ProtectionDomain;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.QueuePairConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkQueueFullException;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.io.EOFException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code RdmaDevice.close()} never puts a FIN in the middle of an FPDU (RFC 5044 §7.2): two raw
 * peers stop reading while the device's queue pairs send 256 KiB RDMA Writes, so a Write is
 * partly in each socket when the device closes. The close returns (one bound for everything),
 * and each peer, reading what it was sent, sees whole FPDUs (each CRC checked) ending either in
 * a reset (the abortive close past the bound) or in a FIN exactly at an FPDU boundary, never a
 * clean end of stream inside an FPDU.
 */
@Timeout(120)
class DeviceCloseIT {
  private static final long T = 10;

  @Test
  void deviceCloseWithPeersThatDoNotReadCutsNoFpdu() throws Exception {
    RdmaDevice device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(2).build());
    List<HostilePeer> peers = new ArrayList<>();
    Thread closer;
    try {
      ProtectionDomain pd = device.allocateProtectionDomain();
      CompletionQueue cq = device.createCompletionQueue(64);
      MemoryRegion target = pd.allocate(64, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
      int chunk = 256 * 1024;
      MemoryRegion src = pd.allocate(chunk, AccessFlags.LOCAL_WRITE);
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      BlockingQueue<ConnectionEvent> events = new LinkedBlockingQueue<>();
      RdmaListener listener =
          device.listen(new InetSocketAddress("127.0.0.1", 0), requests::add);
      List<QueuePair> qps = new ArrayList<>();
      for (int c = 0; c < 2; c++) {
        QueuePair qp = device.createQueuePair(pd,
            QueuePairConfig.builder(cq, cq).maxSendWr(4).maxRecvWr(1).build());
        HostilePeer peer = new HostilePeer(listener.localAddress());
        peer.sendRequest();
        ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
        assertNotNull(request, "no connect request");
        request.accept(qp, AcceptParams.builder().eventListener(events::add).build());
        peer.readReply();
        peer.sendFpdu(tagged(TAGGED_LAST, rdmap(0), target.stag(), target.address(),
            new byte[0]));
        ConnectionEvent est = events.poll(T, TimeUnit.SECONDS);
        assertNotNull(est, "not established");
        assertEquals(ConnectionEventType.ESTABLISHED, est.type(), est.toString());
        qps.add(qp);
        peers.add(peer);
      }
      // Fill both connections until neither moves: the peers never read.
      WorkCompletion[] out = {new WorkCompletion()};
      long next = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
      boolean stalled = false;
      while (!stalled) {
        assertTrue(System.nanoTime() < deadline, "the send queues never filled");
        boolean posted = false;
        for (QueuePair qp : qps) {
          try {
            qp.postSend(new SendWorkRequest(1).wrId(next++).opcode(WorkRequestOpcode.RDMA_WRITE)
                .flags(SendFlags.SIGNALED).remote(0x4242_4200, 0).addSge(src, 0, chunk));
            posted = true;
          } catch (WorkQueueFullException e) {
            // this one is full
          }
        }
        if (!posted) {
          if (cq.await(out, 300, TimeUnit.MILLISECONDS) == 0) {
            stalled = true;
          } else {
            assertEquals(WcStatus.SUCCESS, out[0].status(), out[0].toString());
          }
        }
      }
      closer = new Thread(device::close, "device-close");
      closer.start();
    } catch (Throwable t) {
      device.close();
      throw t;
    }
    closer.join(TimeUnit.SECONDS.toMillis(3 * T));
    assertFalse(closer.isAlive(), "RdmaDevice.close() did not return");

    for (HostilePeer peer : peers) {
      int fpdus = 0;
      try {
        while (peer.readFpdu() != null) {
          fpdus++;
        }
        // A FIN exactly at an FPDU boundary: allowed.
      } catch (SocketException reset) {
        // The abortive close past the bound (a RST): allowed.
      } catch (EOFException cut) {
        fail("the stream ended in the middle of an FPDU after " + fpdus + " whole ones: " + cut);
      } finally {
        peer.close();
      }
    }
  }
}
