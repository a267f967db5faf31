package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link QueuePair#reset()} (ERROR to RESET to INIT, then a new connection) and {@link
 * QueuePair#query()} on a hand-run loop and fake endpoints: the states reset is refused in,
 * every work request completing exactly once across the reset, and a second connection carrying
 * traffic.
 */
class QueuePairResetTest {
  private QpHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void resetIsRefusedInEveryStateButErrorNamingTheState() {
    h = new QpHarness(4, 4, 16);
    assertRefused(QpState.INIT);
    h.attached();
    assertRefused(QpState.RTR);
    assertTrue(h.qp.binding().enableSend());
    assertRefused(QpState.RTS);
    h.qp.close();
    assertRefused(QpState.CLOSED);
  }

  private void assertRefused(QpState expected) {
    assertEquals(expected, h.qp.state());
    IllegalStateException e = assertThrows(IllegalStateException.class, h.qp::reset);
    assertTrue(e.getMessage().contains("in state " + expected), e.getMessage());
    assertEquals(expected, h.qp.state(), "a refused reset changes nothing");
  }

  @Test
  void everyWorkRequestCompletesExactlyOnceAcrossTheReset() {
    h = new QpHarness(8, 8, 64).connected();
    // Issued and waiting sends, handed receives.
    h.qp.postSend(h.write(1, SendFlags.SIGNALED));
    h.qp.postSend(h.read(2, SendFlags.SIGNALED));
    h.qp.postSend(h.send(3, 0));
    h.qp.postRecv(h.recv(11));
    h.qp.postRecv(h.recv(12));
    h.loop.runAll();
    h.completeSend(h.ep.tokens[0]); // wrId 1 succeeds
    h.qp.modifyToError();
    h.loop.runAll();
    assertEquals(QpState.ERROR, h.qp.state());
    // Posted in ERROR and not drained yet: reset must flush them, once.
    h.qp.postSend(h.send(4, SendFlags.SIGNALED));
    h.qp.postRecv(h.recv(13));

    h.qp.reset();

    assertEquals(QpState.INIT, h.qp.state());
    assertEquals(0, h.qp.outstandingSends());
    assertEquals(0, h.qp.outstandingReceives());
    Map<Long, List<WcStatus>> byWrId = new HashMap<>();
    for (WorkCompletion wc : h.sendCompletions()) {
      byWrId.computeIfAbsent(wc.wrId(), k -> new ArrayList<>()).add(wc.status());
    }
    for (WorkCompletion wc : h.recvCompletions()) {
      byWrId.computeIfAbsent(wc.wrId(), k -> new ArrayList<>()).add(wc.status());
    }
    assertEquals(List.of(WcStatus.SUCCESS), byWrId.get(1L));
    for (long id : new long[] {2, 3, 4, 11, 12, 13}) {
      assertEquals(List.of(WcStatus.WR_FLUSH_ERR), byWrId.get(id), "wrId " + id);
    }
    assertEquals(7, byWrId.size());
    // Late reports from the old endpoint and the old drain task produce nothing more.
    h.loop.runAll();
    h.qp.endpointListener().onSendComplete(h.ep.tokens[1]);
    h.qp.endpointListener().onReceive(0, io.iwarp4j.wire.RdmapOpcode.SEND, 8, 0);
    assertTrue(h.sendCompletions().isEmpty());
    assertTrue(h.recvCompletions().isEmpty());
  }

  @Test
  void aResetQueuePairConnectsAgainAndCarriesTraffic() {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.postSend(h.send(1, SendFlags.SIGNALED));
    h.loop.runAll();
    h.qp.endpointListener().onDisconnected(false); // the peer went away
    assertEquals(QpState.ERROR, h.qp.state());
    h.qp.reset();
    assertEquals(1, h.sendCompletions().size());
    assertNull(h.qp.endpoint());
    assertNull(h.qp.loop());

    // Receives may be posted in INIT again, before the next connection.
    h.qp.postRecv(h.recv(21));
    ManualLoop loop2 = new ManualLoop();
    FakeEndpoint ep2 = new FakeEndpoint();
    h.qp.binding().bindLoop(loop2);
    assertTrue(h.qp.binding().attach(ep2, (q, t, r) -> { }, null));
    assertTrue(h.qp.binding().enableSend());
    assertEquals(1, ep2.receives, "the receive posted in INIT went to the new endpoint");
    h.qp.postSend(h.write(22, SendFlags.SIGNALED));
    loop2.runAll();
    assertEquals(1, ep2.issued);
    assertEquals(FakeEndpoint.WRITE, ep2.kinds[0]);
    assertEquals(1, h.ep.issued, "nothing more went to the old endpoint");
    h.qp.endpointListener().onSendComplete(ep2.tokens[0]);
    h.qp.endpointListener().onCompletionsReported();
    loop2.runAll();
    List<WorkCompletion> wcs = h.sendCompletions();
    assertEquals(1, wcs.size());
    assertEquals(22, wcs.get(0).wrId());
    assertEquals(WcStatus.SUCCESS, wcs.get(0).status());
    h.qp.endpointListener().onReceive(ep2.receiveIds[0], io.iwarp4j.wire.RdmapOpcode.SEND, 5, 0);
    List<WorkCompletion> recvs = h.recvCompletions();
    assertEquals(1, recvs.size());
    assertEquals(21, recvs.get(0).wrId());
    assertEquals(WcStatus.SUCCESS, recvs.get(0).status());
    h.qp.close();
    loop2.runAll();
  }

  @Test
  void aQueuePairCanBeResetManyTimes() {
    h = new QpHarness(4, 4, 16);
    for (int i = 0; i < 100; i++) {
      ManualLoop l = new ManualLoop();
      FakeEndpoint ep = new FakeEndpoint();
      h.qp.binding().bindLoop(l);
      assertTrue(h.qp.binding().attach(ep, (q, t, r) -> { }, null), "round " + i);
      assertTrue(h.qp.binding().enableSend());
      h.qp.postRecv(h.recv(i));
      h.qp.postSend(h.send(i, SendFlags.SIGNALED));
      l.runAll();
      h.qp.endpointListener().onSendComplete(ep.tokens[0]);
      h.qp.binding().disconnect();
      h.qp.reset();
      l.runAll();
      assertEquals(QpState.INIT, h.qp.state());
      List<WorkCompletion> s = h.sendCompletions();
      List<WorkCompletion> r = h.recvCompletions();
      assertEquals(1, s.size(), "round " + i);
      assertEquals(WcStatus.SUCCESS, s.get(0).status());
      assertEquals(1, r.size(), "round " + i);
      assertEquals(WcStatus.WR_FLUSH_ERR, r.get(0).status());
    }
  }

  @Test
  void aQueuePairErroredBeforeAnyConnectionResets() {
    h = new QpHarness(4, 4, 16);
    h.qp.postRecv(h.recv(41));
    h.qp.binding().bindLoop(h.loop);
    h.qp.binding().connectionFailed("refused");
    assertEquals(QpState.ERROR, h.qp.state());
    h.qp.reset();
    assertEquals(QpState.INIT, h.qp.state());
    assertEquals(1, h.recvCompletions().size(), "flushed once, at the failure");
    h.qp.binding().bindLoop(h.loop); // a new attempt may bind again
    assertTrue(h.qp.binding().attach(h.ep, (q, t, r) -> { }, null));
  }

  @Test
  void resetFromAnotherThreadRunsOnTheLoop() throws Exception {
    h = new QpHarness(4, 4, 16).connected();
    h.qp.modifyToError();
    h.loop.runAll();
    Throwable[] failure = new Throwable[1];
    Thread t = new Thread(() -> {
      try {
        h.qp.reset();
      } catch (Throwable e) {
        failure[0] = e;
      }
    });
    t.start();
    while (t.isAlive()) {
      h.loop.runAll();
      t.join(1);
    }
    h.loop.runAll();
    assertNull(failure[0]);
    assertEquals(QpState.INIT, h.qp.state());
  }

  @Test
  void queryShowsTheConnectionAndResetWaitsForItToClose() {
    h = new QpHarness(4, 4, 16);
    io.netty.channel.embedded.EmbeddedChannel channel =
        new io.netty.channel.embedded.EmbeddedChannel();
    io.iwarp4j.mpa.MpaPeerParameters peer = new io.iwarp4j.mpa.MpaPeerParameters(2, false, true,
        false, true, true, java.util.EnumSet.of(io.iwarp4j.mpa.RtrType.SEND), 4, 2, new byte[0]);
    RdmaConnection conn = new RdmaConnection(h.qp, channel, new io.iwarp4j.mpa.MpaConnectionInfo(
        true, 2, true, true, false, false, true, io.iwarp4j.mpa.RtrType.SEND, 4, 2, peer, 1024),
        3, 2, null);
    h.qp.binding().bindLoop(h.loop);
    assertTrue(h.qp.binding().attach(h.ep, conn.sink(), conn));
    assertTrue(h.qp.binding().enableSend());
    QueuePairAttributes a = h.qp.query();
    assertEquals(QpState.RTS, a.state());
    assertTrue(a.hasConnection());
    assertEquals(3, a.ird());
    assertEquals(2, a.ord());
    assertTrue(a.crc());
    assertFalse(a.markers());
    assertEquals(2, a.mpaRevision());
    assertTrue(a.peerToPeer());
    assertEquals(RtrType.SEND, a.rtrType());
    assertEquals(channel.remoteAddress(), a.remoteAddress());

    h.qp.modifyToError();
    h.loop.runAll();
    assertEquals(QpState.ERROR, h.qp.state());
    assertTrue(h.qp.query().hasConnection(), "the attributes stay until reset");
    // On the loop, reset cannot wait for the connection to close.
    IllegalStateException e = assertThrows(IllegalStateException.class, h.qp::reset);
    assertTrue(e.getMessage().contains("still closing"), e.getMessage());
    assertEquals(QpState.ERROR, h.qp.state());
    conn.closeFuture().complete(null);
    h.qp.reset();
    assertEquals(QpState.INIT, h.qp.state());
    assertFalse(h.qp.query().hasConnection());
    assertNull(h.qp.connection());

    // The old connection's disconnect() closes its own channel and leaves the queue pair alone.
    conn.disconnect();
    channel.runPendingTasks();
    assertFalse(channel.isOpen());
    assertEquals(QpState.INIT, h.qp.state());
    h.loop.runAll();
    assertEquals(QpState.INIT, h.qp.state());
  }

  @Test
  void queryShowsTheStateAndCapabilitiesWithoutAConnection() {
    h = new QpHarness(4, 8, 16);
    QueuePairAttributes a = h.qp.query();
    assertEquals(7, a.qpNumber());
    assertEquals(QpState.INIT, a.state());
    assertSame(h.qp.capabilities(), a.capabilities());
    assertEquals(4, a.capabilities().maxSendWr());
    assertEquals(8, a.capabilities().maxRecvWr());
    assertFalse(a.hasConnection());
    assertEquals(-1, a.ird());
    assertEquals(-1, a.ord());
    assertFalse(a.crc());
    assertFalse(a.markers());
    assertEquals(-1, a.mpaRevision());
    assertNull(a.rtrType());
    assertNull(a.localAddress());
    h.connected();
    assertEquals(QpState.RTS, h.qp.query().state());
    assertEquals(QpState.INIT, a.state(), "a snapshot does not change");
  }
}
