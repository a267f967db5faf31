package io.iwarp4j.mpa;

import static io.iwarp4j.mpa.StartupWire.REPLY_KEY;
import static io.iwarp4j.mpa.StartupWire.REQUEST_KEY;
import static io.iwarp4j.mpa.StartupWire.fpdu;
import static io.iwarp4j.testing.Hex.hex;
import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Hex;
import io.iwarp4j.testing.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both handlers against each other over two EmbeddedChannels: every negotiation variant, the
 * bytes on the wire, and Full Operation afterwards (RFC 5044 §7.1, RFC 6581).
 */
class MpaHandshakeTest {
  /** A Send "hello" on QN 0, MSN 1 (mpa.md §9.4). */
  static final String HELLO = "41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 68 65 6c 6c 6f";
  /** A Send "hello" on QN 0, MSN 2 (after a Send RTR). */
  static final String HELLO2 = "41 43 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 68 65 6c 6c 6f";

  // ---- client-server ----

  @Test
  void defaultsCompleteAndTheWireIsByteExact() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      assertEquals(REQUEST_KEY + " 50 02 00 04 00 10 00 10", toHex(pair.toResponderBytes()));
      assertEquals(REPLY_KEY + " 50 02 00 04 00 10 00 10", toHex(pair.toInitiatorBytes()));
      MpaConnection ic = ih.handshakeFuture().getNow();
      MpaConnection rc = rh.handshakeFuture().getNow();
      assertNotNull(ic);
      assertNotNull(rc);
      for (MpaConnectionInfo info : List.of(ic.info(), rc.info())) {
        assertEquals(2, info.revision());
        assertTrue(info.enhanced());
        assertTrue(info.crc());
        assertFalse(info.markersIn());
        assertFalse(info.markersOut());
        assertFalse(info.peerToPeer());
        assertNull(info.rtr());
        assertEquals(16, info.localIrd());
        assertEquals(16, info.localOrd());
        assertEquals(16, info.peer().ird());
        assertEquals(Mulpdu.of(Mulpdu.DEFAULT_EMSS, false), info.maxUlpduLength());
      }
      assertTrue(ic.info().initiator());
      assertFalse(rc.info().initiator());
      // The handlers left; the deframer took their place.
      assertNull(pair.initiator.pipeline().get(MpaInitiatorHandler.class));
      assertNull(pair.responder.pipeline().get(MpaResponderHandler.class));
      assertNotNull(pair.initiator.pipeline().get(FpduDeframer.class));
      assertNotNull(pair.responder.pipeline().get(FpduDeframer.class));
      assertFullOperation(pair, ic, rc, HELLO);
    }
  }

  /**
   * RFC 5044 §7.1.2 rule 4: the Responder may send only after a valid FPDU from the Initiator;
   * then data flows both ways.
   */
  static void assertFullOperation(StartupPair pair, MpaConnection ic, MpaConnection rc,
      String firstUlpdu) {
    RecordingUlpduListener il = new RecordingUlpduListener();
    RecordingUlpduListener rl = new RecordingUlpduListener();
    ic.setListener(il);
    rc.setListener(rl);
    assertTrue(ic.sendEnabled());
    assertTrue(ic.sendEnabledFuture().isSuccess());
    boolean responderMayAlreadySend = rc.info().peerToPeer();
    assertEquals(responderMayAlreadySend, rc.sendEnabled());
    RecordingUlpduListener.send(ic, firstUlpdu);
    pair.shuttle();
    assertEquals(List.of(firstUlpdu), rl.hexUlpdus());
    assertTrue(rc.sendEnabled());
    assertTrue(rc.sendEnabledFuture().isSuccess());
    RecordingUlpduListener.send(rc, HELLO);
    pair.shuttle();
    assertEquals(List.of(HELLO), il.hexUlpdus());
    assertTrue(il.errors.isEmpty() && rl.errors.isEmpty(), il.errors + " " + rl.errors);
  }

  @Test
  void revisionOne() {
    MpaSettings s = MpaSettings.builder().revision(1).ird(3).ord(4).build();
    MpaInitiatorHandler ih = new MpaInitiatorHandler(s);
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      assertEquals(REQUEST_KEY + " 40 01 00 00", toHex(pair.toResponderBytes()));
      assertEquals(REPLY_KEY + " 40 01 00 00", toHex(pair.toInitiatorBytes()));
      MpaConnectionInfo i = ih.handshakeFuture().getNow().info();
      MpaConnectionInfo r = rh.handshakeFuture().getNow().info();
      assertEquals(1, i.revision());
      assertEquals(1, r.revision());
      assertFalse(i.enhanced());
      assertFalse(r.enhanced());
      assertEquals(-1, i.peer().ird(), "no IRD/ORD in an unenhanced Reply");
      assertEquals(3, i.localIrd());
      assertEquals(4, i.localOrd());
      assertFullOperation(pair, ih.handshakeFuture().getNow(), rh.handshakeFuture().getNow(),
          HELLO);
    }
  }

  @Test
  void revisionTwoWithoutS() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().enhanced(false).crc(false).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.builder().crc(false).build(),
        true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      assertEquals(REQUEST_KEY + " 00 02 00 00", toHex(pair.toResponderBytes()));
      assertEquals(REPLY_KEY + " 00 02 00 00", toHex(pair.toInitiatorBytes()));
      assertEquals(2, ih.handshakeFuture().getNow().info().revision());
      assertFalse(ih.handshakeFuture().getNow().info().enhanced());
      assertFalse(rh.handshakeFuture().getNow().info().enhanced());
      assertFullOperation(pair, ih.handshakeFuture().getNow(), rh.handshakeFuture().getNow(),
          HELLO);
    }
  }

  @ParameterizedTest(name = "Initiator C={0}, Responder C={1}")
  @CsvSource({"false,false", "true,false", "false,true", "true,true"})
  void crcIsOnWhenEitherAsks(boolean initiatorCrc, boolean responderCrc) {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().crc(initiatorCrc).build());
    MpaResponderHandler rh = new MpaResponderHandler(
        MpaSettings.builder().crc(responderCrc).build(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      boolean crc = initiatorCrc || responderCrc;
      MpaConnection ic = ih.handshakeFuture().getNow();
      MpaConnection rc = rh.handshakeFuture().getNow();
      assertEquals(crc, ic.info().crc());
      assertEquals(crc, rc.info().crc());
      int start = pair.toResponderBytes().length;
      assertFullOperation(pair, ic, rc, HELLO);
      byte[] sent = Arrays.copyOfRange(pair.toResponderBytes(), start,
          pair.toResponderBytes().length);
      // mpa.md §9.4: with CRC the trailer is b9 90 b1 0c, without it four zero octets.
      assertEquals(toHex(fpdu(hex(HELLO), crc)), toHex(sent));
      assertEquals(crc ? "b9 90 b1 0c" : "00 00 00 00",
          toHex(Arrays.copyOfRange(sent, sent.length - 4, sent.length)));
    }
  }

  @ParameterizedTest(name = "Initiator M={0}, Responder M={1}")
  @CsvSource({"false,false", "true,false", "false,true", "true,true"})
  void markersPerDirection(boolean initiatorM, boolean responderM) {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().markers(initiatorM).build());
    MpaResponderHandler rh = new MpaResponderHandler(
        MpaSettings.builder().markers(responderM).build(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      MpaConnection ic = ih.handshakeFuture().getNow();
      MpaConnection rc = rh.handshakeFuture().getNow();
      assertEquals(responderM, ic.info().markersOut());
      assertEquals(initiatorM, ic.info().markersIn());
      assertEquals(initiatorM, rc.info().markersOut());
      assertEquals(responderM, rc.info().markersIn());
      int iStart = pair.toResponderBytes().length;
      int rStart = pair.toInitiatorBytes().length;
      assertFullOperation(pair, ic, rc, HELLO);
      // Rule 7: with Markers, a direction's first Full Operation octets are 00 00 00 00 and
      // then the ULPDU_Length (00 17); without, the ULPDU_Length right away.
      assertEquals(responderM ? "00 00 00 00 00 17" : "00 17 41 43",
          toHex(Arrays.copyOfRange(pair.toResponderBytes(), iStart, iStart + (responderM ? 6 : 4))));
      assertEquals(initiatorM ? "00 00 00 00 00 17" : "00 17 41 43",
          toHex(Arrays.copyOfRange(pair.toInitiatorBytes(), rStart, rStart + (initiatorM ? 6 : 4))));
    }
  }

  // ---- peer-to-peer ----

  @ParameterizedTest(name = "{0} RTR")
  @EnumSource(RtrType.class)
  void peerToPeerWithEachRtr(RtrType rtr) {
    peerToPeer(rtr, Integer.MAX_VALUE);
  }

  @ParameterizedTest(name = "{0} RTR, one octet per read")
  @EnumSource(RtrType.class)
  void peerToPeerOneOctetPerRead(RtrType rtr) {
    peerToPeer(rtr, 1);
  }

  private static void peerToPeer(RtrType rtr, int chunk) {
    MpaSettings is = MpaSettings.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO)
        .rtrTypes(rtr).ird(4).ord(4).build();
    MpaInitiatorHandler ih = new MpaInitiatorHandler(is);
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.chunk = chunk;
      pair.shuttle();
      String flags = rtr == RtrType.SEND ? "c0 04 00 04" : rtr == RtrType.WRITE
          ? "80 04 80 04" : "80 04 40 04";
      String rtrUlpdu = rtr == RtrType.SEND ? RtrWireTest.SEND : rtr == RtrType.WRITE
          ? RtrWireTest.WRITE : RtrWireTest.READ;
      // The RTR is the Initiator's first FPDU, right after its Request.
      assertEquals(REQUEST_KEY + " 50 02 00 04 " + flags + " " + toHex(fpdu(hex(rtrUlpdu), true)),
          toHex(pair.toResponderBytes()));
      // A Read RTR is answered with a zero-length Read Response (docs/interop.md, siw finding §5).
      assertEquals(REPLY_KEY + " 50 02 00 04 " + flags
          + (rtr == RtrType.READ ? " " + toHex(fpdu(hex(RtrWireTest.READ_RESPONSE), true)) : ""),
          toHex(pair.toInitiatorBytes()));
      MpaConnection ic = ih.handshakeFuture().getNow();
      MpaConnection rc = rh.handshakeFuture().getNow();
      assertEquals(rtr, ic.info().rtr());
      assertEquals(rtr, rc.info().rtr());
      assertTrue(ic.info().peerToPeer() && rc.info().peerToPeer());
      assertTrue(rc.sendEnabled(), "the RTR was the Initiator's first FPDU");
      assertTrue(ic.rtrAnswered() && rc.rtrAnswered());
      // Neither the RTR nor its Read Response reaches the upper layers.
      String next = rtr == RtrType.SEND ? HELLO2 : HELLO;
      assertFullOperation(pair, ic, rc, next);
    }
  }

  @Test
  void aReadRtrIsUnansweredUntilItsZeroLengthReadResponseArrives() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO).rtrTypes(RtrType.READ).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.responder.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.initiator)));
      pair.initiator.writeInbound(Unpooled.wrappedBuffer(Outbound.drain(pair.responder)));
      MpaConnection ic = ih.handshakeFuture().getNow();
      assertFalse(ic.rtrAnswered(), "the Read RTR went out; its answer has not come");
      pair.shuttle();
      assertTrue(ic.rtrAnswered());
    }
  }

  @Test
  void responderWaitsForTheRtrBeforeReportingEstablished() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().peerToPeer(true).firstFpduDelay(Duration.ZERO).build());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.chunk = 1;
      byte[] request = Outbound.drain(pair.initiator);
      for (byte b : request) {
        pair.responder.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
      }
      byte[] reply = Outbound.drain(pair.responder);
      // Everything offered and supported: the Initiator picks WRITE.
      assertEquals(REPLY_KEY + " 50 02 00 04 c0 10 c0 10", toHex(reply));
      assertFalse(rh.handshakeFuture().isDone(), "no RTR yet");
      pair.initiator.writeInbound(Unpooled.wrappedBuffer(reply));
      byte[] rtr = Outbound.drain(pair.initiator);
      assertEquals(toHex(fpdu(hex(RtrWireTest.WRITE), true)), toHex(rtr));
      assertTrue(ih.handshakeFuture().isSuccess());
      for (int i = 0; i < rtr.length - 1; i++) {
        pair.responder.writeInbound(Unpooled.wrappedBuffer(new byte[] {rtr[i]}));
      }
      assertFalse(rh.handshakeFuture().isDone(), "RTR not complete");
      pair.responder.writeInbound(Unpooled.wrappedBuffer(new byte[] {rtr[rtr.length - 1]}));
      assertTrue(rh.handshakeFuture().isSuccess());
      assertEquals(0, Outbound.drain(pair.responder).length, "Write RTR: no answer");
    }
  }

  // ---- IRD / ORD ----

  @ParameterizedTest(name = "Initiator {0}/{1}, Responder {2}/{3}")
  @CsvSource({
      "16, 16, 16, 16, 16, 16, 16, 16",
      "1, 1, 16, 16, 1, 1, 1, 1",
      "8, 2, 4, 6, 8, 2, 2, 6",
      "16383, 16383, 5, 6, 16383, 16383, 5, 6",
      "4, 16383, 5, 6, 4, 16383, 5, 4",
  })
  void irdOrdNegotiation(int iIrd, int iOrd, int rIrd, int rOrd,
      int expIIrd, int expIOrd, int expRIrd, int expROrd) {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(
        MpaSettings.builder().ird(iIrd).ord(iOrd).build());
    MpaResponderHandler rh = new MpaResponderHandler(
        MpaSettings.builder().ird(rIrd).ord(rOrd).build(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.shuttle();
      MpaConnectionInfo i = ih.handshakeFuture().getNow().info();
      MpaConnectionInfo r = rh.handshakeFuture().getNow().info();
      assertEquals(expIIrd, i.localIrd(), "Initiator IRD");
      assertEquals(expIOrd, i.localOrd(), "Initiator ORD");
      assertEquals(expRIrd, r.localIrd(), "Responder IRD");
      assertEquals(expROrd, r.localOrd(), "Responder ORD");
      assertEquals(iIrd, r.peer().ird(), "the Responder's ULP sees the Initiator's values");
      assertEquals(iOrd, r.peer().ord());
    }
  }

  // ---- private data ----

  @Test
  void privateDataBothWaysUpToTheLimits() {
    Random random = new Random(5044);
    byte[] req = new byte[508];
    byte[] rep = new byte[508];
    random.nextBytes(req);
    random.nextBytes(rep);
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().privateData(req)
        .build());
    HandshakeFixtures.UlpDecision ulp = new HandshakeFixtures.UlpDecision();
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults());
    try (StartupPair pair = StartupPair.of(ih, rh, ulp)) {
      pair.shuttle();
      MpaConnectRequest cr = ulp.request.get();
      assertNotNull(cr, "the ULP got the request");
      assertArrayEquals(req, cr.peer().privateData());
      assertThrows(IllegalArgumentException.class, () -> cr.accept(16, 16, new byte[509]));
      cr.accept(16, 16, rep);
      pair.shuttle();
      assertEquals(20 + 512, pair.toResponderBytes().length);
      assertEquals(20 + 512, pair.toInitiatorBytes().length);
      assertEquals("02 00", toHex(Arrays.copyOfRange(pair.toInitiatorBytes(), 18, 20)));
      assertArrayEquals(rep, ih.handshakeFuture().getNow().info().peer().privateData());
    }
  }

  @Test
  void unenhancedPrivateDataOf512() {
    byte[] req = new byte[512];
    Arrays.fill(req, (byte) 0x5a);
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().revision(1)
        .privateData(req).build());
    HandshakeFixtures.UlpDecision ulp = new HandshakeFixtures.UlpDecision();
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults());
    try (StartupPair pair = StartupPair.of(ih, rh, ulp).shuttle()) {
      MpaConnectRequest cr = ulp.request.get();
      assertThrows(IllegalArgumentException.class, () -> cr.accept(1, 1, new byte[513]));
      cr.accept(1, 1, req);
      pair.shuttle();
      assertEquals(532, pair.toResponderBytes().length);
      assertEquals(532, pair.toInitiatorBytes().length);
      assertArrayEquals(req, rh.handshakeFuture().getNow().info().peer().privateData());
      assertArrayEquals(req, ih.handshakeFuture().getNow().info().peer().privateData());
    }
  }

  // ---- reject ----

  @Test
  void rejectWithPrivateDataLeavesTcpOpenOnBothSides() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    HandshakeFixtures.UlpDecision ulp = new HandshakeFixtures.UlpDecision();
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults());
    try (StartupPair pair = StartupPair.of(ih, rh, ulp)) {
      pair.shuttle();
      ulp.request.get().reject(2, 8, hex("6e 6f"));
      pair.shuttle();
      assertEquals(REPLY_KEY + " 70 02 00 06 00 02 00 08 6e 6f", toHex(pair.toInitiatorBytes()));
      MpaRejectedException ie = assertInstanceOf(MpaRejectedException.class,
          ih.handshakeFuture().cause());
      assertFalse(ie.rejectedLocally());
      assertArrayEquals(hex("6e 6f"), ie.peer().privateData());
      assertEquals(8, ie.peer().ord(), "the needed ORD is reported (RFC 6581 §9.1)");
      MpaRejectedException re = assertInstanceOf(MpaRejectedException.class,
          rh.handshakeFuture().cause());
      assertTrue(re.rejectedLocally());
      assertTrue(pair.initiator.isOpen());
      assertTrue(pair.responder.isOpen());
      assertNull(pair.initiator.pipeline().get(MpaInitiatorHandler.class));
      assertNull(pair.responder.pipeline().get(MpaResponderHandler.class));
      assertNull(pair.initiator.pipeline().get(FpduDeframer.class));
      // The ULPs own the TCP connection now: raw bytes pass in both directions.
      pair.initiator.writeOutbound(Unpooled.wrappedBuffer(hex("01 02 03")));
      pair.responder.writeOutbound(Unpooled.wrappedBuffer(hex("04")));
      pair.shuttle();
      assertEquals("01 02 03", toHex(readInbound(pair.responder)));
      assertEquals("04", toHex(readInbound(pair.initiator)));
    }
  }

  @Test
  void octetsThatFollowARejectingReplyGoToTheUlp() {
    EmbeddedChannel ch = new EmbeddedChannel(new MpaInitiatorHandler(MpaSettings.defaults()));
    Outbound.drain(ch);
    ch.writeInbound(Hex.buf(REPLY_KEY + " 30 02 00 04 00 10 00 10 aa bb"));
    assertTrue(ch.isOpen());
    assertEquals("aa bb", toHex(readInbound(ch)));
    ch.finishAndReleaseAll();
  }

  // ---- the ULP decision ----

  /** The hop itself is covered over real sockets (EmbeddedEventLoop runs every thread inline). */
  @Test
  void acceptOnlyOnceFromAnyThread() throws Exception {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    HandshakeFixtures.UlpDecision ulp = new HandshakeFixtures.UlpDecision();
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults());
    try (StartupPair pair = StartupPair.of(ih, rh, ulp)) {
      pair.shuttle();
      MpaConnectRequest cr = ulp.request.get();
      assertFalse(cr.isDecided());
      assertEquals(pair.responder.remoteAddress(), cr.remoteAddress());
      AtomicReference<Throwable> second = new AtomicReference<>();
      Thread t = new Thread(() -> {
        cr.accept();
        try {
          cr.reject(new byte[0]);
        } catch (Throwable e) {
          second.set(e);
        }
      });
      t.start();
      t.join(10_000);
      assertInstanceOf(IllegalStateException.class, second.get());
      assertTrue(cr.isDecided());
      pair.shuttle();
      assertTrue(rh.handshakeFuture().isSuccess());
      assertTrue(ih.handshakeFuture().isSuccess());
    }
  }

  @Test
  void ulpduBeforeTheListenerIsKeptAndDeliveredInOrder() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      MpaConnection ic = ih.handshakeFuture().getNow();
      MpaConnection rc = rh.handshakeFuture().getNow();
      RecordingUlpduListener.send(ic, HELLO);
      RecordingUlpduListener.send(ic, HELLO2);
      pair.shuttle();
      assertTrue(rc.sendEnabled(), "the gate opens on arrival, listener or not");
      RecordingUlpduListener rl = new RecordingUlpduListener();
      rc.setListener(rl);
      assertEquals(List.of(HELLO, HELLO2), rl.hexUlpdus());
      RecordingUlpduListener.send(ic, HELLO);
      pair.shuttle();
      assertEquals(List.of(HELLO, HELLO2, HELLO), rl.hexUlpdus());
    }
  }

  @Test
  void theKeptUlpdusAreReplayedAsOneReadBatchHookFirst() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      MpaConnection ic = ih.handshakeFuture().getNow();
      MpaConnection rc = rh.handshakeFuture().getNow();
      RecordingUlpduListener.send(ic, HELLO);
      RecordingUlpduListener.send(ic, HELLO2);
      pair.shuttle();
      RecordingUlpduListener rl = new RecordingUlpduListener();
      rc.setListener(rl);
      assertEquals(List.of("batch", "ulpdu", "ulpdu"), rl.calls,
          "the hook once, before the kept ULPDUs");
      RecordingUlpduListener.send(ic, HELLO);
      RecordingUlpduListener.send(ic, HELLO2);
      pair.shuttle();
      assertEquals(List.of("batch", "ulpdu", "ulpdu", "batch", "ulpdu", "ulpdu"), rl.calls,
          "then once per read, before its ULPDUs");
    }
  }

  @Test
  void handshakeFutureAvailableBeforeTheHandlerIsAdded() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    Future<MpaConnection> f = ih.handshakeFuture();
    AtomicReference<MpaConnection> seen = new AtomicReference<>();
    f.addListener(x -> seen.set(f.getNow()));
    EmbeddedChannel i = new EmbeddedChannel();
    EmbeddedChannel r = new EmbeddedChannel();
    // Added after the channels are active.
    i.pipeline().addLast(ih);
    r.pipeline().addLast(rh);
    try (StartupPair pair = new StartupPair(i, r)) {
      pair.shuttle();
      assertNotNull(seen.get());
    }
  }

  @ParameterizedTest(name = "chunk {0}")
  @ValueSource(ints = {1, 2, 3, 7, 19, 21})
  void startupFramesInAnyChunking(int chunk) {
    byte[] pd = new byte[33];
    new Random(chunk).nextBytes(pd);
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().privateData(pd)
        .build());
    MpaResponderHandler rh = new MpaResponderHandler(
        MpaSettings.builder().privateData(pd).build(), true);
    try (StartupPair pair = StartupPair.of(ih, rh)) {
      pair.chunk = chunk;
      pair.shuttle();
      assertArrayEquals(pd, ih.handshakeFuture().getNow().info().peer().privateData());
      assertArrayEquals(pd, rh.handshakeFuture().getNow().info().peer().privateData());
      assertFullOperation(pair, ih.handshakeFuture().getNow(), rh.handshakeFuture().getNow(),
          HELLO);
    }
  }

  @Test
  void firstFpduInTheSameReadAsTheReplyReachesTheDeframer() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    EmbeddedChannel ch = new EmbeddedChannel(ih);
    Outbound.drain(ch);
    byte[] reply = hex(REPLY_KEY + " 50 02 00 04 00 10 00 10");
    ch.writeInbound(Unpooled.wrappedBuffer(StartupWire.concat(reply, fpdu(hex(HELLO), true))));
    RecordingUlpduListener l = new RecordingUlpduListener();
    ih.handshakeFuture().getNow().setListener(l);
    assertEquals(List.of(HELLO), l.hexUlpdus());
    ch.finishAndReleaseAll();
  }

  @Test
  void connectionTerminateSendsAnMpaTerminateAndCloses() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      RecordingUlpduListener rl = new RecordingUlpduListener();
      MpaConnection rc = rh.handshakeFuture().getNow();
      rc.setListener(rl);
      // A Responder that has received nothing may not send even a Terminate: it only closes.
      // The Initiator may.
      int start = pair.toResponderBytes().length;
      ih.handshakeFuture().getNow().terminate(MpaError.CRC_MISMATCH);
      pair.shuttle();
      assertEquals("00 16 " + MpaErrorTerminateTest.CRC_ERROR_ULPDU + " 7f e4 25 85",
          toHex(Arrays.copyOfRange(pair.toResponderBytes(), start,
              pair.toResponderBytes().length)));
      assertFalse(pair.initiator.isOpen());
      assertEquals(List.of(MpaErrorTerminateTest.CRC_ERROR_ULPDU), rl.hexUlpdus());
    }
  }

  @Test
  void responderThatMayNotSendClosesWithoutATerminate() {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    try (StartupPair pair = StartupPair.of(ih, rh).shuttle()) {
      int start = pair.toInitiatorBytes().length;
      rh.handshakeFuture().getNow().terminate(MpaError.LOCAL_CATASTROPHIC);
      pair.shuttle();
      assertEquals(start, pair.toInitiatorBytes().length);
      assertFalse(pair.responder.isOpen());
    }
  }

  // ---- helpers ----

  private static byte[] readInbound(EmbeddedChannel ch) {
    ByteBuf b = ch.readInbound();
    assertNotNull(b, "nothing reached the end of the pipeline");
    try {
      return Hex.bytes(b);
    } finally {
      b.release();
    }
  }
}
