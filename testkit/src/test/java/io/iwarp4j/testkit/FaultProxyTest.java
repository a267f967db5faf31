package io.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testkit.FaultProxy.Direction;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WorkRequestOpcode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every fault of the proxy, on a pair connected through it. */
@RdmaTest(viaProxy = true)
class FaultProxyTest {
  private static final Duration QUIET = Duration.ofMillis(100);

  /** {@code to} posts a receive, {@code from} sends 8 octets; returns after the send completed. */
  private static void send(Endpoint from, Endpoint to, long id) {
    to.qp().postRecv(new RecvWorkRequest(1).wrId(id).addSge(to.region(), 0, 64));
    from.qp().postSend(new SendWorkRequest(1).wrId(id).opcode(WorkRequestOpcode.SEND)
        .flags(SendFlags.SIGNALED).addSge(from.region(), 0, 8));
    from.completions().next().isSuccess().hasWrId(id);
  }

  @Test
  void trafficFlowsThroughTheProxyAndIsCounted(RdmaPair pair) {
    FaultProxy proxy = pair.proxy();
    proxy.awaitConnections(1, Duration.ofSeconds(1));
    long before = proxy.forwarded(Direction.TO_TARGET);
    send(pair.client(), pair.server(), 1);
    pair.server().completions().next().isSuccess().hasOpcode(WcOpcode.RECV).hasByteLength(8);
    // One FPDU: 2 + 18 (DDP/RDMAP header) + 8 + 0 pad + 4 (CRC).
    proxy.awaitForwarded(Direction.TO_TARGET, before + 32, Duration.ofSeconds(1));
    assertTrue(proxy.toString().contains("->"));
  }

  @Test
  void aDelayHoldsEachChunkBack(RdmaPair pair) {
    pair.proxy().delay(Direction.TO_TARGET, Duration.ofMillis(400));
    send(pair.client(), pair.server(), 1);
    pair.server().completions().assertNoneWithin(QUIET);
    pair.server().completions().next().isSuccess().hasWrId(1);
    pair.proxy().delay(Direction.TO_TARGET, Duration.ZERO);
    send(pair.client(), pair.server(), 2);
    pair.server().completions().next().isSuccess().hasWrId(2);
  }

  @Test
  void aStalledDirectionForwardsNothingUntilResumed(RdmaPair pair) {
    FaultProxy proxy = pair.proxy();
    proxy.stall(Direction.FROM_TARGET);
    send(pair.server(), pair.client(), 1);
    pair.client().completions().assertNoneWithin(QUIET);
    send(pair.client(), pair.server(), 2);
    pair.server().completions().next().isSuccess().hasWrId(2);
    proxy.resume(Direction.FROM_TARGET);
    pair.client().completions().next().isSuccess().hasWrId(1);
  }

  @Test
  void aStallAfterSomeOctetsStopsInTheMiddleOfAnFpdu(RdmaPair pair) {
    FaultProxy proxy = pair.proxy();
    long before = proxy.forwarded(Direction.TO_TARGET);
    proxy.stallAfter(Direction.TO_TARGET, 5);
    send(pair.client(), pair.server(), 1);
    proxy.awaitForwarded(Direction.TO_TARGET, before + 5, Duration.ofSeconds(1));
    pair.server().completions().assertNoneWithin(QUIET);
    assertEquals(before + 5, proxy.forwarded(Direction.TO_TARGET));
    proxy.resume(Direction.TO_TARGET);
    pair.server().completions().next().isSuccess().hasWrId(1);
  }

  @Test
  void closingTheConnectionFlushesBothEnds(RdmaPair pair) {
    pair.client().qp().postRecv(new RecvWorkRequest(1).wrId(1)
        .addSge(pair.client().region(), 0, 8));
    pair.server().qp().postRecv(new RecvWorkRequest(1).wrId(2)
        .addSge(pair.server().region(), 0, 8));
    pair.proxy().closeConnections();
    pair.client().completions().next().isFlushed().hasWrId(1);
    pair.server().completions().next().isFlushed().hasWrId(2);
  }

  @Test
  void resettingTheConnectionFlushesBothEnds(RdmaPair pair) {
    pair.client().qp().postRecv(new RecvWorkRequest(1).wrId(1)
        .addSge(pair.client().region(), 0, 8));
    pair.server().qp().postRecv(new RecvWorkRequest(1).wrId(2)
        .addSge(pair.server().region(), 0, 8));
    pair.proxy().resetConnections();
    pair.client().completions().next().isFlushed().hasWrId(1);
    pair.server().completions().next().isFlushed().hasWrId(2);
  }

  @Test
  void waitsThatAreNotMetFailAndBadArgumentsAreRefused(RdmaPair pair) {
    FaultProxy proxy = pair.proxy();
    AssertionError e = assertThrows(AssertionError.class,
        () -> proxy.awaitForwarded(Direction.FROM_TARGET, Long.MAX_VALUE, Duration.ofMillis(10)));
    assertTrue(e.getMessage().contains("octets forwarded FROM_TARGET"), e.getMessage());
    assertThrows(AssertionError.class, () -> proxy.awaitConnections(2, Duration.ofMillis(10)));
    assertThrows(IllegalArgumentException.class,
        () -> proxy.delay(Direction.TO_TARGET, Duration.ofMillis(-1)));
    assertThrows(IllegalArgumentException.class,
        () -> proxy.stallAfter(Direction.TO_TARGET, -1));
  }
}
