package io.iwarp4j.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.verbs.CompletionChannel;
import io.iwarp4j.verbs.CompletionQueue;
import io.iwarp4j.verbs.DeviceConfig;
import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --busy-poll} and {@code -e}: parsed, carried to both roles of loopback mode, exclusive;
 * and the waiter of each kind returns 0 on an empty queue when its time is up.
 */
class PerfWaitOptionsTest {
  @ParameterizedTest
  @CsvSource({"'', PARKED", "--busy-poll, BUSY_POLL", "--busy_poll, BUSY_POLL", "-e, EVENTS",
      "--events, EVENTS"})
  void theWaitKindReachesBothLoopbackRoles(String option, CompletionWaiter.Kind kind)
      throws UsageException {
    String[] args = option.isEmpty() ? new String[] {"loopback", "send_lat"}
        : new String[] {"loopback", "send_lat", option};
    PerfOptions o = PerfOptions.parse(args);
    assertEquals(kind, o.waitKind());
    assertEquals(kind, o.loopbackServer().waitKind());
    assertEquals(kind, o.loopbackClient(1).waitKind());
  }

  @Test
  void busyPollAndEventsExcludeEachOther() {
    UsageException e = assertThrows(UsageException.class,
        () -> PerfOptions.parse(new String[] {"send_lat", "--busy-poll", "-e"}));
    assertTrue(e.getMessage().contains("exclude each other"), e.getMessage());
    assertTrue(PerfOptions.USAGE.contains("--busy-poll") && PerfOptions.USAGE.contains("--events"));
  }

  @Test
  void runToCompletionReachesBothLoopbackRolesForSendLatOnly() throws UsageException {
    assertFalse(PerfOptions.parse(new String[] {"loopback", "send_lat"}).runToCompletion());
    for (String flag : new String[] {"--run-to-completion", "--rtc"}) {
      for (String wait : new String[] {"--busy-poll", "--no-progress"}) {
        PerfOptions o = PerfOptions.parse(new String[] {"loopback", "send_lat", flag, wait});
        assertTrue(o.runToCompletion());
        assertTrue(o.loopbackServer().runToCompletion());
        assertTrue(o.loopbackClient(1).runToCompletion());
      }
    }
    UsageException writeLat = assertThrows(UsageException.class,
        () -> PerfOptions.parse(new String[] {"write_lat", "--run-to-completion"}));
    assertTrue(writeLat.getMessage().contains("applies to send_lat"), writeLat.getMessage());
    UsageException events = assertThrows(UsageException.class,
        () -> PerfOptions.parse(new String[] {"send_lat", "--run-to-completion", "-e"}));
    assertTrue(events.getMessage().contains("exclude each other"), events.getMessage());
    assertTrue(PerfOptions.USAGE.contains("--run-to-completion"));
  }

  @Test
  void eachWaiterGivesUpOnAnEmptyQueue() throws Exception {
    try (RdmaDevice device = RdmaDevice.open(DeviceConfig.builder().eventLoopThreads(1).build())) {
      WorkCompletion[] wc = {new WorkCompletion()};
      CompletionQueue plain = device.createCompletionQueue(4);
      assertEquals(0, new CompletionWaiter(CompletionWaiter.Kind.PARKED, null)
          .await(plain, wc, 1, 1_000_000));
      assertEquals(0, new CompletionWaiter(CompletionWaiter.Kind.BUSY_POLL, null)
          .await(plain, wc, 1, 1_000_000));
      CompletionChannel channel = device.createCompletionChannel();
      CompletionQueue withChannel = device.createCompletionQueue(4, channel);
      assertEquals(0, new CompletionWaiter(CompletionWaiter.Kind.EVENTS, channel)
          .await(withChannel, wc, 1, 1_000_000));
      assertThrows(IllegalArgumentException.class,
          () -> new CompletionWaiter(CompletionWaiter.Kind.EVENTS, null));
    }
  }
}
