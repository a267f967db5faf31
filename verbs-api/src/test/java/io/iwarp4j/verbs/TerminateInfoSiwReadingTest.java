package io.iwarp4j.verbs;

import static io.iwarp4j.testing.Hex.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.iwarp4j.wire.TerminateMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * Linux siw's swapped Layer/EType nibbles: a received Terminate is decoded by RFC 5040 §4.8 and,
 * when it is one of the two swaps siw is known for, also reported as siw means it. The vectors
 * are whole Terminate ULPDUs (untagged DDP header, QN 2, MSN 1, then the control octets) with
 * siw's control octets as captured (docs/interop.md).
 */
class TerminateInfoSiwReadingTest {
  private static final String HEADER = "41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00";

  /** Decodes a Terminate ULPDU the way the receive path does and builds the received info. */
  private static TerminateInfo received(String ulpdu) {
    ByteBuf b = Unpooled.wrappedBuffer(hex(ulpdu));
    TerminateMessage t = new TerminateMessage().wrap(b, 0, b.readableBytes());
    assertNull(t.check(), "a well-formed Terminate");
    return new TerminateInfo(t.layer(), t.errorType(), t.errorCode(), true);
  }

  @Test
  void siwsCrcErrorReadsAsRdmapRemoteOperationAndIsReportedBothWays() {
    // perf-g2h-read_bw-65536, frame 28606: control octets 02 02 00, no header echoed.
    TerminateInfo t = received(HEADER + " 02 02 00 00");
    assertEquals(0, t.layer());
    assertEquals(2, t.errorType());
    assertEquals(0x02, t.errorCode());
    assertEquals("2/0/0x2 (LLP MPA / MPA CRC mismatch)", t.siwReading());
    assertEquals("Terminate received 0/2/0x2 (RDMAP Remote Operation Error / code 0x2); as Linux"
        + " siw means it (its Layer and Error Type nibbles are swapped): 2/0/0x2 (LLP MPA / MPA"
        + " CRC mismatch)", t.toString());
  }

  @Test
  void siwsUnexpectedOpcodeReadsAsMpaInsufficientIrdAndIsReportedBothWays() {
    // h2g-7306-fetchadd: siw's answer to an Atomic Request, control octets 20 06 00.
    TerminateInfo t = received(HEADER + " 20 06 00 00");
    assertEquals(2, t.layer());
    assertEquals("0/2/0x6 (RDMAP Remote Operation Error / Unexpected OpCode)", t.siwReading());
    assertEquals("Terminate received 2/0/0x6 (LLP MPA / Insufficient IRD resources); as Linux siw"
        + " means it (its Layer and Error Type nibbles are swapped): 0/2/0x6 (RDMAP Remote"
        + " Operation Error / Unexpected OpCode)", t.toString());
  }

  @Test
  void otherTerminatesHaveOneReading() {
    // A conformant DDP "no buffer" Terminate (1/2/0x02), with its D bit and DDP header echo.
    TerminateInfo t = received(HEADER + " 12 02 40 00 00 16 41 43 00 00 00 00 00 00 00 00 00 00"
        + " 00 07 00 00 00 00");
    assertEquals(1, t.layer());
    assertNull(t.siwReading());
    assertEquals("Terminate received 1/2/0x2 (DDP Untagged Buffer Error / Invalid MSN - no buffer"
        + " available)", t.toString());
    assertNull(received(HEADER + " 02 00 00 00").siwReading(), "0/2/0x00: no MPA code 0");
    assertNull(received(HEADER + " 02 06 00 00").siwReading(),
        "0/2/0x06, a conformant Unexpected OpCode (iwarp4j without RFC 7306 sends it)");
    assertNull(received(HEADER + " 20 02 00 00").siwReading(),
        "2/0/0x02, a conformant CRC error: 0x02 is no Remote Operation code");
    assertNull(new TerminateInfo(0, 2, 2, false).siwReading(), "only for received Terminates");
  }
}
