package io.iwarp4j.mpa;

import static io.iwarp4j.mpa.MpaHandshakeTest.HELLO;
import static io.iwarp4j.mpa.StartupWire.REPLY_KEY;
import static io.iwarp4j.mpa.StartupWire.REQUEST_KEY;
import static io.iwarp4j.mpa.StartupWire.fpdu;
import static io.iwarp4j.testing.Hex.hex;
import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Outbound;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The non-conformant opt-in {@link MpaSettings.Builder#responderSendsFirst(boolean)}: a
 * client-server Responder may send right after its Reply, departing from RFC 5044 §7.1.2 rule 4
 * on purpose; the default keeps the rule, and peer-to-peer mode is unaffected.
 */
class MpaResponderSendsFirstTest {
  /** The default Reply to the default Request: Rev 2, C=1, S=1, IRD=ORD=16. */
  private static final String REPLY = REPLY_KEY + " 50 02 00 04 00 10 00 10";

  private static final MpaSettings SENDS_FIRST =
      MpaSettings.builder().responderSendsFirst(true).build();

  @Test
  void theDefaultIsTheConformantFalse() {
    assertFalse(MpaSettings.defaults().responderSendsFirst());
    assertFalse(MpaSettings.builder().build().responderSendsFirst());
    assertTrue(SENDS_FIRST.responderSendsFirst());
    assertTrue(SENDS_FIRST.toBuilder().build().responderSendsFirst(), "toBuilder keeps it");
    assertFalse(SENDS_FIRST.toBuilder().responderSendsFirst(false).build()
        .responderSendsFirst());
  }

  @Test
  void byDefaultTheResponderHoldsItsFpdusUntilTheInitiatorsFirst() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      MpaConnection rc = rh.handshakeFuture().getNow();
      assertFalse(rc.sendEnabled(), "rule 4: no FPDU from the Initiator yet");
      assertFalse(rc.sendEnabledFuture().isDone());
      assertEquals(REPLY, toHex(pair.toInitiatorBytes()), "only the Reply left the Responder");
    }
  }

  @Test
  void optInSendsRightAfterTheReplyByteExact() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(SENDS_FIRST, true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      byte[] request = Outbound.drain(pair.initiator);
      assertEquals(REQUEST_KEY + " 50 02 00 04 00 10 00 10", toHex(request));
      pair.responder.writeInbound(Unpooled.wrappedBuffer(request));
      pair.responder.runPendingTasks();
      MpaConnection rc = rh.handshakeFuture().getNow();
      assertTrue(rc.sendEnabled(), "the opt-in enables sending once the Reply is written");
      assertTrue(rc.sendEnabledFuture().isSuccess());
      assertFalse(rc.info().peerToPeer());
      RecordingUlpduListener rl = new RecordingUlpduListener();
      rc.setListener(rl);
      RecordingUlpduListener.send(rc, HELLO);
      // The Reply first, then the Responder's FPDU (CRC negotiated), nothing else.
      byte[] wire = Outbound.drain(pair.responder);
      assertEquals(REPLY + " " + toHex(fpdu(hex(HELLO), true)), toHex(wire));

      // Our Initiator takes an FPDU right after the Reply, even in the same read.
      RecordingUlpduListener il = new RecordingUlpduListener();
      pair.initiator.writeInbound(Unpooled.wrappedBuffer(wire));
      MpaConnection ic = ih.handshakeFuture().getNow();
      ic.setListener(il);
      assertEquals(List.of(HELLO), il.hexUlpdus());
      // And the answer flows back as usual.
      RecordingUlpduListener.send(ic, HELLO);
      pair.shuttle();
      assertEquals(List.of(HELLO), rl.hexUlpdus());
      assertTrue(il.errors.isEmpty() && rl.errors.isEmpty(), il.errors + " " + rl.errors);
    }
  }

  @Test
  void eachAcceptCanChooseAgainstTheSettings() {
    for (boolean settings : new boolean[] {false, true}) {
      HandshakeFixtures.UlpDecision ulp = new HandshakeFixtures.UlpDecision();
      MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
      MpaResponderHandler rh = new MpaResponderHandler(
          MpaSettings.builder().responderSendsFirst(settings).build());
      try (StartupPair pair = StartupPair.of(ih, rh, ulp).shuttle()) {
        ulp.request.get().accept(16, 16, new byte[0], !settings);
        pair.shuttle();
        assertEquals(!settings, rh.handshakeFuture().getNow().sendEnabled(),
            "settings " + settings + ", accept " + !settings);
      }
    }
    HandshakeFixtures.UlpDecision ulp = new HandshakeFixtures.UlpDecision();
    MpaResponderHandler rh = new MpaResponderHandler(SENDS_FIRST);
    try (StartupPair pair = StartupPair.of(
        new MpaInitiatorHandler(MpaSettings.defaults()), rh, ulp).shuttle()) {
      ulp.request.get().accept(16, 16, new byte[0]);
      pair.shuttle();
      assertTrue(rh.handshakeFuture().getNow().sendEnabled(), "3-argument accept: the settings");
    }
  }

  @Test
  void peerToPeerStillWaitsForTheRtr() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().peerToPeer(true)
            .firstFpduDelay(Duration.ZERO).rtrTypes(RtrType.WRITE).build());
    MpaResponderHandler rh = new MpaResponderHandler(SENDS_FIRST, true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      byte[] request = Outbound.drain(pair.initiator);
      pair.responder.writeInbound(Unpooled.wrappedBuffer(request));
      pair.responder.runPendingTasks();
      byte[] reply = Outbound.drain(pair.responder);
      assertEquals(REPLY_KEY + " 50 02 00 04 80 10 80 10", toHex(reply), "only the Reply");
      assertFalse(rh.handshakeFuture().isDone(), "no RTR yet: the opt-in changes nothing");
      pair.initiator.writeInbound(Unpooled.wrappedBuffer(reply));
      pair.shuttle();
      assertTrue(rh.handshakeFuture().isSuccess());
      assertEquals(toHex(fpdu(hex(RtrWireTest.WRITE), true)), toHex(pair.toResponderBytes()));
      assertEquals(0, pair.toInitiatorBytes().length, "Write RTR: no answer, nothing early");
    }
  }
}
