package io.iwarp4j.rdmap;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_ATOMIC;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_READ;
import static io.iwarp4j.ddp.mem.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RdmapCounters} as two endpoints count real traffic over MPA framing (EmbeddedChannels):
 * every message type with its octets on both ends, and a Terminate by layer/type/code on both
 * ends with the same octets; plus the Terminate table's slot mapping.
 */
class RdmapCountersTest {
  private static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

  private EndpointPair p;
  private final Regions mem = new Regions(5040);

  @AfterEach
  void tearDown() {
    if (p != null) {
      p.close();
    }
    mem.close();
  }

  private static long tx(RdmapCounters c, RdmapOpcode op) {
    return c.get(RdmapCounters.TX_MESSAGES + op.code());
  }

  private static long txOctets(RdmapCounters c, RdmapOpcode op) {
    return c.get(RdmapCounters.TX_OCTETS + op.code());
  }

  private static long rx(RdmapCounters c, RdmapOpcode op) {
    return c.get(RdmapCounters.RX_MESSAGES + op.code());
  }

  private static long rxOctets(RdmapCounters c, RdmapOpcode op) {
    return c.get(RdmapCounters.RX_OCTETS + op.code());
  }

  @Test
  void everyMessageTypeIsCountedOnBothEnds() {
    p = new EndpointPair(1);
    RdmapCounters a = p.a.endpoint.counters();
    RdmapCounters b = p.b.endpoint.counters();
    MemoryRegion ra = mem.allocate(p.a.pd, 4096, ALL);
    MemoryRegion rb = mem.allocate(p.b.pd, 4096, ALL);
    p.b.endpoint.postReceive(1, mem.scatter(rb, 2048, 256, 1), 1);
    p.b.endpoint.postReceive(2, mem.scatter(rb, 2304, 256, 1), 1);
    p.b.endpoint.postReceive(3, mem.scatter(rb, 2560, 256, 1), 1);
    p.start();
    p.a.endpoint.write(1, rb.stag(), rb.baseTo(), mem.gather(ra, 0, 1000, 2));
    p.a.endpoint.write(2, rb.stag(), rb.baseTo(), mem.gather(ra, 0, 0, 1));
    p.a.endpoint.send(3, RdmapOpcode.SEND, 0, mem.gather(ra, 0, 100, 1));
    p.a.endpoint.send(4, RdmapOpcode.SEND_WITH_SE, 0, mem.gather(ra, 0, 60, 1));
    p.a.endpoint.immediate(5, false, 42);
    p.a.endpoint.read(6, ra.stag(), ra.baseTo() + 1024, 500, rb.stag(), rb.baseTo());
    p.a.endpoint.atomic(7, AtomicOpcode.FETCH_ADD, rb.stag(), rb.baseTo() + 4000, 1, 0, 0, 0,
        ra.stag(), ra.baseTo() + 4000);
    p.a.endpoint.flush();
    p.shuttle();
    assertEquals(7, p.a.events.events.size(), () -> "A's completions: " + p.a.events.events);

    assertEquals(2, tx(a, RdmapOpcode.RDMA_WRITE));
    assertEquals(1000, txOctets(a, RdmapOpcode.RDMA_WRITE));
    assertEquals(2, rx(b, RdmapOpcode.RDMA_WRITE));
    assertEquals(1000, rxOctets(b, RdmapOpcode.RDMA_WRITE));
    for (RdmapOpcode op : new RdmapOpcode[] {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_SE}) {
      assertEquals(1, tx(a, op), op.toString());
      assertEquals(1, rx(b, op), op.toString());
    }
    assertEquals(100, txOctets(a, RdmapOpcode.SEND));
    assertEquals(100, rxOctets(b, RdmapOpcode.SEND));
    assertEquals(60, rxOctets(b, RdmapOpcode.SEND_WITH_SE));
    assertEquals(1, rx(b, RdmapOpcode.IMMEDIATE_DATA));
    assertEquals(8, txOctets(a, RdmapOpcode.IMMEDIATE_DATA));
    assertEquals(8, rxOctets(b, RdmapOpcode.IMMEDIATE_DATA));
    assertEquals(28, txOctets(a, RdmapOpcode.RDMA_READ_REQUEST));
    assertEquals(28, rxOctets(b, RdmapOpcode.RDMA_READ_REQUEST));
    assertEquals(1, tx(b, RdmapOpcode.RDMA_READ_RESPONSE));
    assertEquals(500, txOctets(b, RdmapOpcode.RDMA_READ_RESPONSE));
    assertEquals(500, rxOctets(a, RdmapOpcode.RDMA_READ_RESPONSE));
    assertEquals(52, txOctets(a, RdmapOpcode.ATOMIC_REQUEST));
    assertEquals(52, rxOctets(b, RdmapOpcode.ATOMIC_REQUEST));
    assertEquals(12, txOctets(b, RdmapOpcode.ATOMIC_RESPONSE));
    assertEquals(12, rxOctets(a, RdmapOpcode.ATOMIC_RESPONSE));
    // Nothing else: A sent 7 messages and received 2, B the reverse.
    long[] sumA = new long[RdmapCounters.LENGTH];
    a.addTo(sumA);
    long[] sumB = new long[RdmapCounters.LENGTH];
    b.addTo(sumB);
    assertEquals(7, row(sumA, RdmapCounters.TX_MESSAGES));
    assertEquals(2, row(sumA, RdmapCounters.RX_MESSAGES));
    assertEquals(2, row(sumB, RdmapCounters.TX_MESSAGES));
    assertEquals(7, row(sumB, RdmapCounters.RX_MESSAGES));
    assertEquals(row(sumA, RdmapCounters.TX_OCTETS), row(sumB, RdmapCounters.RX_OCTETS));
    assertEquals(row(sumB, RdmapCounters.TX_OCTETS), row(sumA, RdmapCounters.RX_OCTETS));
    assertEquals(0, row(sumA, RdmapCounters.TERMINATES_SENT, RdmapCounters.TERMINATE_SLOTS));
  }

  @Test
  void aTerminateIsCountedByCodeOnBothEnds() {
    p = new EndpointPair(2);
    RdmapCounters a = p.a.endpoint.counters();
    RdmapCounters b = p.b.endpoint.counters();
    MemoryRegion ra = mem.allocate(p.a.pd, 256, ALL);
    MemoryRegion rb = mem.allocate(p.b.pd, 256, ALL);
    p.start();
    p.a.endpoint.write(1, rb.stag() ^ 0x55, rb.baseTo(), mem.gather(ra, 0, 16, 1));
    p.a.endpoint.flush();
    p.shuttle();
    // DDP Tagged Buffer Error, Invalid STag (RFC 5040 §4.8: 1/1/0x00), with the DDP header.
    int slot = RdmapCounters.terminateSlot(1, 1, 0x00);
    assertEquals(1, b.get(RdmapCounters.TERMINATES_SENT + slot));
    assertEquals(1, a.get(RdmapCounters.TERMINATES_RECEIVED + slot));
    assertEquals(1, tx(b, RdmapOpcode.TERMINATE));
    assertEquals(1, rx(a, RdmapOpcode.TERMINATE));
    // Control 4 + DDP segment length 2 + the 14-octet tagged DDP header it echoes.
    assertEquals(20, txOctets(b, RdmapOpcode.TERMINATE));
    assertEquals(20, rxOctets(a, RdmapOpcode.TERMINATE));
    assertEquals(0, rx(b, RdmapOpcode.RDMA_WRITE), "the refused Write is not counted received");
    assertEquals(1, tx(a, RdmapOpcode.RDMA_WRITE));
  }

  @Test
  void terminateSlotsAreDistinctAndBounded() {
    Set<Integer> seen = new HashSet<>();
    for (int layer = 0; layer < RdmapCounters.TERMINATE_LAYERS; layer++) {
      for (int type = 0; type < RdmapCounters.TERMINATE_TYPES; type++) {
        for (int code : new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xFF}) {
          int slot = RdmapCounters.terminateSlot(layer, type, code);
          assertNotEquals(RdmapCounters.TERMINATE_SLOTS - 1, slot);
          assertEquals(true, seen.add(slot), layer + "/" + type + "/" + code);
        }
      }
    }
    int other = RdmapCounters.TERMINATE_SLOTS - 1;
    assertEquals(other, RdmapCounters.terminateSlot(3, 0, 0));
    assertEquals(other, RdmapCounters.terminateSlot(0, 3, 0));
    assertEquals(other, RdmapCounters.terminateSlot(0, 0, 0x0A));
    assertEquals(other, RdmapCounters.terminateSlot(0, 0, 0x10));
    assertEquals(RdmapCounters.TERMINATE_SLOTS - 1, seen.size());
    assertEquals(other, RdmapCounters.terminateSlot(-1, 0, 0));
  }

  @Test
  void errorCountersAdd() {
    RdmapCounters c = new RdmapCounters();
    c.flushed(3);
    c.errorCompletion();
    c.errorEvent();
    c.errorEvent();
    assertEquals(3, c.get(RdmapCounters.FLUSHED));
    assertEquals(1, c.get(RdmapCounters.ERROR_COMPLETIONS));
    assertEquals(2, c.get(RdmapCounters.ERROR_EVENTS));
    long[] into = new long[RdmapCounters.LENGTH];
    into[RdmapCounters.FLUSHED] = 10;
    c.addTo(into);
    assertEquals(13, into[RdmapCounters.FLUSHED], "addTo adds");
  }

  private static long row(long[] v, int start) {
    return row(v, start, RdmapCounters.OPCODES);
  }

  private static long row(long[] v, int start, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += v[start + i];
    }
    return s;
  }
}
