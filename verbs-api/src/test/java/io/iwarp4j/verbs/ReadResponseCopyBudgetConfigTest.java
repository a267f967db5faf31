package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link DeviceConfig#readResponseCopyBudget()} reaches the Data Source of a real connection
 * over 127.0.0.1, together with the negotiated CRC: with CRC on a Read Response is a snapshot,
 * with a zero budget it falls back to zero-copy (counted), with CRC off it is zero-copy. The
 * responder's counters say which; the requester gets the right octets every time.
 */
@Timeout(60)
class ReadResponseCopyBudgetConfigTest {
  private static final long T = Peer.TIMEOUT_SECONDS;
  private static final int SIZE = 4096;

  @Test
  void theDefaultIs64MibAndANegativeBudgetIsRefused() {
    assertEquals(64L << 20, DeviceConfig.defaults().readResponseCopyBudget());
    assertEquals(0, DeviceConfig.builder().readResponseCopyBudget(0).build()
        .readResponseCopyBudget());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DeviceConfig.builder().readResponseCopyBudget(-1));
    assertTrue(e.getMessage().contains("readResponseCopyBudget"), e.getMessage());
  }

  @Test
  void withCrcOnTheResponderSendsASnapshot() throws Exception {
    CountersSnapshot c = readOnce(true, DeviceConfig.defaults().readResponseCopyBudget());
    assertEquals(1, c.readResponseSnapshots(), c.toString());
    assertEquals(0, c.readResponseZeroCopyFallbacks(), c.toString());
  }

  @Test
  void withCrcOnAndNoBudgetTheResponderFallsBackToZeroCopy() throws Exception {
    CountersSnapshot c = readOnce(true, 0);
    assertEquals(0, c.readResponseSnapshots(), c.toString());
    assertEquals(1, c.readResponseZeroCopyFallbacks(), c.toString());
  }

  @Test
  void withCrcOffTheResponderSendsZeroCopy() throws Exception {
    CountersSnapshot c = readOnce(false, DeviceConfig.defaults().readResponseCopyBudget());
    assertEquals(0, c.readResponseSnapshots(), c.toString());
    assertEquals(0, c.readResponseZeroCopyFallbacks(), c.toString());
  }

  /** The client reads SIZE octets from the server; returns the server's queue pair counters. */
  private static CountersSnapshot readOnce(boolean crc, long budget) throws Exception {
    DeviceConfig config = DeviceConfig.builder().eventLoopThreads(1)
        .mpaSettings(MpaSettings.builder().crc(crc).build())
        .readResponseCopyBudget(budget).build();
    BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    try (Peer server = new Peer(config); Peer client = new Peer(config)) {
      RdmaListener listener = server.device.listen(new InetSocketAddress("127.0.0.1", 0),
          requests::add);
      MemoryRegion source = server.region(SIZE);
      MemoryRegion sink = client.region(SIZE);
      for (int i = 0; i < SIZE; i++) {
        source.buffer().setByte(i, i * 31 + 7);
      }
      QueuePair cqp = client.newQp();
      CompletableFuture<RdmaConnection> cf = client.device.connect(cqp, listener.localAddress());
      ConnectRequest request = requests.poll(T, TimeUnit.SECONDS);
      assertNotNull(request, "no connect request");
      QueuePair sqp = server.newQp();
      request.accept(sqp, AcceptParams.builder().build());
      RdmaConnection connection = cf.get(T, TimeUnit.SECONDS);
      assertEquals(crc, connection.mpaInfo().crc(), "negotiated CRC");
      cqp.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.RDMA_READ)
          .flags(SendFlags.SIGNALED).remote(source.stag(), source.address())
          .addSge(sink, 0, SIZE));
      WorkCompletion wc = client.nextCompletion();
      assertTrue(wc.isSuccess(), wc.toString());
      assertEquals(SIZE, wc.byteLen());
      for (int i = 0; i < SIZE; i++) {
        assertEquals((byte) (i * 31 + 7), sink.buffer().getByte(i), "read octet " + i);
      }
      // The responder counted before it sent the response the client has now received.
      return sqp.counters(new CountersSnapshot());
    }
  }
}
