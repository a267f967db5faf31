package io.iwarp4j.mpa.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaError;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.MpaInitiatorHandler;
import io.iwarp4j.mpa.MpaRejectedException;
import io.iwarp4j.mpa.MpaResponderHandler;
import io.iwarp4j.mpa.MpaSettings;
import io.iwarp4j.wire.MpaStartupFrame;
import io.iwarp4j.mpa.RtrType;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Coverage-guided fuzzing of the MPA startup: the Request parser of {@link MpaResponderHandler}
 * and the Reply parser of {@link MpaInitiatorHandler} ({@link MpaStartupFrame}, RFC 5044 §7.1,
 * RFC 6581 enhanced data and RTR), followed by whatever Full Operation octets come after the frame.
 *
 * <p>Input layout ({@link ByteCursor}): a settings octet (bit 0 responder, bit 1 no key prefix,
 * bit 2 revision 1, bit 3 peer-to-peer, bit 4 CRC, bit 5 Markers, bit 6 Write RTR instead of Send),
 * a 16-bit length and the frame octets after the key, then 16-bit read sizes.
 * Our side's settings (revision, CRC, Markers, peer-to-peer, RTR types) come from the input, and
 * the frame usually starts with the right key so the fuzzer spends its time on the fields after it.
 * Invariants: no exception escapes the pipeline; a failed handshake fails with an
 * {@link MpaException} or {@link MpaRejectedException} (the protocol's own error path), and a malformed frame closes the connection; a good one yields
 * a connection whose negotiated CRC/Markers are what our settings allow; every read buffer and
 * every frame we sent are released.
 */
class MpaStartupFuzzTest {
  private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

  /** RtrCloseGuard holds a close for at most this many quiet periods (its bound). */
  private static final int RTR_GUARD_QUIET_PERIODS = 3;

  @FuzzTest(maxDuration = "60s")
  void startup(byte[] fuzz) {
    ByteCursor data = new ByteCursor(fuzz);
    int cfg = data.u8();
    boolean responder = (cfg & 1) != 0;
    boolean withKey = (cfg & 2) == 0;
    int revision = (cfg & 4) != 0 ? 1 : 2;
    boolean p2p = revision == 2 && (cfg & 8) != 0;
    MpaSettings settings = MpaSettings.builder()
        .revision(revision)
        .crc((cfg & 16) != 0)
        .markers((cfg & 32) != 0)
        .peerToPeer(p2p)
        .rtrTypes((cfg & 64) != 0 ? RtrType.WRITE : RtrType.SEND, RtrType.READ)
        .build();
    byte[] frame = data.bytes(data.intIn(0, MpaStartupFrame.MAX_FRAME_LENGTH + 64));
    byte[] wire;
    if (withKey) {
      byte[] key = responder ? REQUEST_KEY : REPLY_KEY;
      wire = new byte[key.length + frame.length];
      System.arraycopy(key, 0, wire, 0, key.length);
      System.arraycopy(frame, 0, wire, key.length, frame.length);
    } else {
      wire = frame;
    }

    EmbeddedChannel ch;
    Future<MpaConnection> handshake;
    if (responder) {
      MpaResponderHandler handler = new MpaResponderHandler(settings, true);
      ch = new EmbeddedChannel(handler);
      handshake = handler.handshakeFuture();
    } else {
      MpaInitiatorHandler handler = new MpaInitiatorHandler(settings);
      ch = new EmbeddedChannel(handler);
      handshake = handler.handshakeFuture();
    }
    releaseOutbound(ch);
    int[] ulpdus = {0};
    handshake.addListener(f -> {
      if (f.isSuccess()) {
        ((MpaConnection) f.getNow()).setListener(new CountingListener(ulpdus));
      }
    });
    FuzzInput input = new FuzzInput();
    try {
      input.feed(ch, data, wire, 64, () -> releaseOutbound(ch));
      ch.checkException();
      if (handshake.isDone() && !handshake.isSuccess()) {
        Throwable cause = handshake.cause();
        assertTrue(cause instanceof MpaException || cause instanceof MpaRejectedException,
            () -> "not the MPA error path: " + cause);
        if (cause instanceof MpaException
            && ((MpaException) cause).error() == MpaError.INVALID_STARTUP_FRAME) {
          // RFC 5044 §7.1.2: a malformed frame closes TCP (a reject leaves it to the ULP).
          assertFalse(ch.isOpen(), "a malformed startup frame must close the connection");
        }
      } else if (handshake.isSuccess()) {
        MpaConnection conn = handshake.getNow();
        // RFC 5044 §7.1.2: CRC is in use when either end asked for it; we insert Markers
        // exactly when the peer's frame asked for them, and expect them when we asked.
        assertEquals(settings.crc() || conn.info().peer().crc(), conn.info().crc(), "CRC");
        assertEquals(conn.info().peer().markers(), conn.info().markersOut(), "Markers we send");
        assertEquals(settings.markers(), conn.info().markersIn(), "Markers we expect");
        assertEquals(!responder, conn.info().initiator());
      }
    } finally {
      // Let time pass, as a real event loop would: the peer-to-peer quiet period (RTR, then
      // the close an RtrCloseGuard holds back) ends on timers, and only then does the closed
      // channel release what the deframer holds. The embedded clock only moves when told to.
      passQuietPeriods(ch, settings);
      ch.close();
      passQuietPeriods(ch, settings);
      releaseOutbound(ch);
      ch.finishAndReleaseAll();
      String unreleased = input.unreleased();
      input.releaseRemaining();
      assertNull(unreleased);
    }
  }

  /** Advances the embedded clock one quiet period at a time past every startup timer. */
  private static void passQuietPeriods(EmbeddedChannel ch, MpaSettings settings) {
    long step = settings.firstFpduDelay().toNanos() + 1_000_000;
    for (int i = 0; i <= RTR_GUARD_QUIET_PERIODS; i++) {
      ch.advanceTimeBy(step, TimeUnit.NANOSECONDS);
      ch.runScheduledPendingTasks();
      releaseOutbound(ch);
    }
  }

  private static void releaseOutbound(EmbeddedChannel ch) {
    for (Object m; (m = ch.readOutbound()) != null; ) {
      if (m instanceof ByteBuf || m instanceof io.netty.util.ReferenceCounted) {
        ReferenceCountUtil.release(m);
      }
    }
  }

  /** Counts ULPDUs delivered after a successful startup; nothing is retained. */
  private static final class CountingListener implements UlpduListener {
    private final int[] count;

    CountingListener(int[] count) {
      this.count = count;
    }

    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
      count[0]++;
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
    }
  }
}
