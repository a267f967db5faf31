package io.iwarp4j.mpa;

import static io.iwarp4j.mpa.StartupWire.REPLY_KEY;
import static io.iwarp4j.mpa.StartupWire.REQUEST_KEY;
import static io.iwarp4j.mpa.StartupWire.fpdu;
import static io.iwarp4j.testing.Hex.hex;
import static io.iwarp4j.testing.Hex.toHex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.testing.Hex;
import io.iwarp4j.testing.Outbound;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every way the startup can fail, with the exact {@link MpaError}, what goes on the wire, and
 * whether TCP is closed (RFC 5044 §7.1.1, §7.1.2, §8; RFC 6581 §8, §9).
 */
class MpaStartupErrorsTest {
  private static final String GOOD_REQUEST = REQUEST_KEY + " 50 02 00 04 00 10 00 10";
  private static final String GOOD_REPLY = REPLY_KEY + " 50 02 00 04 00 10 00 10";

  private EmbeddedChannel ch;

  @AfterEach
  void release() {
    if (ch != null) {
      ch.finishAndReleaseAll();
    }
  }

  // ---- improperly formatted frames: 0x04, closed, nothing sent ----

  @Test
  void badKeyInRequest() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(GOOD_REQUEST.replace("6d 65 50 02", "6d 66 50 02")));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME, "bad key");
    assertNothingSent();
  }

  @Test
  void badKeyInReply() {
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(GOOD_REPLY.replace("4d 50 41", "4d 50 42")));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME, "bad key");
    assertNothingSent();
  }

  @Test
  void pdLength513InRequest() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 00 01 02 01"));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME, "PD_Length 513");
    assertNothingSent();
  }

  @Test
  void pdLength513InReply() {
    MpaInitiatorHandler ih = initiator(MpaSettings.builder().revision(1).build());
    ch.writeInbound(Hex.buf(REPLY_KEY + " 40 01 02 01"));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME, "PD_Length 513");
  }

  @Test
  void moreDataThanPdLengthInTheRequestRead() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(GOOD_REQUEST + " 00"));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
        "1 octets followed the MPA Request");
    assertNothingSent();
  }

  @Test
  void octetsBeforeTheReplyWasSent() {
    HandshakeFixtures.UlpDecision ulp = new HandshakeFixtures.UlpDecision();
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults());
    ch = new EmbeddedChannel(rh, ulp);
    ch.writeInbound(Hex.buf(GOOD_REQUEST));
    assertFalse(rh.handshakeFuture().isDone());
    // A premature FPDU while the ULP decides (siw: EPROTO).
    ch.writeInbound(Unpooled.wrappedBuffer(fpdu(hex(MpaHandshakeTest.HELLO), true)));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
        "arrived after the MPA Request, before the Reply was sent");
    ulp.request.get().accept();
    ch.runPendingTasks();
    assertNothingSent();
  }

  @Test
  void requestCutShortOfItsPdLengthByAFin() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 50 02 00 08 00 10 00 10"));
    ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
        "PD_Length 8 but the peer closed its half of the connection after 4 octets");
  }

  @Test
  void replyCutShortOfItsPdLengthByAClose() {
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REPLY_KEY + " 50 02 00 06 00 10 00 10 aa"));
    ch.close();
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
        "PD_Length 6 but the connection closed after 5 octets");
  }

  @ParameterizedTest(name = "Rev {0}")
  @ValueSource(ints = {0, 3, 255})
  void unusableRevisionInRequestGetsNoReply(int rev) {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + String.format(" 00 %02x 00 00", rev)));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
        "unsupported MPA revision " + rev);
    assertNothingSent();
  }

  @ParameterizedTest(name = "Rev {0}")
  @ValueSource(ints = {0, 3})
  void unusableRevisionInReply(int rev) {
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REPLY_KEY + String.format(" 50 %02x 00 04 00 10 00 10",
        rev)));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
        "unsupported MPA revision " + rev);
  }

  @Test
  void nonEnhancedReplyToAnEnhancedRequest() {
    // siw as Initiator fails the connect likewise (docs/interop.md, siw finding §6:
    // "vers 1, enhcd 0").
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REPLY_KEY + " 40 01 00 00"));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
        "non-enhanced Reply");
  }

  @Test
  void replyWithSToARevisionOneRequest() {
    MpaInitiatorHandler ih = initiator(MpaSettings.builder().revision(1).build());
    ch.writeInbound(Hex.buf(REPLY_KEY + " 50 02 00 04 00 10 00 10"));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
        "enhanced Reply (Rev 2, S=1) to an unenhanced Request");
  }

  @Test
  void enhancedFrameTooShortForItsEnhancedData() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 10 02 00 02 00 10"));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME, "too short");
  }

  @Test
  void initiatorInitiatorCollision() {
    MpaInitiatorHandler a = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaInitiatorHandler b = new MpaInitiatorHandler(MpaSettings.defaults());
    try (StartupPair pair = new StartupPair(new ChannelHandler[] {a}, new ChannelHandler[] {b})) {
      pair.propagateClose = false;
      pair.shuttle();
      assertFailed(a.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
          "initiator/initiator collision");
      assertFailed(b.handshakeFuture(), MpaError.INVALID_STARTUP_FRAME,
          "initiator/initiator collision");
      assertFalse(pair.initiator.isOpen());
      assertFalse(pair.responder.isOpen());
    }
  }

  // ---- what is NOT an error ----

  @Test
  void reservedBitsAndRInARequestAreNotChecked() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 3f 02 00 04 00 10 00 10"));
    assertTrue(rh.handshakeFuture().isSuccess());
    assertEquals(REPLY_KEY + " 50 02 00 04 00 10 00 10", toHex(Outbound.drain(ch)),
        "Res and R are sent as 0 whatever the Request had");
  }

  @Test
  void siwGsoBitInTheReplyIsIgnored() {
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REPLY_KEY + " 58 02 00 04 00 10 00 10"));
    assertTrue(ih.handshakeFuture().isSuccess());
  }

  // ---- timeouts and closes: 0x01 ----

  @Test
  void replyTimeout() {
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.advanceTimeBy(9_999, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertFalse(ih.handshakeFuture().isDone());
    ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    MpaException e = assertFailedAndClosed(ih.handshakeFuture(), MpaError.TCP_CONNECTION_LOST,
        "no MPA Reply within PT10S");
    assertInstanceOf(TimeoutException.class, e.getCause());
  }

  @Test
  void requestTimeoutStopsASlowloris() {
    MpaResponderHandler rh = responder(MpaSettings.builder()
        .requestTimeout(Duration.ofSeconds(2)).build());
    byte[] request = hex(GOOD_REQUEST);
    for (int i = 0; i < 10; i++) {
      ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {request[i]}));
      ch.advanceTimeBy(190, TimeUnit.MILLISECONDS);
      ch.runScheduledPendingTasks();
    }
    assertFalse(rh.handshakeFuture().isDone(), "1.9 s in, still waiting");
    ch.advanceTimeBy(100, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    MpaException e = assertFailedAndClosed(rh.handshakeFuture(), MpaError.TCP_CONNECTION_LOST,
        "no MPA Request");
    assertInstanceOf(TimeoutException.class, e.getCause());
    assertTrue(e.getMessage().contains("10 octets of the frame received")
        || e.getMessage().contains("within PT2S"), e.getMessage());
    assertNothingSent();
  }

  @Test
  void requestTimeoutCoversAUlpThatNeverDecides() {
    HandshakeFixtures.UlpDecision ulp = new HandshakeFixtures.UlpDecision();
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults());
    ch = new EmbeddedChannel(rh, ulp);
    ch.writeInbound(Hex.buf(GOOD_REQUEST));
    ch.advanceTimeBy(5, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.TCP_CONNECTION_LOST, "within PT5S");
    ulp.request.get().accept();
    ch.runPendingTasks();
    assertNothingSent();
  }

  @Test
  void rtrTimeout() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 50 02 00 04 80 10 80 10"));
    assertEquals(REPLY_KEY + " 50 02 00 04 80 10 80 10", toHex(Outbound.drain(ch)));
    ch.advanceTimeBy(5, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.TCP_CONNECTION_LOST, "no RTR");
  }

  @Test
  void peerClosesWhileTheInitiatorWaits() {
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REPLY_KEY + " 50 02"));
    ch.close();
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.TCP_CONNECTION_LOST,
        "the connection closed during the MPA startup");
  }

  @Test
  void peerFinWhileTheResponderWaits() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY.substring(0, 29)));
    ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.TCP_CONNECTION_LOST,
        "the peer closed its half of the connection during the MPA startup");
  }

  @Test
  void peerClosesBeforeTheRtr() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 50 02 00 04 80 10 80 10"));
    ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.TCP_CONNECTION_LOST,
        "before sending its RTR");
  }

  // ---- RFC 6581 errors with a Terminate on the wire ----

  @Test
  void insufficientIrdSendsTerminate0x06AndCloses() {
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REPLY_KEY + " 50 02 00 04 00 10 00 11"));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.INSUFFICIENT_IRD, "ORD 17");
    assertEquals(toHex(fpdu(terminate("20 06"), true)), toHex(Outbound.drain(ch)));
  }

  @Test
  void noMatchingRtrSendsTerminate0x07AndCloses() {
    MpaInitiatorHandler ih = initiator(MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO)
        .rtrTypes(RtrType.WRITE).build());
    // Responder supports the Send RTR only; no CRC anywhere.
    ch.writeInbound(Hex.buf(REPLY_KEY + " 10 02 00 04 c0 10 00 10"));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.NO_MATCHING_RTR, "none of the");
    assertEquals(toHex(fpdu(terminate("20 07"), true)), toHex(Outbound.drain(ch)),
        "the Initiator asked for CRC, so the Terminate carries one");
  }

  @Test
  void connectionModelMismatchSendsTerminate0x07() {
    MpaInitiatorHandler ih = initiator(MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO).crc(false)
        .build());
    ch.writeInbound(Hex.buf(REPLY_KEY + " 10 02 00 04 00 10 00 10"));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.NO_MATCHING_RTR,
        "connection model mismatch");
    assertEquals(toHex(fpdu(terminate("20 07"), false)), toHex(Outbound.drain(ch)),
        "no CRC negotiated: the CRC field is zero");
  }

  @Test
  void terminateHonoursTheRepliesMarkerRequest() {
    MpaInitiatorHandler ih = initiator(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REPLY_KEY + " d0 02 00 04 00 10 01 00"));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.INSUFFICIENT_IRD, "ORD 256");
    // Rule 7: the Marker 00 00 00 00 comes first, and the CRC covers it (mpa.md §9.5).
    assertEquals(toHex(StartupWire.fpduAfterMarker(terminate("20 06"))),
        toHex(Outbound.drain(ch)));
  }

  @Test
  void responderGetsAnFpduThatIsNotAnRtr() {
    MpaResponderHandler rh = responder(MpaSettings.builder().crc(false).build());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 10 02 00 04 80 10 80 10"));
    assertEquals(REPLY_KEY + " 10 02 00 04 80 10 80 10", toHex(Outbound.drain(ch)));
    ch.writeInbound(Unpooled.wrappedBuffer(fpdu(hex(MpaHandshakeTest.HELLO), false)));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.NO_MATCHING_RTR, "not an RTR");
    assertEquals(toHex(fpdu(terminate("20 07"), false)), toHex(Outbound.drain(ch)));
  }

  @Test
  void responderGetsAnRtrItDidNotAllow() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 50 02 00 04 80 10 80 10"));
    Outbound.drain(ch);
    ch.writeInbound(Unpooled.wrappedBuffer(fpdu(hex(RtrWireTest.READ), true)));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.NO_MATCHING_RTR, "a READ RTR");
    assertEquals(toHex(fpdu(terminate("20 07"), true)), toHex(Outbound.drain(ch)));
  }

  @Test
  void rtrWithABadCrcFailsWithoutATerminate() {
    MpaResponderHandler rh = responder(MpaSettings.defaults());
    ch.writeInbound(Hex.buf(REQUEST_KEY + " 50 02 00 04 80 10 80 10"));
    Outbound.drain(ch);
    byte[] rtr = fpdu(hex(RtrWireTest.WRITE), true);
    rtr[rtr.length - 1] ^= 1;
    ch.writeInbound(Unpooled.wrappedBuffer(rtr));
    assertFailedAndClosed(rh.handshakeFuture(), MpaError.CRC_MISMATCH, "CRC");
    assertNothingSent();
  }

  @Test
  void localFailureAfterTheReplySendsTerminate0x05() {
    FailingAllocator alloc = new FailingAllocator();
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO)
        .build());
    ch = new EmbeddedChannel();
    ch.config().setAllocator(alloc);
    ch.pipeline().addLast(ih);
    Outbound.drain(ch);
    alloc.failNext = true;
    ch.writeInbound(Hex.buf(REPLY_KEY + " 50 02 00 04 80 10 80 10"));
    assertFailedAndClosed(ih.handshakeFuture(), MpaError.LOCAL_CATASTROPHIC,
        "simulated allocation failure");
    assertEquals(toHex(fpdu(terminate("20 05"), true)), toHex(Outbound.drain(ch)));
  }

  // ---- helpers ----

  /** The Terminate ULPDU for an MPA error whose control octets start with {@code control}. */
  private static byte[] terminate(String control) {
    return hex("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 " + control + " 00 00");
  }

  private MpaResponderHandler responder(MpaSettings s) {
    MpaResponderHandler rh = new MpaResponderHandler(s, true);
    ch = frozenChannel(rh);
    return rh;
  }

  private MpaInitiatorHandler initiator(MpaSettings s) {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(s);
    ch = frozenChannel(ih);
    Outbound.drain(ch);
    return ih;
  }

  /**
   * A channel whose clock moves only by advanceTimeBy, frozen before the handler arms its
   * timeout: otherwise wall-clock time on a loaded machine fires "9 999 ms" timeouts early.
   */
  private static EmbeddedChannel frozenChannel(ChannelHandler handler) {
    EmbeddedChannel c = new EmbeddedChannel();
    c.freezeTime();
    c.pipeline().addLast(handler); // active already: the handler starts in handlerAdded
    return c;
  }

  private void assertNothingSent() {
    assertEquals("", toHex(Outbound.drain(ch)));
  }

  private MpaException assertFailedAndClosed(Future<?> f, MpaError error, String detail) {
    MpaException e = assertFailed(f, error, detail);
    assertFalse(ch.isOpen(), "the TCP connection must be closed");
    return e;
  }

  static MpaException assertFailed(Future<?> f, MpaError error, String detail) {
    assertTrue(f.isDone(), "handshake still pending");
    MpaException e = assertInstanceOf(MpaException.class, f.cause());
    assertEquals(error, e.error(), e.getMessage());
    assertTrue(e.getMessage().contains(detail), e.getMessage());
    return e;
  }

  /** Allocates unpooled heap buffers, except that it fails the next allocation when told to. */
  private static final class FailingAllocator extends AbstractByteBufAllocator {
    boolean failNext;

    @Override
    public ByteBuf buffer(int initialCapacity) {
      if (failNext) {
        failNext = false;
        throw new IllegalStateException("simulated allocation failure");
      }
      return super.buffer(initialCapacity);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }
}
