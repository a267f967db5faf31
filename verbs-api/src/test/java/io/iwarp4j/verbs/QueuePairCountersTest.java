package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.rdmap.RdmapCounters;
import io.iwarp4j.verbs.engine.LifecycleLog;
import io.iwarp4j.wire.RdmapOpcode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue pair's own counters (flushes, error completions, error events) on a hand-run loop,
 * and how {@link CountersSnapshot} reads and names the RDMAP counters.
 */
class QueuePairCountersTest {
  private QpHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void aTerminateCountsOneErrorCompletionTheFlushesAndOneErrorEvent() {
    h = new QpHarness(8, 4, 16).connected();
    h.qp.postSend(h.read(1, SendFlags.SIGNALED));
    h.qp.postSend(h.write(2, 0));
    h.qp.postSend(h.send(3, SendFlags.SIGNALED));
    h.qp.postRecv(h.recv(4));
    h.qp.postRecv(h.recv(5));
    h.loop.runAll();
    h.completeSend(1);
    h.qp.endpointListener().onTerminateReceived(0, 1, 0x02);
    assertEquals(3, h.sendCompletions().size());
    assertEquals(2, h.recvCompletions().size());
    CountersSnapshot c = h.qp.counters(new CountersSnapshot());
    assertEquals(1, c.errorCompletions(), "the Read charged with the Terminate");
    assertEquals(4, c.flushedWorkRequests(), "Write, Send and two receives");
    assertEquals(1, c.errorEvents());
    // Posting after ERROR flushes too.
    h.qp.postRecv(h.recv(6));
    h.loop.runAll();
    assertEquals(1, h.recvCompletions().size());
    assertEquals(5, h.qp.counters(c).flushedWorkRequests());
  }

  @Test
  void snapshotsReadTheRdmapCountersAndReplaceWhatTheyHeld() {
    h = new QpHarness(8, 4, 16).connected();
    RdmapCounters counters = h.qp.rdmapCounters();
    counters.sent(RdmapOpcode.RDMA_WRITE, 4096);
    counters.sent(RdmapOpcode.RDMA_WRITE, 10);
    counters.received(RdmapOpcode.ATOMIC_RESPONSE, 12);
    counters.terminateSent(0, 2, 0xFF, 4);
    counters.terminateReceived(7, 0, 0);
    CountersSnapshot c = new CountersSnapshot();
    assertSame(c, h.qp.counters(c));
    assertSame(c, h.qp.counters(c), "a second fill replaces, it does not add");
    assertEquals(2, c.messagesSent(RdmapMessageType.RDMA_WRITE));
    assertEquals(4106, c.octetsSent(RdmapMessageType.RDMA_WRITE));
    assertEquals(1, c.messagesReceived(RdmapMessageType.ATOMIC_RESPONSE));
    assertEquals(12, c.octetsReceived());
    assertEquals(3, c.messagesSent(), "two Writes and the Terminate");
    assertEquals(1, c.terminatesSent(0, 2, 0xFF));
    assertEquals(1, c.otherTerminatesReceived());
    assertEquals(0, c.otherTerminatesSent());
    assertThrows(IllegalArgumentException.class, () -> c.terminatesReceived(7, 0, 0));
    String s = c.toString();
    assertTrue(s.contains("sent RDMA_WRITE=2/4106"), s);
    assertTrue(s.contains("terminates sent 0/2/0xff=1"), s);
    assertTrue(s.contains("terminates received other=1"), s);
    c.clear();
    assertEquals("{}", c.toString());
  }

  @Test
  void everyMessageTypeHasItsRdmapCode() {
    for (RdmapMessageType t : RdmapMessageType.values()) {
      assertEquals(t.name(), RdmapOpcode.fromCode(t.code()).name(), t.toString());
    }
    assertEquals(RdmapCounters.OPCODES, RdmapMessageType.values().length);
  }

  @Test
  void lifecycleAddressesAreNumeric() throws Exception {
    InetAddress v4 = InetAddress.getByAddress("peer.example", new byte[] {127, 0, 0, 1});
    assertEquals("127.0.0.1:4791", LifecycleLog.address(new InetSocketAddress(v4, 4791)));
    InetAddress v6 = InetAddress.getByAddress("peer.example", new byte[] {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    assertEquals("[0:0:0:0:0:0:0:1]:4791",
        LifecycleLog.address(new InetSocketAddress(v6, 4791)));
    assertEquals("null", LifecycleLog.address(null));
  }
}
