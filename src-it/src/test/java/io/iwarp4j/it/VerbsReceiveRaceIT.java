package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.MemoryRegion;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.verbs.RdmaConnection;
import io.iwarp4j.verbs.RdmaListener;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A receive posted with {@code QueuePair.postRecv}, which has returned, catches a Send the peer
 * posts afterwards. postRecv puts the receive in a ring and wakes the connection's event loop;
 * the loop may read the Send before that wake-up ran. Before each socket read is decoded the
 * queue pair hands over what its ring holds ({@code RdmapEndpointListener#beforeReadBatch}), so
 * the Send finds the receive instead of being answered with Terminate 1/2/0x02 (Invalid MSN - no
 * buffer available). Without such a hook this test failed within the first few dozen
 * iterations.
 */
@Timeout(60)
class VerbsReceiveRaceIT {
  @Test
  void aReceivePostedBeforeThePeersSendCatchesIt() throws Exception {
    try (OpsItPeer a = new OpsItPeer(1, 64); OpsItPeer b = new OpsItPeer(1, 64)) {
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = b.device.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add);
      QueuePair qa = a.newQp(4, 4, 1);
      QueuePair qb = b.newQp(4, 4, 1);
      CompletableFuture<RdmaConnection> cf = a.device.connect(qa, listener.localAddress(),
          ConnectParams.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
      ConnectRequest request = requests.poll(10, TimeUnit.SECONDS);
      assertNotNull(request);
      request.accept(qb).get(10, TimeUnit.SECONDS);
      cf.get(10, TimeUnit.SECONDS);
      MemoryRegion src = a.region(64);
      MemoryRegion dst = b.region(64);
      for (int i = 0; i < 1000; i++) {
        qb.postRecv(new RecvWorkRequest(1).wrId(i).addSge(dst, 0, 64));
        qa.postSend(new SendWorkRequest(1).wrId(i).opcode(WorkRequestOpcode.SEND)
            .flags(SendFlags.SIGNALED).addSge(src, 0, 4));
        WorkCompletion r = b.take(1, 10).get(0);
        assertEquals(WcStatus.SUCCESS, r.status(), "iteration " + i + ": " + r);
        assertEquals(WcStatus.SUCCESS, a.take(1, 10).get(0).status());
      }
    }
  }
}
