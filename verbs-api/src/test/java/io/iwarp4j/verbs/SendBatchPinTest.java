package io.iwarp4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An issue batch keeps one pin on the region its work requests send from (see {@link SgePins}):
 * a work request issued after the region was invalidated is still refused, the pin is gone when
 * the batch ends, and an invalidation waiting for it finishes then.
 */
@Timeout(60) // a hang guard only
class SendBatchPinTest {
  private QpHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void noPinIsLeftAfterABatch() {
    h = new QpHarness(8, 4, 16).connected();
    for (int i = 0; i < 5; i++) {
      h.qp.postSend(h.write(i, SendFlags.SIGNALED));
    }
    h.loop.runAll();
    assertEquals(5, h.ep.issued);
    // With a pin left, this would wait out the table's drain timeout and throw.
    assertTrue(h.mr.region().invalidate());
  }

  @Test
  void aWorkRequestIssuedAfterItsRegionWasInvalidatedInTheSameBatchIsRefused() throws Exception {
    h = new QpHarness(8, 4, 16).connected();
    AtomicReference<Throwable> invalidatorFailure = new AtomicReference<>();
    Thread[] invalidator = new Thread[1];
    h.ep.afterIssue = () -> {
      if (h.ep.issued != 1) {
        return;
      }
      // Another thread invalidates the region while the batch holds its pin: it sets INVALID
      // at once, then waits for the pin.
      invalidator[0] = new Thread(() -> {
        try {
          h.mr.region().invalidate();
        } catch (Throwable e) {
          invalidatorFailure.set(e);
        }
      });
      invalidator[0].start();
      while (h.mr.region().isValid()) {
        Thread.onSpinWait();
      }
    };
    h.qp.postSend(h.write(1, SendFlags.SIGNALED));
    h.qp.postSend(h.write(2, SendFlags.SIGNALED));
    h.loop.runAll();
    assertEquals(1, h.ep.issued, "the second Write was not issued");
    assertEquals(QpState.ERROR, h.qp.state());
    List<WorkCompletion> s = h.sendCompletions();
    WorkCompletion second = s.stream().filter(c -> c.wrId() == 2).findFirst().orElseThrow();
    assertEquals(WcStatus.LOC_PROT_ERR, second.status());
    invalidator[0].join(); // the batch released its pin: the invalidation could finish
    assertEquals(null, invalidatorFailure.get());
    assertFalse(h.mr.region().isValid());
  }
}
