package io.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.WcOpcode;
import io.iwarp4j.verbs.WcStatus;
import io.iwarp4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Completion waits and assertions, on a completion queue the test fills itself. Under the
 * extension (though it injects nothing here) so that the leak check is installed whichever
 * test class of this module runs first.
 */
@ExtendWith(RdmaExtension.class)
class CompletionsTest {
  private final CompletionQueue cq = new CompletionQueue(16);
  private final Completions completions = Completions.of(cq, Duration.ofMillis(50));

  @AfterEach
  void close() {
    cq.close();
  }

  private void complete(long wrId, WcStatus status, WcOpcode opcode, long len) {
    assertTrue(cq.offer(new WorkCompletion().wrId(wrId).status(status).opcode(opcode)
        .byteLen(len)));
  }

  @Test
  void nextReturnsTheCompletionAndEveryAssertionPassesOnAMatch() {
    cq.offer(new WorkCompletion().wrId(3).status(WcStatus.SUCCESS)
        .opcode(WcOpcode.RECV_IMMEDIATE_DATA).byteLen(8).immData(0xFEEDL).solicited(true)
        .invalidatedStag(0x1234));
    CompletionAssert a = completions.next().isSuccess().hasWrId(3)
        .hasOpcode(WcOpcode.RECV_IMMEDIATE_DATA).hasByteLength(8).hasImmediateData(0xFEEDL)
        .isSolicited(true).hasInvalidatedStag(0x1234);
    assertEquals(3, a.completion().wrId());
    completions.assertNone();
  }

  @Test
  void eachAssertionFailsOnAMismatchNamingTheCompletion() {
    complete(5, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
    CompletionAssert a = completions.next().isFlushed();
    for (Runnable wrong : List.<Runnable>of(a::isSuccess, () -> a.hasWrId(6),
        () -> a.hasOpcode(WcOpcode.SEND), () -> a.hasByteLength(1),
        () -> a.hasImmediateData(0), () -> a.isSolicited(true),
        () -> a.hasInvalidatedStag(1), () -> a.hasStatus(WcStatus.REM_OP_ERR))) {
      AssertionError e = assertThrows(AssertionError.class, wrong::run);
      assertTrue(e.getMessage().contains("wrId=5") || e.getMessage().contains("5"),
          e.getMessage());
    }
    a.hasNoImmediateData();
  }

  @Test
  void nextFailsWhenNothingCompletesInTime() {
    AssertionError e = assertThrows(AssertionError.class, completions::next);
    assertTrue(e.getMessage().contains("no completion"), e.getMessage());
  }

  @Test
  void severalInOrderOrAFailureSayingHowManyCame() {
    complete(1, WcStatus.SUCCESS, WcOpcode.SEND, 0);
    complete(2, WcStatus.SUCCESS, WcOpcode.SEND, 0);
    List<CompletionAssert> two = completions.next(2);
    two.get(0).hasWrId(1);
    two.get(1).hasWrId(2);
    complete(3, WcStatus.SUCCESS, WcOpcode.SEND, 0);
    AssertionError e = assertThrows(AssertionError.class, () -> completions.next(2));
    assertTrue(e.getMessage().startsWith("only 1 of 2"), e.getMessage());
  }

  @Test
  void nothingElseCompletedAndItsFailure() {
    completions.assertNoneWithin(Duration.ofMillis(10));
    complete(9, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0);
    AssertionError e = assertThrows(AssertionError.class,
        () -> completions.assertNoneWithin(Duration.ofMillis(10)));
    assertTrue(e.getMessage().contains("unexpected completion"), e.getMessage());
    complete(10, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0);
    assertThrows(AssertionError.class, completions::assertNone);
    complete(11, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0);
    complete(12, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0);
    assertEquals(2, completions.drain().size());
  }

  @Test
  void aNegativeTimeoutIsRefused() {
    assertThrows(IllegalArgumentException.class,
        () -> Completions.of(cq, Duration.ofMillis(-1)));
  }
}
