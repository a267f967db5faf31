package io.iwarp4j.mpa;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The guard on its own: its bound, a failed RTR write, several closes, the channel going
 * inactive. Virtual time; closes through the pipeline (EmbeddedChannel.close() would also cancel
 * the scheduled tasks).
 */
class RtrCloseGuardTest {
  private static final Duration QUIET = Duration.ofMillis(20);

  private static EmbeddedChannel channel(RtrCloseGuard guard) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    ch.pipeline().addFirst(RtrCloseGuard.NAME, guard);
    return ch;
  }

  private static void advance(EmbeddedChannel ch, long millis) {
    ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    ch.runPendingTasks();
  }

  @Test
  void aHeldCloseIsBoundedWhenTheRtrIsNeverWritten() {
    RtrCloseGuard guard = new RtrCloseGuard(QUIET);
    EmbeddedChannel ch = channel(guard);
    ChannelFuture closed = ch.pipeline().close();
    assertTrue(guard.closeHeld());
    advance(ch, RtrCloseGuard.BOUND_QUIET_PERIODS * QUIET.toMillis() - 1);
    assertTrue(ch.isOpen());
    advance(ch, 1);
    assertFalse(ch.isOpen());
    assertTrue(closed.isSuccess());
    assertNull(ch.pipeline().get(RtrCloseGuard.NAME));
  }

  @Test
  void aFailedRtrWriteReleasesAtOnce() {
    RtrCloseGuard guard = new RtrCloseGuard(QUIET);
    EmbeddedChannel ch = channel(guard);
    ChannelFuture closed = ch.pipeline().close();
    guard.rtrWritten(false);
    ch.runPendingTasks();
    assertFalse(ch.isOpen());
    assertTrue(closed.isSuccess());
  }

  @Test
  void everyHeldCloseCompletes() {
    RtrCloseGuard guard = new RtrCloseGuard(QUIET);
    EmbeddedChannel ch = channel(guard);
    ChannelFuture first = ch.pipeline().close();
    ChannelFuture second = ch.pipeline().close();
    guard.rtrWritten(true);
    advance(ch, QUIET.toMillis());
    assertFalse(ch.isOpen());
    assertTrue(first.isSuccess());
    assertTrue(second.isSuccess());
  }

  @Test
  void theWindowEndsOneQuietPeriodAfterTheRtrWithoutAClose() {
    RtrCloseGuard guard = new RtrCloseGuard(QUIET);
    EmbeddedChannel ch = channel(guard);
    guard.rtrWritten(true);
    advance(ch, QUIET.toMillis());
    assertTrue(guard.isOver());
    assertNull(ch.pipeline().get(RtrCloseGuard.NAME));
    assertTrue(ch.isOpen());
  }

  @Test
  void goingInactiveReleases() {
    RtrCloseGuard guard = new RtrCloseGuard(QUIET);
    EmbeddedChannel ch = channel(guard);
    ch.pipeline().close();
    ch.pipeline().fireChannelInactive();
    ch.runPendingTasks();
    assertTrue(guard.isOver());
    assertFalse(ch.isOpen());
  }

  @Test
  void aZeroQuietPeriodIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new RtrCloseGuard(Duration.ZERO));
  }
}
