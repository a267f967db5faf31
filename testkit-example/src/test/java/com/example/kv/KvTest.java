package com.example.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.iwarp4j.testkit.Endpoint;
import io.iwarp4j.testkit.FaultProxy;
import io.iwarp4j.testkit.RdmaPair;
import io.iwarp4j.testkit.RdmaTest;
import io.iwarp4j.testkit.ScriptedPeer;
import io.iwarp4j.testkit.Terminate;
import io.iwarp4j.testkit.Ulpdus;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The service's tests, written with nothing but iwarp4j-testkit (issue 19, acceptance 1). */
@RdmaTest
class KvTest {
  private static final byte[] GET_K = "k".getBytes(StandardCharsets.UTF_8);

  @Test
  void writeThenReadBack(RdmaPair pair) {
    Endpoint me = pair.client();
    me.region().buffer().setBytes(0, "hello".getBytes(StandardCharsets.UTF_8));
    me.qp().postSend(new SendWorkRequest(1).wrId(1).opcode(WorkRequestOpcode.RDMA_WRITE)
        .flags(SendFlags.SIGNALED).addSge(me.region(), 0, 5)
        .remote(me.remote().stag(), me.remote().address()));
    me.completions().next().isSuccess().hasOpcode(WcOpcode.RDMA_WRITE);
    me.qp().postSend(new SendWorkRequest(1).wrId(2).opcode(WorkRequestOpcode.RDMA_READ)
        .flags(SendFlags.SIGNALED).addSge(me.region(), 100, 5)
        .remote(me.remote().stag(), me.remote().address()));
    me.completions().next().isSuccess().hasOpcode(WcOpcode.RDMA_READ).hasByteLength(5);
    assertEquals("hello", me.region().buffer().toString(100, 5, StandardCharsets.UTF_8));
    me.completions().assertNoneWithin(Duration.ofMillis(20));
  }

  @Test
  void aBadCrcClosesTheConnectionAndFlushesEveryReceive(RdmaDevice device) throws Exception {
    try (KvServer server = KvServer.start(device, Map.of("k", "v"), 4);
        ScriptedPeer peer = ScriptedPeer.connect(server.address())) {
      peer.sendRequest(new byte[0]).readReply();
      peer.sendSend(GET_K);
      assertArrayEquals(Ulpdus.send(1, "v".getBytes(StandardCharsets.UTF_8)), peer.readUlpdu());
      peer.sendBadCrc(Ulpdus.send(2, GET_K));
      peer.expectTerminate(Terminate.LAYER_LLP, 0, 0x02).expectClosed();
      List<WorkCompletion> failed = server.awaitFailedReceives(4, Duration.ofSeconds(1));
      assertEquals(4, failed.size(), "every posted receive completed: " + failed);
      failed.forEach(wc -> assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc.toString()));
    }
  }

  @Test
  void aStalledServerMakesGetTimeOut(RdmaDevice serverDevice, RdmaDevice clientDevice)
      throws Exception {
    try (KvServer server = KvServer.start(serverDevice, Map.of("k", "v"), 4);
        FaultProxy proxy = FaultProxy.to(server.address());
        KvClient client = KvClient.connect(clientDevice, proxy.address(),
            Duration.ofMillis(300))) {
      assertEquals("v", client.get("k"));
      proxy.stall(FaultProxy.Direction.FROM_TARGET);
      assertThrows(TimeoutException.class, () -> client.get("k"));
    }
  }
}
