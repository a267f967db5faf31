package io.iwarp4j.mpa.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.wire.FpduHeader;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.iwarp4j.mpa.testing.ReferenceFpdu;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage-guided fuzzing of {@link FpduDeframer} with CRC and Markers on and off.
 *
 * <p>Input layout ({@link ByteCursor}): flags (bit 0 CRC, bit 1 Markers, bit 2 framed); framed:
 * a count (0-4), per ULPDU a 16-bit length and its octets, a corrupt flag with a 16-bit position
 * and an XOR value; raw: a 16-bit length and the octets; then a FIN flag and 16-bit read sizes.
 * The input is either raw octets, or ULPDUs the fuzzer chooses, framed correctly by
 * {@link ReferenceFpdu} and then optionally corrupted in one octet; either way it arrives in reads
 * whose sizes the fuzzer picks. Invariants: no exception escapes the pipeline; at most one MPA
 * error and nothing delivered after it; a well-formed stream is delivered exactly; with CRC on, a
 * corrupted stream delivers only the intact FPDUs before the corruption (never a changed octet);
 * the octets held never exceed one maximum FPDU plus {@link FpduDeframer#MAX_HELD_BUFFERS} reads;
 * every read buffer is released.
 */
class FpduDeframerFuzzTest {
  private static final int MAX_READ = 1500;
  private static final int MAX_ULPDUS = 4;
  private static final int MAX_ULPDU = 3000;

  @FuzzTest(maxDuration = "60s")
  void deframe(byte[] fuzz) {
    ByteCursor data = new ByteCursor(fuzz);
    int flags = data.u8() & 7;
    boolean crc = (flags & 1) != 0;
    boolean markers = (flags & 2) != 0;
    boolean framed = (flags & 4) != 0;
    List<byte[]> ulpdus = new ArrayList<>();
    byte[] wire;
    boolean corrupted = false;
    if (framed) {
      int count = data.u8() % (MAX_ULPDUS + 1);
      for (int i = 0; i < count; i++) {
        ulpdus.add(data.bytes(data.intIn(0, MAX_ULPDU)));
      }
      wire = ReferenceFpdu.encode(ulpdus, crc, markers);
      if (wire.length > 0 && data.bool()) {
        int at = data.intIn(0, wire.length - 1);
        wire[at] ^= (byte) (1 + data.u8() % 255);
        corrupted = true;
      }
    } else {
      wire = data.bytes(data.intIn(0, 4 * MAX_READ));
    }
    boolean fin = data.bool();

    Recorder rec = new Recorder();
    FpduDeframer deframer = new FpduDeframer(crc, markers, rec);
    EmbeddedChannel ch = new EmbeddedChannel(deframer);
    FuzzInput input = new FuzzInput();
    try {
      input.feed(ch, data, wire, MAX_READ, () -> {
        assertTrue(deframer.heldBufferCount() <= FpduDeframer.MAX_HELD_BUFFERS,
            "held " + deframer.heldBufferCount() + " reads");
        long bound = FpduHeader.MAX_FPDU_LENGTH + (long) FpduDeframer.MAX_HELD_BUFFERS * MAX_READ;
        assertTrue(deframer.heldCapacity() <= bound, "held " + deframer.heldCapacity() + " octets");
      });
      if (fin) {
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
      }
      ch.checkException();
      assertFalse(rec.deliveredAfterError, "a ULPDU was delivered after an MPA error");
      assertTrue(rec.errors <= 1, rec.errors + " MPA errors reported");
      if (framed && !corrupted) {
        assertEquals(0, rec.errors, "a well-formed stream failed: " + rec.firstError);
        assertEquals(ulpdus.size(), rec.delivered.size());
        for (int i = 0; i < ulpdus.size(); i++) {
          assertArrayEquals(ulpdus.get(i), rec.delivered.get(i), "ULPDU " + i);
        }
      } else if (framed && crc) {
        // A corrupted FPDU is never delivered, nor anything after it.
        assertTrue(rec.delivered.size() < ulpdus.size(), "the corrupted FPDU was delivered");
        for (int i = 0; i < rec.delivered.size(); i++) {
          assertArrayEquals(ulpdus.get(i), rec.delivered.get(i), "ULPDU " + i);
        }
      }
    } finally {
      ch.finishAndReleaseAll();
      String unreleased = input.unreleased();
      input.releaseRemaining();
      assertNull(unreleased);
      assertEquals(0, deframer.heldCapacity(), "the deframer still holds buffers after close");
    }
  }

  /** Copies what is delivered and checks the order of callbacks. */
  private static final class Recorder implements UlpduListener {
    final List<byte[]> delivered = new ArrayList<>();
    int errors;
    MpaException firstError;
    boolean deliveredAfterError;

    @Override
    public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
      deliveredAfterError |= errors > 0;
      byte[] copy = new byte[ulpdu.length()];
      ulpdu.getBytes(0, copy, 0, copy.length);
      delivered.add(copy);
    }

    @Override
    public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
      if (errors++ == 0) {
        firstError = error;
      }
    }

    @Override
    public void onInputClosed(ChannelHandlerContext ctx) {
    }
  }
}
