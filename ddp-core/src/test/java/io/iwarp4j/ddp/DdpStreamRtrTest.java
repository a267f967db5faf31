package io.iwarp4j.ddp;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.RecordingStreamListener;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Control;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Untagged;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaInitiatorHandler;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.iwarp4j.mpa.MpaSettings;
import io.iwarp4j.mpa.RtrType;
import io.iwarp4j.testing.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * DdpStreams over real MPA connections (the startup handlers over two EmbeddedChannels): the
 * MSN contract after an RFC 6581 RTR (MpaConnectionInfo#rtr), and RFC 5044 §7.1.2 rule 4 for a
 * client-server Responder.
 */
class DdpStreamRtrTest {
  private static final long SEND = 0x43L << 32;
  private static final long READ_REQUEST = 0x41L << 32;

  private StagTable table;
  private ProtectionDomain pd;
  private MemoryRegion buffers;
  private EmbeddedChannel initiator;
  private EmbeddedChannel responder;
  private final RecordingStreamListener initiatorListener = new RecordingStreamListener();
  private final RecordingStreamListener responderListener = new RecordingStreamListener();

  @BeforeEach
  void setUp() {
    table = new StagTable(4, new SplittableRandom(11), Duration.ofSeconds(10));
    pd = table.newProtectionDomain();
    buffers = pd.allocate(1024, LOCAL_WRITE);
  }

  @AfterEach
  void tearDown() {
    if (initiator != null) {
      initiator.finishAndReleaseAll();
      responder.finishAndReleaseAll();
    }
    buffers.close();
    pd.close();
  }

  /** Runs the MPA startup and returns {initiator's, responder's} connection. */
  private MpaConnection[] handshake(MpaSettings initiatorSettings) {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(initiatorSettings);
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    initiator = new EmbeddedChannel(ih);
    responder = new EmbeddedChannel(rh);
    shuttle();
    MpaConnection ic = ih.handshakeFuture().getNow();
    MpaConnection rc = rh.handshakeFuture().getNow();
    assertNotNull(ic, "the Initiator's handshake completed");
    assertNotNull(rc, "the Responder's handshake completed");
    return new MpaConnection[] {ic, rc};
  }

  private void shuttle() {
    boolean moved;
    do {
      moved = move(initiator, responder) | move(responder, initiator);
    } while (moved);
  }

  private static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
    from.runPendingTasks();
    byte[] wire = Outbound.drain(from);
    if (wire.length > 0) {
      to.writeInbound(Unpooled.wrappedBuffer(wire));
    }
    return wire.length > 0;
  }

  /** A stream with QN 0 for posted buffers (two posted) and QN 1 for Read Requests. */
  private DdpStream stream(MpaConnection c, RecordingStreamListener listener, int bufferBase) {
    DdpStream s = new DdpStream(c, pd, listener);
    UntaggedReceiveQueue q0 = s.enableReceiveQueue(0, 2, 1);
    q0.post(buffers.buffer(), bufferBase, 100, bufferBase);
    q0.post(buffers.buffer(), bufferBase + 100, 100, bufferBase + 100);
    s.enableControlQueue(1, 28);
    s.start();
    return s;
  }

  /** A Send of 5 octets and a Read Request (28-octet RDMAP header) from {@code s}. */
  private static void sendBoth(DdpStream s) {
    ByteBuf payload = Unpooled.wrappedBuffer("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    ByteBuf readRequest = Unpooled.buffer(28).writeZero(28);
    try {
      s.sendUntagged(SEND, 0, null, new GatherList().add(payload));
      s.sendUntagged(READ_REQUEST, 1, readRequest, null);
      s.flush();
    } finally {
      payload.release();
      readRequest.release();
    }
  }

  @ParameterizedTest(name = "{0} RTR")
  @EnumSource(RtrType.class)
  void theNextSendAndReadRequestMsnsLineUpOnBothEnds(RtrType rtr) {
    MpaConnection[] c = handshake(MpaSettings.builder().peerToPeer(true)
        .firstFpduDelay(Duration.ZERO).rtrTypes(rtr).ird(4)
        .ord(4).build());
    assertEquals(rtr, c[0].info().rtr());
    assertEquals(rtr, c[1].info().rtr());
    DdpStream i = stream(c[0], initiatorListener, 0);
    DdpStream r = stream(c[1], responderListener, 512);

    // The RTR used MSN 1 of its queue in the Initiator-to-Responder direction only.
    int send = rtr == RtrType.SEND ? 2 : 1;
    int read = rtr == RtrType.READ ? 2 : 1;
    assertEquals(send, i.nextSendMsn(0));
    assertEquals(read, i.nextSendMsn(1));
    assertEquals(1, r.nextSendMsn(0));
    assertEquals(1, r.nextSendMsn(1));

    for (int round = 0; round < 2; round++) {
      sendBoth(i);
      sendBoth(r);
      shuttle();
    }
    String zeros = "00".repeat(28);
    assertEquals(List.of(
        new Untagged(0, send, SEND, 5, 512), new Control(1, read, READ_REQUEST, zeros),
        new Untagged(0, send + 1, SEND, 5, 612), new Control(1, read + 1, READ_REQUEST, zeros)),
        responderListener.deliveries, "what the Responder received");
    assertEquals(List.of(
        new Untagged(0, 1, SEND, 5, 0), new Control(1, 1, READ_REQUEST, zeros),
        new Untagged(0, 2, SEND, 5, 100), new Control(1, 2, READ_REQUEST, zeros)),
        initiatorListener.deliveries, "what the Initiator received");
    assertTrue(initiatorListener.errors.isEmpty() && responderListener.errors.isEmpty());
    assertEquals("hello", buffers.buffer().toString(512, 5,
        java.nio.charset.StandardCharsets.US_ASCII));
  }

  @Test
  void aClientServerResponderMayNotSendBeforeTheInitiatorsFirstFpdu() {
    MpaConnection[] c = handshake(MpaSettings.defaults());
    DdpStream i = stream(c[0], initiatorListener, 0);
    DdpStream r = stream(c[1], responderListener, 512);
    assertFalse(r.sendEnabled());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> sendBoth(r));
    assertTrue(e.getMessage().contains("RFC 5044 §7.1.2 rule 4"), e.getMessage());
    assertTrue(Outbound.drain(responder).length == 0, "nothing was written");

    sendBoth(i);
    shuttle();
    assertTrue(r.sendEnabled());
    assertTrue(c[1].sendEnabledFuture().isSuccess());
    sendBoth(r);
    shuttle();
    assertEquals(2, responderListener.deliveries.size());
    assertEquals(2, initiatorListener.deliveries.size());
    assertTrue(initiatorListener.errors.isEmpty() && responderListener.errors.isEmpty());
  }
}
