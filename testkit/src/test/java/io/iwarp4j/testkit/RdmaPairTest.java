package io.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.PollMode;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What {@link RdmaExtension} injects, and that it is connected and configured as asked. */
@RdmaTest
class RdmaPairTest {
  private RdmaPair fieldPair;
  private RdmaDevice fieldDevice;

  @Test
  void writeThenReadBackAcrossThePair(RdmaPair pair) {
    Endpoint client = pair.client();
    Endpoint server = pair.server();
    byte[] data = "written by the client".getBytes(StandardCharsets.US_ASCII);
    client.region().buffer().setBytes(0, data);
    client.qp().postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).addSge(client.region(), 0, data.length)
        .remote(client.remote().stag(), client.remote().address()));
    client.completions().next().isSuccess().hasWrId(1).hasOpcode(WcOpcode.RDMA_WRITE);
    client.qp().postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).addSge(client.region(), 100, data.length)
        .remote(client.remote().stag(), client.remote().address()));
    client.completions().next().isSuccess().hasWrId(2).hasOpcode(WcOpcode.RDMA_READ)
        .hasByteLength(data.length);
    byte[] placed = new byte[data.length];
    server.region().buffer().getBytes(0, placed);
    assertArrayEquals(data, placed, "the Write was placed in the server's region");
    byte[] read = new byte[data.length];
    client.region().buffer().getBytes(100, read);
    assertArrayEquals(data, read, "the Read brought it back");
    server.completions().assertNoneWithin(Duration.ofMillis(20));
  }

  @Test
  void eachEndKnowsTheOtherEndsRegion(RdmaPair pair) {
    assertEquals(pair.server().region().remote(), pair.client().remote());
    assertEquals(pair.client().region().remote(), pair.server().remote());
    assertTrue(pair.client().connection().isInitiator());
    assertFalse(pair.server().connection().isInitiator());
    assertThrows(IllegalStateException.class, pair::proxy, "no proxy unless asked for");
  }

  @Test
  void sendAndReceive(RdmaPair pair) {
    Endpoint client = pair.client();
    Endpoint server = pair.server();
    server.qp().postRecv(new RecvWorkRequest(1).wrId(10).addSge(server.region(), 0, 64));
    client.region().buffer().setBytes(0, new byte[] {1, 2, 3});
    client.qp().postSend(new SendWorkRequest(1).wrId(11).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(client.region(), 0, 3));
    client.completions().next().isSuccess().hasOpcode(WcOpcode.SEND);
    server.completions().next().isSuccess().hasWrId(10).hasOpcode(WcOpcode.RECV)
        .hasByteLength(3).isSolicited(false).hasNoImmediateData();
  }

  @Test
  void fieldsAndParametersShareOnePairAndDevicesAreFresh(RdmaPair pair, RdmaDevice device) {
    assertSame(fieldPair, pair);
    assertNotSame(fieldDevice, device);
    assertFalse(device.isClosed());
    assertFalse(fieldDevice.isClosed());
  }

  @Test
  @RdmaTest(crc = false, ird = 2, ord = 2, sendQueueDepth = 5, recvQueueDepth = 6, maxSge = 2,
      cqCapacity = 32, regionSize = 4096, pollMode = PollMode.BUSY_POLL, timeoutMillis = 3000)
  void theMethodsAnnotationConfiguresThePair(RdmaPair pair) {
    for (Endpoint e : new Endpoint[] {pair.client(), pair.server()}) {
      assertFalse(e.connection().mpaInfo().crc(), e.name() + ": CRC");
      assertEquals(2, e.connection().ird(), e.name() + ": IRD");
      assertEquals(2, e.connection().ord(), e.name() + ": ORD (min of own ORD, peer IRD)");
      assertTrue(e.qp().capabilities().maxSendWr() >= 5, e.name() + ": send queue");
      assertTrue(e.qp().capabilities().maxRecvWr() >= 6, e.name() + ": receive queue");
      assertEquals(32, e.cq().capacity(), e.name() + ": CQ");
      assertEquals(4096, e.region().length(), e.name() + ": region");
      assertEquals(PollMode.BUSY_POLL, e.device().config().pollMode(), e.name());
      assertEquals(4096, e.remote().length(), e.name() + ": remote region");
    }
  }

  @Test
  @RdmaTest(markers = true)
  void markersCanBeNegotiated(RdmaPair pair) {
    assertTrue(pair.client().connection().mpaInfo().markersOut());
    assertTrue(pair.client().connection().mpaInfo().markersIn());
    writeThenReadBackAcrossThePair(pair);
  }
}
