package io.iwarp4j.tools.ping;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.tools.ping.PingStall.Step;
import io.iwarp4j.verbs.RtrType;
import org.junit.jupiter.api.Test;

/**
 * iwarp-ping says exactly what did not arrive when a "go ahead" never comes (issue 22: it used
 * to say "no the server's go ahead after its RDMA Read" when siw had sent nothing at all, not
 * even an RDMA Read).
 */
class PingStallTest {
  private static final String NONE = ": no RDMA Read Request for our start buffer, no Send";

  @Test
  void whatIsAwaited() {
    assertEquals("the server's RDMA Read of our start buffer and its go-ahead Send (ping 0)",
        PingStall.awaited(Step.READ, 0));
    assertEquals("the server's RDMA Write into our sink buffer and its go-ahead Send (ping 7)",
        PingStall.awaited(Step.WRITE, 7));
  }

  @Test
  void silenceAfterTheReplyForEachRtrType() {
    assertEquals("nothing arrived from the server after its MPA Reply" + NONE,
        PingStall.diagnose(Step.READ, null, true, 0, 0));
    assertEquals("nothing arrived from the server after its MPA Reply, not even the zero-length"
        + " Read Response to our Read RTR" + NONE,
        PingStall.diagnose(Step.READ, RtrType.READ, false, 0, 0));
    assertEquals("the server answered our Read RTR (its zero-length Read Response arrived), then"
        + " sent nothing" + NONE, PingStall.diagnose(Step.READ, RtrType.READ, true, 0, 0));
    assertEquals("nothing arrived from the server after its MPA Reply (our WRITE RTR gets no"
        + " answer, so whether the server took it is unknown)" + NONE,
        PingStall.diagnose(Step.READ, RtrType.WRITE, true, 0, 0));
    assertEquals("nothing arrived from the server after its MPA Reply (our SEND RTR gets no"
        + " answer, so whether the server took it is unknown)" + NONE,
        PingStall.diagnose(Step.READ, RtrType.SEND, true, 0, 0));
  }

  @Test
  void partlyAnsweredPings() {
    assertEquals("the server's RDMA Read Request for our start buffer arrived (and was answered),"
        + " its go-ahead Send did not", PingStall.diagnose(Step.READ, RtrType.WRITE, true, 1, 1));
    assertEquals("no RDMA Read Request for our start buffer arrived, and no go-ahead Send",
        PingStall.diagnose(Step.READ, null, true, 6, 0));
    assertEquals("the server's RDMA Write into our sink buffer arrived, its go-ahead Send did not",
        PingStall.diagnose(Step.WRITE, null, true, 3, 1));
    assertEquals("no RDMA Write into our sink buffer arrived, and no go-ahead Send",
        PingStall.diagnose(Step.WRITE, RtrType.READ, true, 2, 0));
  }
}
