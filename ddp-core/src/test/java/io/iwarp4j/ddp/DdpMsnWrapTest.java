package io.iwarp4j.ddp;

import static io.iwarp4j.ddp.mem.AccessFlags.LOCAL_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.ddp.testing.RecordingStreamListener;
import io.iwarp4j.ddp.testing.RecordingStreamListener.Untagged;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaInitiatorHandler;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.iwarp4j.mpa.MpaSettings;
import io.iwarp4j.testing.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RFC 5041 §4.3: the MSN "MUST wrap from 0xFFFFFFFF to 0", on the sending side (the segmenter
 * numbers the message after 0xFFFFFFFF as 0) and the receiving side (the queue that received
 * 0xFFFFFFFF expects 0, and takes nothing else). Two DdpStreams over real MPA connections on two
 * EmbeddedChannels; queue 0 of each starts near the wrap through the package-private seam
 * {@code DdpStream#startQueueAtMsn}.
 */
class DdpMsnWrapTest {
  private static final long SEND = 0x43L << 32;

  private StagTable table;
  private ProtectionDomain pd;
  private MemoryRegion buffers;
  private EmbeddedChannel initiator;
  private EmbeddedChannel responder;
  private final RecordingStreamListener initiatorListener = new RecordingStreamListener();
  private final RecordingStreamListener responderListener = new RecordingStreamListener();
  /** The MSN of every untagged DDP segment the Initiator wrote, in order. */
  private final List<Integer> wireMsns = new ArrayList<>();

  @BeforeEach
  void setUp() {
    table = new StagTable(4, new SplittableRandom(11), Duration.ofSeconds(10));
    pd = table.newProtectionDomain();
    buffers = pd.allocate(1024, LOCAL_WRITE);
  }

  @AfterEach
  void tearDown() {
    initiator.finishAndReleaseAll();
    responder.finishAndReleaseAll();
    buffers.close();
    pd.close();
  }

  private DdpStream[] streams(int sendMsn, int receiveMsn) {
    MpaInitiatorHandler ih = new MpaInitiatorHandler(MpaSettings.defaults());
    MpaResponderHandler rh = new MpaResponderHandler(MpaSettings.defaults(), true);
    initiator = new EmbeddedChannel(ih);
    responder = new EmbeddedChannel(rh);
    shuttle(false);
    MpaConnection ic = ih.handshakeFuture().getNow();
    MpaConnection rc = rh.handshakeFuture().getNow();
    assertNotNull(ic);
    assertNotNull(rc);
    DdpStream i = stream(ic, initiatorListener, 0);
    DdpStream r = stream(rc, responderListener, 512);
    i.startQueueAtMsn(0, sendMsn, 1);
    r.startQueueAtMsn(0, 1, receiveMsn);
    i.start();
    r.start();
    return new DdpStream[] {i, r};
  }

  private DdpStream stream(MpaConnection c, RecordingStreamListener listener, int base) {
    DdpStream s = new DdpStream(c, pd, listener);
    UntaggedReceiveQueue q0 = s.enableReceiveQueue(0, 4, 1);
    for (int k = 0; k < 4; k++) {
      q0.post(buffers.buffer(), base + 100 * k, 100, base + 100 * k);
    }
    return s;
  }

  private static void send(DdpStream s, String text) {
    ByteBuf payload = Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.US_ASCII));
    try {
      s.sendUntagged(SEND, 0, null, new GatherList().add(payload));
      s.flush();
    } finally {
      payload.release();
    }
  }

  private void shuttle(boolean recordMsns) {
    boolean moved;
    do {
      moved = move(initiator, responder, recordMsns) | move(responder, initiator, false);
    } while (moved);
  }

  private boolean move(EmbeddedChannel from, EmbeddedChannel to, boolean recordMsns) {
    from.runPendingTasks();
    byte[] wire = Outbound.drain(from);
    if (wire.length > 0) {
      if (recordMsns) {
        recordMsns(wire);
      }
      to.writeInbound(Unpooled.wrappedBuffer(wire));
    }
    return wire.length > 0;
  }

  /** Walks the FPDUs (no Markers): ULPDU_Length (2), the ULPDU, PAD to 4, CRC (4). */
  private void recordMsns(byte[] wire) {
    ByteBuf b = Unpooled.wrappedBuffer(wire);
    while (b.isReadable()) {
      int ulpduLength = b.readUnsignedShort();
      ByteBuf ulpdu = b.readSlice(ulpduLength);
      wireMsns.add(ulpdu.getInt(10)); // control 2, RsvdULP 4, QN 4, then MSN (RFC 5041 §4.3)
      b.skipBytes((4 - (2 + ulpduLength) % 4) % 4 + 4);
    }
  }

  @Test
  void theSenderNumbersTheMessageAfter0xFfffffffAs0AndTheReceiverTakesIt() {
    DdpStream[] s = streams(0xFFFF_FFFE, 0xFFFF_FFFE);
    assertEquals(0xFFFF_FFFE, s[0].nextSendMsn(0));
    for (String text : new String[] {"a", "bb", "ccc", "dddd"}) {
      send(s[0], text);
    }
    assertEquals(2, s[0].nextSendMsn(0));
    shuttle(true);

    assertEquals(List.of(0xFFFF_FFFE, 0xFFFF_FFFF, 0, 1), wireMsns, "MSNs on the wire");
    assertEquals(List.of(new Untagged(0, 0xFFFF_FFFE, SEND, 1, 512),
        new Untagged(0, 0xFFFF_FFFF, SEND, 2, 612), new Untagged(0, 0, SEND, 3, 712),
        new Untagged(0, 1, SEND, 4, 812)), responderListener.deliveries);
    assertTrue(responderListener.errors.isEmpty(), responderListener.errors.toString());
    assertEquals(2, s[1].receiveQueue(0).expectedMsn());
  }

  /**
   * The receiver after 0xFFFFFFFF expects 0: a sender that goes on to 0x100000000 cannot exist,
   * so the negative case is one that jumps, here from 0xFFFFFFFF back to 1 (the MSN counted
   * without the wrap would be 0x100000000, neither 0 nor 1): Terminate DDP U3 "MSN range".
   */
  @Test
  void theReceiverThatTook0xFfffffffRefusesAnythingBut0() {
    DdpStream[] s = streams(0xFFFF_FFFF, 0xFFFF_FFFF);
    send(s[0], "a");
    shuttle(true);
    assertEquals(List.of(new Untagged(0, 0xFFFF_FFFF, SEND, 1, 512)),
        responderListener.deliveries);
    assertEquals(0, s[1].receiveQueue(0).expectedMsn(), "the receiver's MSN wrapped");

    // A second stream pair whose sender skips 0: its MSN 1 is out of range at a receiver that
    // expects 0 (the first pair's receiver, re-created with the wrap already behind it).
    tearDownChannels();
    DdpStream[] t = streams(1, 0);
    send(t[0], "b");
    shuttle(true);
    assertEquals(List.of(), responderListener.deliveries);
    assertEquals(1, responderListener.errors.size(), responderListener.errors.toString());
    assertEquals(DdpError.INVALID_MSN_RANGE, responderListener.errors.get(0).error());
  }

  private void tearDownChannels() {
    initiator.finishAndReleaseAll();
    responder.finishAndReleaseAll();
    initiatorListener.deliveries.clear();
    responderListener.deliveries.clear();
    wireMsns.clear();
  }
}
