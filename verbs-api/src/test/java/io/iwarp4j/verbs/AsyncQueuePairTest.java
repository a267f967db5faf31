package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The future-per-operation layer over two real devices. */
@Timeout(30)
class AsyncQueuePairTest {
  private static final long T = Peer.TIMEOUT_SECONDS;

  @Test
  void operationsCompleteTheirFuturesAndFlushesFailThem() throws Exception {
    try (Peer server = new Peer(Transport.AUTO); Peer client = new Peer(Transport.AUTO)) {
      BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
      RdmaListener listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add);
      MemoryRegion target = server.region(1024);
      MemoryRegion inbox = server.region(64);
      MemoryRegion local = client.region(1024);
      AsyncQueuePair saq = AsyncQueuePair.create(server.device, server.pd, 8, 8);
      AsyncQueuePair caq = AsyncQueuePair.create(client.device, client.pd, 8, 8);

      CompletableFuture<WorkCompletion> received = saq.receive(inbox, 0, 64);
      CompletableFuture<WorkCompletion> pendingReceive = saq.receive(inbox, 0, 64);
      CompletableFuture<RdmaConnection> cf = client.device.connect(caq.queuePair(),
          listener.localAddress());
      requests.poll(T, TimeUnit.SECONDS).accept(saq.queuePair());
      cf.get(T, TimeUnit.SECONDS);

      for (int i = 0; i < 512; i++) {
        local.buffer().setByte(i, i ^ 0x3C);
      }
      WorkCompletion sent = caq.send(local, 0, 40).get(T, TimeUnit.SECONDS);
      assertEquals(WcOpcode.SEND, sent.opcode());
      assertEquals(40, received.get(T, TimeUnit.SECONDS).byteLen());

      caq.write(local, 0, 512, target.stag(), target.address()).get(T, TimeUnit.SECONDS);
      WorkCompletion read = caq.read(local, 512, 512, target.stag(), target.address())
          .get(T, TimeUnit.SECONDS);
      assertEquals(512, read.byteLen());
      for (int i = 0; i < 512; i++) {
        assertEquals((byte) (i ^ 0x3C), local.buffer().getByte(512 + i), "octet " + i);
      }

      caq.queuePair().connection().disconnect().get(T, TimeUnit.SECONDS);
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> pendingReceive.get(T, TimeUnit.SECONDS));
      WorkRequestFailedException failed =
          assertInstanceOf(WorkRequestFailedException.class, e.getCause());
      assertEquals(WcStatus.WR_FLUSH_ERR, failed.status());
      assertEquals(0, saq.pendingOperations());
      // In ERROR a post is accepted and flushed; once closed, posting throws.
      e = assertThrows(ExecutionException.class,
          () -> caq.send(local, 0, 1).get(T, TimeUnit.SECONDS));
      assertEquals(WcStatus.WR_FLUSH_ERR,
          ((WorkRequestFailedException) e.getCause()).status());
      caq.close();
      assertEquals(QpState.CLOSED, caq.queuePair().state());
      assertThrows(IllegalStateException.class, () -> caq.send(local, 0, 1));
      saq.close();
    }
  }
}
