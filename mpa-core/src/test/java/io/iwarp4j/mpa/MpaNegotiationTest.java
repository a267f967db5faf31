package io.iwarp4j.mpa;

import static io.iwarp4j.mpa.StartupWire.REPLY_KEY;
import static io.iwarp4j.mpa.StartupWire.REQUEST_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.mpa.MpaNegotiation.ReplyOutcome;
import io.iwarp4j.testing.Hex;
import io.iwarp4j.wire.MpaStartupFrame;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The startup negotiation as pure functions (mpa.md §3.3, §3.4, §3.6; docs/interop.md, siw
 * finding §5).
 */
class MpaNegotiationTest {
  private static final int X = MpaSettings.IRD_ORD_NO_NEGOTIATION;

  /** A Responder that behaves like siw: no CRC of its own, no Markers, IRD=ORD=16. */
  private static final MpaSettings SIW_LIKE = MpaSettings.builder().crc(false).build();

  // ---- Initiator: the Request ----

  @Test
  void defaultRequestIsRev2WithSCrcAndIrdOrd16() {
    assertEquals(REQUEST_KEY + " 50 02 00 04 00 10 00 10",
        requestHex(MpaSettings.defaults()));
  }

  @Test
  void specRequestFromSettings() {
    MpaSettings s = MpaSettings.builder().peerToPeer(true)
        .rtrTypes(RtrType.WRITE, RtrType.READ).privateData(Hex.hex("de ad be ef")).build();
    assertEquals(MpaStartupFrameTest.SPEC_REQUEST, requestHex(s));
  }

  @Test
  void unenhancedRequests() {
    assertEquals(REQUEST_KEY + " 00 01 00 00",
        requestHex(MpaSettings.builder().revision(1).crc(false).build()));
    assertEquals(REQUEST_KEY + " c0 02 00 02 68 69", requestHex(MpaSettings.builder()
        .enhanced(false).markers(true).privateData("hi".getBytes(StandardCharsets.US_ASCII))
        .build()));
  }

  // ---- Responder: every siw reply of docs/interop.md, siw finding §5 ----

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = ';', value = {
      "00 01 00 00; 00 01 00 00",
      "40 01 00 00; 40 01 00 00",
      "10 02 00 04 00 10 00 10; 10 02 00 04 00 10 00 10",
      "50 02 00 04 00 10 00 10; 50 02 00 04 00 10 00 10",
      "10 02 00 0e 00 01 00 01 48 65 6c 6c 6f 20 73 69 77 21; 10 02 00 04 00 01 00 01",
      "00 02 00 00; 00 02 00 00",
      "10 02 00 04 80 01 80 01; 10 02 00 04 80 01 80 01",
      "10 02 00 04 80 01 40 01; 10 02 00 04 80 01 40 01",
  })
  void reproducesSiwReplies(String request, String expectedReply) {
    MpaPeerParameters req = decode(REQUEST_KEY + " " + request);
    MpaPeerParameters reply = MpaNegotiation.reply(req, SIW_LIKE, 16, 16, new byte[0], false);
    assertEquals(REPLY_KEY + " " + expectedReply, replyHex(reply));
  }

  @Test
  void reproducesSiwRejectOfMarkersWhenTheUlpRejects() {
    MpaPeerParameters req = decode(REQUEST_KEY + " 80 01 00 00");
    assertEquals(REPLY_KEY + " 20 01 00 00",
        replyHex(MpaNegotiation.reply(req, SIW_LIKE, 16, 16, new byte[0], true)));
  }

  @Test
  void reproducesPerftestWriteServerAcceptingWithOrdZero() {
    MpaPeerParameters req = decode(REQUEST_KEY + " 10 02 00 04 00 10 00 10");
    assertEquals(REPLY_KEY + " 10 02 00 04 00 10 00 00",
        replyHex(MpaNegotiation.reply(req, SIW_LIKE, 16, 0, new byte[0], false)));
  }

  @Test
  void specReplyFromAWriteOnlyResponder() {
    MpaPeerParameters req = decode(MpaStartupFrameTest.SPEC_REQUEST);
    MpaSettings s = MpaSettings.builder().rtrTypes(RtrType.WRITE).build();
    assertEquals(MpaStartupFrameTest.SPEC_REPLY,
        replyHex(MpaNegotiation.reply(req, s, 16, 16, new byte[0], false)));
  }

  @ParameterizedTest(name = "request C={0}, responder C={1} -> CRC {2}")
  @CsvSource({"false,false,false", "true,false,true", "false,true,true", "true,true,true"})
  void crcIsTheOrOfBothBits(boolean requestC, boolean responderC, boolean expected) {
    MpaSettings init = MpaSettings.builder().crc(requestC).build();
    MpaSettings resp = MpaSettings.builder().crc(responderC).build();
    MpaPeerParameters req = MpaNegotiation.request(init);
    MpaPeerParameters reply = MpaNegotiation.reply(req, resp, 16, 16, new byte[0], false);
    assertEquals(expected, reply.crc(), "a Responder echoes C=1 and adds its own");
    ReplyOutcome o = MpaNegotiation.evaluateReply(req, reply, init, 1460);
    assertEquals(expected, o.info().crc());
    assertEquals(expected,
        MpaNegotiation.responderInfo(req, reply, 16, 16, null, 1460, 0).crc());
  }

  @ParameterizedTest(name = "initiator M={0}, responder M={1}")
  @CsvSource({"false,false", "true,false", "false,true", "true,true"})
  void markersAreNegotiatedPerDirection(boolean initM, boolean respM) {
    MpaSettings init = MpaSettings.builder().markers(initM).build();
    MpaSettings resp = MpaSettings.builder().markers(respM).build();
    MpaPeerParameters req = MpaNegotiation.request(init);
    MpaPeerParameters reply = MpaNegotiation.reply(req, resp, 16, 16, new byte[0], false);
    MpaConnectionInfo i = MpaNegotiation.evaluateReply(req, reply, init, 1460).info();
    MpaConnectionInfo r = MpaNegotiation.responderInfo(req, reply, 16, 16, null, 1460, 0);
    assertEquals(respM, i.markersOut());
    assertEquals(initM, i.markersIn());
    assertEquals(initM, r.markersOut());
    assertEquals(respM, r.markersIn());
    assertEquals(Mulpdu.of(1460, respM), i.maxUlpduLength());
    assertEquals(Mulpdu.of(1460, initM), r.maxUlpduLength());
  }

  @Test
  void responderAnswersEnhancedWithEnhancedAndUnenhancedWithUnenhanced() {
    MpaPeerParameters enhanced = decode(REQUEST_KEY + " 10 02 00 04 00 10 00 10");
    MpaPeerParameters plain2 = decode(REQUEST_KEY + " 00 02 00 00");
    MpaPeerParameters plain1 = decode(REQUEST_KEY + " 10 01 00 00");
    MpaSettings s = MpaSettings.defaults();
    assertTrue(MpaNegotiation.reply(enhanced, s, 16, 16, new byte[0], false).enhanced());
    MpaPeerParameters r2 = MpaNegotiation.reply(plain2, s, 16, 16, new byte[0], false);
    assertFalse(r2.enhanced());
    assertEquals(2, r2.revision());
    MpaPeerParameters r1 = MpaNegotiation.reply(plain1, s, 16, 16, new byte[0], false);
    assertFalse(r1.enhanced());
    assertEquals(1, r1.revision());
    MpaConnectionInfo info = MpaNegotiation.responderInfo(plain1, r1, 7, 9, null, 1460, 0);
    assertEquals(7, info.localIrd(), "unenhanced: the ULP's own values, no negotiation");
    assertEquals(9, info.localOrd());
  }

  // ---- IRD / ORD (RFC 6581 §9.1) ----

  @ParameterizedTest(name = "init IRD {0} ORD {1}, resp accepts IRD {2} ORD {3} -> reply {4}/{5}")
  @CsvSource({
      "16, 16, 16, 16, 16, 16",
      "1, 1, 16, 16, 1, 1",
      "16, 4, 2, 8, 2, 8",
      "0, 0, 16, 16, 0, 0",
      // Initiator ORD 0x3FFF: reply IRD 0x3FFF; Initiator IRD 0x3FFF: reply ORD 0x3FFF
      "16, 16383, 8, 8, 16383, 8",
      "16383, 16, 8, 8, 8, 16383",
      // Responder's own 0x3FFF: the ULP negotiates, sent as is
      "4, 4, 16383, 2, 16383, 2",
  })
  void responderIrdOrd(int initIrd, int initOrd, int ird, int ord, int replyIrd, int replyOrd) {
    MpaPeerParameters req = MpaNegotiation.request(
        MpaSettings.builder().ird(initIrd).ord(initOrd).build());
    MpaPeerParameters reply = MpaNegotiation.reply(req, MpaSettings.defaults(), ird, ord,
        new byte[0], false);
    assertEquals(replyIrd, reply.ird());
    assertEquals(replyOrd, reply.ord());
    assertTrue(initOrd == X || reply.ird() == X || reply.ird() <= initOrd);
    assertTrue(initIrd == X || reply.ord() == X || reply.ord() <= initIrd,
        "Responder ORD MUST be at most the Initiator IRD");
  }

  @Test
  void noNegotiationLeavesTheResponderValueUnchanged() {
    MpaPeerParameters req = MpaNegotiation.request(MpaSettings.builder().ird(X).ord(X).build());
    MpaPeerParameters reply = MpaNegotiation.reply(req, MpaSettings.defaults(), 5, 6,
        new byte[0], false);
    MpaConnectionInfo info = MpaNegotiation.responderInfo(req, reply, 5, 6, null, 1460, 0);
    assertEquals(X, reply.ird());
    assertEquals(X, reply.ord());
    assertEquals(5, info.localIrd());
    assertEquals(6, info.localOrd());
    assertEquals(X, info.peer().ird(), "the peer's values are passed to the ULP");
  }

  @Test
  void initiatorKeepsItsIrdAndLowersItsOrd() {
    MpaSettings s = MpaSettings.defaults();
    MpaPeerParameters req = MpaNegotiation.request(s);
    ReplyOutcome o = MpaNegotiation.evaluateReply(req,
        decode(REPLY_KEY + " 10 02 00 04 00 04 00 02"), s, 1460);
    assertEquals(ReplyOutcome.Kind.ESTABLISHED, o.kind());
    assertEquals(16, o.info().localIrd());
    assertEquals(4, o.info().localOrd());
    assertEquals(4, o.info().peer().ird());
    assertEquals(2, o.info().peer().ord());
    assertTrue(o.info().localIrd() >= o.info().peer().ord());
    assertTrue(o.info().localOrd() <= o.info().peer().ird());
  }

  @Test
  void initiatorWithoutEnoughIrdMustTerminateWith0x06() {
    MpaSettings s = MpaSettings.defaults();
    ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(s),
        decode(REPLY_KEY + " 10 02 00 04 00 10 00 11"), s, 1460);
    assertEquals(ReplyOutcome.Kind.TERMINATE, o.kind());
    assertEquals(MpaError.INSUFFICIENT_IRD, o.error());
    assertTrue(o.reason().contains("ORD 17"), o.reason());
  }

  @Test
  void initiatorLeavesValuesUnchangedOn0x3fff() {
    MpaSettings s = MpaSettings.builder().ird(3).ord(5).build();
    ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(s),
        decode(REPLY_KEY + " 10 02 00 04 3f ff 3f ff"), s, 1460);
    assertEquals(ReplyOutcome.Kind.ESTABLISHED, o.kind());
    assertEquals(3, o.info().localIrd());
    assertEquals(5, o.info().localOrd());
    // An Initiator that asked for no negotiation of its IRD takes any Responder ORD.
    MpaSettings free = MpaSettings.builder().ird(X).build();
    ReplyOutcome o2 = MpaNegotiation.evaluateReply(MpaNegotiation.request(free),
        decode(REPLY_KEY + " 10 02 00 04 00 10 01 00"), free, 1460);
    assertEquals(ReplyOutcome.Kind.ESTABLISHED, o2.kind());
    assertEquals(X, o2.info().localIrd());
  }

  // ---- Peer-to-peer / RTR (RFC 6581 §9.2) ----

  @Test
  void responderSetsTheRequestedFlagsItSupports() {
    MpaPeerParameters req = p2pRequest(EnumSet.of(RtrType.SEND, RtrType.READ), 4, 4);
    MpaSettings s = MpaSettings.builder().rtrTypes(RtrType.READ, RtrType.WRITE).build();
    MpaPeerParameters reply = MpaNegotiation.reply(req, s, 16, 16, new byte[0], false);
    assertTrue(reply.peerToPeer(), "A is echoed");
    assertEquals(Set.of(RtrType.READ), reply.rtrTypes());
  }

  @Test
  void responderSupportingNoneOfTheRequestedSetsOneItSupports() {
    MpaPeerParameters req = p2pRequest(EnumSet.of(RtrType.SEND), 4, 4);
    MpaSettings s = MpaSettings.builder().rtrTypes(RtrType.WRITE).build();
    MpaPeerParameters reply = MpaNegotiation.reply(req, s, 16, 16, new byte[0], false);
    assertEquals(Set.of(RtrType.WRITE), reply.rtrTypes());
  }

  @Test
  void readRtrRaisesAZeroResponderIrdToOne() {
    MpaPeerParameters req = p2pRequest(EnumSet.of(RtrType.READ), 4, 0);
    MpaPeerParameters reply = MpaNegotiation.reply(req, MpaSettings.defaults(), 16, 16,
        new byte[0], false);
    assertEquals(Set.of(RtrType.READ), reply.rtrTypes());
    assertEquals(1, reply.ird());
  }

  @Test
  void responderWithoutIrdDropsReadWhenItHasAlternatives() {
    MpaPeerParameters req = p2pRequest(EnumSet.of(RtrType.READ, RtrType.SEND), 4, 4);
    MpaPeerParameters reply = MpaNegotiation.reply(req, MpaSettings.defaults(), 0, 16,
        new byte[0], false);
    assertEquals(Set.of(RtrType.SEND), reply.rtrTypes());
    assertEquals(0, reply.ird());
  }

  @Test
  void clientServerRequestGetsNoRtrFlags() {
    MpaPeerParameters reply = MpaNegotiation.reply(MpaNegotiation.request(MpaSettings.defaults()),
        MpaSettings.defaults(), 16, 16, new byte[0], false);
    assertFalse(reply.peerToPeer());
    assertTrue(reply.rtrTypes().isEmpty());
  }

  @Test
  void initiatorPrefersWriteThenReadThenSend() {
    Set<RtrType> all = EnumSet.allOf(RtrType.class);
    assertEquals(RtrType.WRITE, MpaNegotiation.chooseRtr(all, all, 1));
    assertEquals(RtrType.READ,
        MpaNegotiation.chooseRtr(EnumSet.of(RtrType.READ, RtrType.SEND), all, 1));
    assertEquals(RtrType.SEND,
        MpaNegotiation.chooseRtr(EnumSet.of(RtrType.READ, RtrType.SEND), all, 0));
    assertEquals(RtrType.READ, MpaNegotiation.chooseRtr(EnumSet.of(RtrType.READ), all, X));
    assertNull(MpaNegotiation.chooseRtr(EnumSet.of(RtrType.SEND), EnumSet.of(RtrType.WRITE), 1));
    assertNull(MpaNegotiation.chooseRtr(EnumSet.of(RtrType.READ), all, 0));
  }

  @Test
  void initiatorWithNoUsableRtrMustTerminateWith0x07() {
    MpaSettings s = MpaSettings.builder().peerToPeer(true).rtrTypes(RtrType.WRITE).build();
    ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(s),
        decode(REPLY_KEY + " 10 02 00 04 c0 10 00 10"), s, 1460);
    assertEquals(ReplyOutcome.Kind.TERMINATE, o.kind());
    assertEquals(MpaError.NO_MATCHING_RTR, o.error());
    assertTrue(o.info().crc(), "info is present to frame the Terminate with CRC");
  }

  @Test
  void aNotEchoedIsAConnectionModelMismatch() {
    MpaSettings p2p = MpaSettings.builder().peerToPeer(true).build();
    ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(p2p),
        decode(REPLY_KEY + " 10 02 00 04 00 10 00 10"), p2p, 1460);
    assertEquals(MpaError.NO_MATCHING_RTR, o.error());
    MpaSettings cs = MpaSettings.defaults();
    ReplyOutcome o2 = MpaNegotiation.evaluateReply(MpaNegotiation.request(cs),
        decode(REPLY_KEY + " 10 02 00 04 80 10 80 10"), cs, 1460);
    assertEquals(MpaError.NO_MATCHING_RTR, o2.error());
  }

  @Test
  void initiatorRecordsTheChosenRtr() {
    MpaSettings s = MpaSettings.builder().peerToPeer(true).build();
    ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(s),
        decode(REPLY_KEY + " 10 02 00 04 80 10 40 10"), s, 1460);
    assertEquals(ReplyOutcome.Kind.ESTABLISHED, o.kind());
    assertTrue(o.info().peerToPeer());
    assertEquals(RtrType.READ, o.info().rtr());
  }

  // ---- Interoperability (RFC 6581 §10) and reject ----

  @Test
  void nonEnhancedReplyToAnEnhancedRequestIsAProtocolFailure() {
    MpaSettings s = MpaSettings.defaults();
    for (String reply : new String[] {"40 01 00 00", "40 02 00 00", "50 01 00 00"}) {
      ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(s),
          decode(REPLY_KEY + " " + reply), s, 1460);
      assertEquals(ReplyOutcome.Kind.MALFORMED, o.kind(), reply);
      assertEquals(MpaError.INVALID_STARTUP_FRAME, o.error());
    }
  }

  @Test
  void enhancedReplyToAnUnenhancedRequestIsMalformed() {
    MpaSettings s = MpaSettings.builder().revision(1).build();
    ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(s),
        decode(REPLY_KEY + " 50 02 00 04 00 10 00 10"), s, 1460);
    assertEquals(ReplyOutcome.Kind.MALFORMED, o.kind());
    assertTrue(o.reason().contains("unenhanced Request"), o.reason());
  }

  @Test
  void rejectWinsOverEverythingElse() {
    MpaSettings s = MpaSettings.defaults();
    ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(s),
        decode(REPLY_KEY + " 20 01 00 00"), s, 1460);
    assertEquals(ReplyOutcome.Kind.REJECTED, o.kind());
  }

  @Test
  void replyPrivateDataLimits() {
    MpaPeerParameters enhanced = MpaNegotiation.request(MpaSettings.defaults());
    MpaPeerParameters plain = MpaNegotiation.request(MpaSettings.builder().revision(1).build());
    MpaSettings s = MpaSettings.defaults();
    assertEquals(508, MpaNegotiation.reply(enhanced, s, 1, 1, new byte[508], false)
        .privateDataLength());
    assertThrows(IllegalArgumentException.class,
        () -> MpaNegotiation.reply(enhanced, s, 1, 1, new byte[509], false));
    assertEquals(512, MpaNegotiation.reply(plain, s, 1, 1, new byte[512], false)
        .privateDataLength());
    assertThrows(IllegalArgumentException.class,
        () -> MpaNegotiation.reply(plain, s, 1, 1, new byte[513], false));
    assertThrows(IllegalArgumentException.class,
        () -> MpaNegotiation.reply(plain, s, 0x4000, 1, new byte[0], false));
  }

  @Test
  void mulpduIsCappedBySettings() {
    assertEquals(Mulpdu.of(1460, false), MpaNegotiation.maxUlpduLength(1460, false, 0));
    assertEquals(1000, MpaNegotiation.maxUlpduLength(1460, false, 1000));
    assertEquals(Mulpdu.of(1460, true), MpaNegotiation.maxUlpduLength(1460, true, 9000));
    MpaSettings s = MpaSettings.builder().maxUlpduLength(512).build();
    ReplyOutcome o = MpaNegotiation.evaluateReply(MpaNegotiation.request(s),
        decode(REPLY_KEY + " 10 02 00 04 00 10 00 10"), s, 1460);
    assertEquals(512, o.info().maxUlpduLength());
  }

  // ---- helpers ----

  private static MpaPeerParameters p2pRequest(Set<RtrType> rtr, int ird, int ord) {
    return MpaNegotiation.request(MpaSettings.builder().peerToPeer(true).rtrTypes(rtr).ird(ird)
        .ord(ord).build());
  }

  static MpaPeerParameters decode(String hex) {
    MpaStartupFrame f = new MpaStartupFrame().wrap(Hex.buf(hex), 0);
    assertNull(f.checkHeader(f.kind()));
    return StartupFrames.decode(f);
  }

  private static String requestHex(MpaSettings s) {
    return MpaStartupFrameTest.encode(MpaStartupFrame.Kind.REQUEST, MpaNegotiation.request(s));
  }

  private static String replyHex(MpaPeerParameters reply) {
    return MpaStartupFrameTest.encode(MpaStartupFrame.Kind.REPLY, reply);
  }
}
