package io.iwarp4j.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.AcceptParams;
import io.iwarp4j.verbs.AccessFlags;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.ConnectParams;
import io.iwarp4j.verbs.ConnectRequest;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.LocalBuffer;
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
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An RDMA Read whose sink region another thread deregisters while the event loop issues it
 * (found by {@code VerbsModelIT}, seed 1): the issuer checked the sink, then looked its STag up a
 * second time, found nothing and threw a NullPointerException, which failed the Read with
 * LOC_QP_OP_ERR ("the RDMAP endpoint refused a work request") and a stack trace in the log.
 * Documented (api.md, "Deregistering memory that is in use"): LOC_PROT_ERR. The close is made to
 * land in that window without timing: the sink's {@link LocalBuffer} closes its region the
 * second time the event loop asks for its STag.
 */
@Timeout(60)
class ReadSinkClosedWhileIssuedIT {
  private static final long T = 10;

  @Test
  void aReadWhoseSinkIsClosedWhileItIsIssuedFailsWithALocalProtectionError() throws Exception {
    DeviceConfig one = DeviceConfig.builder().eventLoopThreads(1).build();
    try (RdmaDevice server = RdmaDevice.open(one); RdmaDevice client = RdmaDevice.open(one)) {
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add);
      ProtectionDomain spd = server.allocateProtectionDomain();
      ProtectionDomain cpd = client.allocateProtectionDomain();
      CompletionQueue scq = server.createCompletionQueue(16);
      CompletionQueue ccq = client.createCompletionQueue(16);
      QueuePair cqp = client.createQueuePair(cpd, QueuePairConfig.builder(ccq, ccq).build());
      var cf = client.connect(cqp, listener.localAddress(), ConnectParams.builder()
          .peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request);
      QueuePair sqp = server.createQueuePair(spd, QueuePairConfig.builder(scq, scq).build());
      request.accept(sqp, AcceptParams.builder().build()).get(T, TimeUnit.SECONDS);
      cf.get(T, TimeUnit.SECONDS);

      MemoryRegion source = spd.allocate(64, AccessFlags.REMOTE_READ);
      MemoryRegion sink = cpd.allocate(64, AccessFlags.LOCAL_WRITE);
      Thread poster = Thread.currentThread();
      AtomicInteger loopLookups = new AtomicInteger();
      LocalBuffer closedWhileIssued = new LocalBuffer() {
        @Override
        public ByteBuf buffer() {
          return sink.buffer();
        }

        @Override
        public long length() {
          return sink.length();
        }

        @Override
        public int stag() {
          int stag = sink.stag();
          if (Thread.currentThread() != poster && loopLookups.incrementAndGet() == 2) {
            sink.close(); // as another thread would, right after the issuer checked the sink
          }
          return stag;
        }
      };
      cqp.postSend(new SendWorkRequest(1).wrId(7).opcode(WorkRequestOpcode.RDMA_READ)
          .flags(SendFlags.SIGNALED).remote(source.stag(), source.address())
          .addSge(closedWhileIssued, 0, 64));
      WorkCompletion[] wc = {new WorkCompletion()};
      assertEquals(1, ccq.await(wc, T, TimeUnit.SECONDS), "no completion");
      assertTrue(sink.isClosed(), "the sink was not closed while the Read was issued");
      assertEquals(7, wc[0].wrId());
      assertEquals(WcStatus.LOC_PROT_ERR, wc[0].status(), wc[0].toString());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
      while (cqp.state() != QpState.ERROR && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      assertEquals(QpState.ERROR, cqp.state());
    }
  }
}
