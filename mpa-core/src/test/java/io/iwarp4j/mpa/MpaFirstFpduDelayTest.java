package io.iwarp4j.mpa;

import static io.iwarp4j.mpa.StartupWire.fpdu;
import static io.iwarp4j.testing.Hex.hex;
import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Outbound;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Initiator's quiet period between the MPA Reply and its first FPDU (siw's accept race,
 * docs/interop.md): nothing is sent and the handshake stays pending until it has passed; 50 ms by
 * default in the peer-to-peer model; and a peer-to-peer close is held back until the RTR has been
 * written plus one quiet period (issue 22 bug 2, {@link RtrCloseGuard}). Time is the
 * EmbeddedChannel's virtual clock, never the wall clock.
 */
class MpaFirstFpduDelayTest {
  private static final Duration QUIET = Duration.ofMillis(40);

  @Test
  void theRtrAndTheHandshakeWaitForTheQuietPeriod() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .rtrTypes(RtrType.WRITE).firstFpduDelay(QUIET).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.initiator.freezeTime(); // else wall-clock time on a loaded machine ends the quiet early
      pair.responder.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.initiator)));
      pair.initiator.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.responder)));
      assertEquals(0, Outbound.drain(pair.initiator).length,
          "no FPDU right after the Reply");
      assertFalse(ih.handshakeFuture().isDone(), "the ULP may not send during the quiet period");
      pair.initiator.advanceTimeBy(QUIET.toMillis() - 1, TimeUnit.MILLISECONDS);
      pair.initiator.runScheduledPendingTasks();
      assertEquals(0, Outbound.drain(pair.initiator).length, "1 ms early: still quiet");
      pair.initiator.advanceTimeBy(1, TimeUnit.MILLISECONDS);
      pair.initiator.runScheduledPendingTasks();
      assertEquals(toHex(fpdu(hex(RtrWireTest.WRITE), true)),
          toHex(Outbound.drain(pair.initiator)), "then the Write RTR, byte-exact");
      assertTrue(ih.handshakeFuture().isSuccess());
    }
  }

  @Test
  void clientServerModeCompletesOnlyAfterTheQuietPeriod() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().firstFpduDelay(QUIET).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.initiator.freezeTime(); // else wall-clock time on a loaded machine ends the quiet early
      pair.responder.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.initiator)));
      pair.initiator.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.responder)));
      assertFalse(ih.handshakeFuture().isDone());
      pair.initiator.advanceTimeBy(QUIET.toMillis(), TimeUnit.MILLISECONDS);
      pair.initiator.runScheduledPendingTasks();
      assertTrue(ih.handshakeFuture().isSuccess());
      assertEquals(0, Outbound.drain(pair.initiator).length, "no RTR without P2P");
    }
  }

  @Test
  void aCloseDuringTheQuietPeriodStillSendsTheRtrAndClosesAQuietPeriodLater() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .rtrTypes(RtrType.READ).firstFpduDelay(QUIET).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      EmbeddedChannel ch = pair.initiator;
      replyArrives(pair);
      // pipeline().close(): EmbeddedChannel.close() would also cancel the scheduled tasks.
      ChannelFuture closed = ch.pipeline().close();
      ch.runPendingTasks();
      assertTrue(ch.isOpen(), "held: siw is waiting for an RTR");
      assertFalse(closed.isDone());
      advance(ch, QUIET.toMillis());
      assertEquals(toHex(fpdu(hex(RtrWireTest.READ), true)), toHex(Outbound.drain(ch)),
          "the RTR still goes out, byte-exact");
      MpaException e = assertInstanceOf(MpaException.class, ih.handshakeFuture().cause());
      assertEquals(MpaError.TCP_CONNECTION_LOST, e.error());
      assertTrue(e.getMessage().endsWith(
          "the connection was closed during the first-FPDU quiet period"), e.getMessage());
      advance(ch, QUIET.toMillis() - 1);
      assertTrue(ch.isOpen(), "1 ms before the peer's quiet period for the RTR is over");
      advance(ch, 1);
      assertFalse(ch.isOpen());
      assertTrue(closed.isSuccess());
      assertNull(ch.pipeline().get(RtrCloseGuard.NAME), "the guard left the pipeline");
    }
  }

  @Test
  void aCloseRightAfterTheRtrWaitsOneQuietPeriod() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .rtrTypes(RtrType.WRITE).firstFpduDelay(QUIET).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      EmbeddedChannel ch = pair.initiator;
      replyArrives(pair);
      advance(ch, QUIET.toMillis());
      assertTrue(ih.handshakeFuture().isSuccess());
      assertEquals(toHex(fpdu(hex(RtrWireTest.WRITE), true)), toHex(Outbound.drain(ch)));
      advance(ch, 10);
      ChannelFuture closed = ch.pipeline().close();
      ch.runPendingTasks();
      assertTrue(ch.isOpen(), "held: the RTR left only 10 ms ago");
      advance(ch, QUIET.toMillis() - 11);
      assertTrue(ch.isOpen());
      advance(ch, 1);
      assertFalse(ch.isOpen(), "closed one quiet period after the RTR was written");
      assertTrue(closed.isSuccess());
    }
  }

  @Test
  void aCloseAfterTheWindowIsNotHeld() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(QUIET).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      EmbeddedChannel ch = pair.initiator;
      replyArrives(pair);
      advance(ch, QUIET.toMillis()); // the RTR
      advance(ch, QUIET.toMillis()); // the peer's time to take it
      assertNull(ch.pipeline().get(RtrCloseGuard.NAME), "nothing left on the data path");
      ch.pipeline().close();
      ch.runPendingTasks();
      assertFalse(ch.isOpen());
    }
  }

  @Test
  void withoutAQuietPeriodNothingIsHeld() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      EmbeddedChannel ch = pair.initiator;
      replyArrives(pair);
      assertTrue(ih.handshakeFuture().isSuccess(), "the RTR went out at once");
      assertNull(ch.pipeline().get(RtrCloseGuard.NAME));
      ch.pipeline().close();
      ch.runPendingTasks();
      assertFalse(ch.isOpen());
    }
  }

  @Test
  void clientServerModeHoldsNoClose() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().firstFpduDelay(QUIET).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      EmbeddedChannel ch = pair.initiator;
      replyArrives(pair);
      assertNull(ch.pipeline().get(RtrCloseGuard.NAME), "no RTR, nothing for the peer to take");
      ch.pipeline().close();
      ch.runPendingTasks();
      assertFalse(ch.isOpen());
    }
  }

  @Test
  void theDefaultIs50MillisecondsPeerToPeerAndZeroClientServer() {
    assertEquals(Duration.ZERO, MpaSettings.defaults().firstFpduDelay());
    assertEquals(Duration.ofMillis(50), MpaSettings.DEFAULT_P2P_FIRST_FPDU_DELAY);
    assertEquals(Duration.ofMillis(50),
        MpaSettings.builder().peerToPeer(true).build().firstFpduDelay());
    assertEquals(Duration.ofMillis(50),
        MpaSettings.defaults().toBuilder().peerToPeer(true).build().firstFpduDelay(),
        "an unset delay follows the model through toBuilder()");
    assertEquals(Duration.ZERO, MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO).build().firstFpduDelay(), "an explicit zero stays");
    assertEquals(QUIET, MpaSettings.builder().firstFpduDelay(QUIET).build().toBuilder()
        .peerToPeer(true).build().firstFpduDelay(), "an explicit value stays");
    assertTrue(MpaSettings.builder().peerToPeer(true).build().toString()
        .contains("firstFpduDelay=PT0.05S"));
  }

  @Test
  void theDefaultIsAppliedOnTheWire() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .rtrTypes(RtrType.WRITE).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      EmbeddedChannel ch = pair.initiator;
      replyArrives(pair);
      assertNotNull(ch.pipeline().get(RtrCloseGuard.NAME), "closes are guarded");
      advance(ch, 49);
      assertEquals(0, Outbound.drain(ch).length, "quiet for 49 ms");
      assertFalse(ih.handshakeFuture().isDone());
      advance(ch, 1);
      assertEquals(toHex(fpdu(hex(RtrWireTest.WRITE), true)), toHex(Outbound.drain(ch)),
          "the RTR at 50 ms");
      assertTrue(ih.handshakeFuture().isSuccess());
    }
  }

  @Test
  void theDelayIsBounded() {
    assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().firstFpduDelay(Duration.ofMillis(-1)));
    assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().firstFpduDelay(Duration.ofSeconds(11)));
  }

  /** Request out, Reply in, with the initiator's clock frozen. */
  private static void replyArrives(StartupPair pair) {
    pair.initiator.freezeTime(); // else wall-clock time on a loaded machine ends the quiet early
    pair.responder.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.initiator)));
    pair.initiator.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.responder)));
  }

  private static void advance(EmbeddedChannel ch, long millis) {
    ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    ch.runPendingTasks();
  }
}
