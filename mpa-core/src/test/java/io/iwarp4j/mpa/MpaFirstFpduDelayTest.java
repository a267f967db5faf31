package io.iwarp4j.mpa;

import static io.iwarp4j.mpa.StartupWire.fpdu;
import static io.iwarp4j.testing.Hex.hex;
import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Outbound;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Initiator's quiet period between the MPA Reply and its first FPDU (siw's accept race,
 * docs/interop.md): nothing is sent and the handshake stays pending until it has passed. Time is
 * the EmbeddedChannel's virtual clock, never the wall clock.
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
  void aCloseDuringTheQuietPeriodFailsTheHandshake() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().peerToPeer(true).firstFpduDelay(QUIET).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.initiator.freezeTime(); // else wall-clock time on a loaded machine ends the quiet early
      pair.responder.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.initiator)));
      pair.initiator.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.responder)));
      pair.initiator.close();
      pair.initiator.advanceTimeBy(QUIET.toMillis(), TimeUnit.MILLISECONDS);
      pair.initiator.runScheduledPendingTasks();
      assertTrue(ih.handshakeFuture().isDone());
      MpaException e = assertInstanceOf(MpaException.class, ih.handshakeFuture().cause());
      assertEquals(MpaError.TCP_CONNECTION_LOST, e.error());
      assertEquals(0, Outbound.drain(pair.initiator).length, "no RTR after the close");
    }
  }

  @Test
  void theDelayIsBounded() {
    assertEquals(Duration.ZERO, MpaSettings.defaults().firstFpduDelay());
    assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().firstFpduDelay(Duration.ofMillis(-1)));
    assertThrows(IllegalArgumentException.class,
        () -> MpaSettings.builder().firstFpduDelay(Duration.ofSeconds(11)));
  }
}
