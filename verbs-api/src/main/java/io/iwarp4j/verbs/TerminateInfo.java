package io.iwarp4j.verbs;

import io.iwarp4j.verbs.engine.TerminateStatus;
import io.iwarp4j.wire.TerminateMessage;

/**
 * The error a Terminate message carried (RFC 5040 §4.8): which layer found it, its Error Type
 * and its Error Code, and whether the peer sent it (it found fault with what this end sent) or
 * this end did (it found fault with what the peer sent, or failed locally).
 *
 * @param layer 0 RDMAP, 1 DDP, 2 LLP (MPA)
 * @param errorType the Error Type (EType) within the layer
 * @param errorCode the Error Code
 * @param receivedFromPeer true for a Terminate the peer sent, false for one this end sent
 */
public record TerminateInfo(int layer, int errorType, int errorCode, boolean receivedFromPeer) {
  /** Terminate layer RDMAP. */
  public static final int LAYER_RDMAP = TerminateMessage.LAYER_RDMAP;
  /** Terminate layer DDP. */
  public static final int LAYER_DDP = TerminateMessage.LAYER_DDP;
  /** Terminate layer LLP (MPA). */
  public static final int LAYER_LLP = TerminateMessage.LAYER_LLP;

  /**
   * The {@link WorkCompletion#vendorError()} value of this Terminate.
   *
   * @return {@code layer << 16 | errorType << 8 | errorCode}
   */
  public int vendorError() {
    return WorkCompletion.terminateVendorError(layer & 0xF, errorType & 0xF, errorCode & 0xFF);
  }

  /**
   * A readable name of the error, from the RFC 5040, 5041 and 5044 registries (IANA "RDDP").
   *
   * @return e.g. "DDP Untagged Buffer Error / Invalid MSN - no buffer available"
   */
  public String describe() {
    return TerminateStatus.describe(layer, errorType, errorCode);
  }

  /**
   * For a Terminate from the peer: how Linux siw means it, when it reads differently. siw puts
   * the Error Type in the high nibble of the first control octet and the Layer in the low one,
   * the reverse of RFC 5040 §4.8 (docs/interop.md), so siw's LLP/MPA CRC error (2/0/0x02) arrives
   * as an RDMAP Remote Operation Error (0/2/0x02), and its RDMAP Unexpected OpCode (0/2/0x06) as
   * an LLP/MPA 2/0/0x06. Only those two swaps are recognised, and only with codes that make the
   * RFC reading implausible (0/2 with 0x01-0x04, 2/0 with 0x05-0x09 or 0xFF); the RFC reading
   * stays the one in {@link #layer()} and the other accessors.
   *
   * @return e.g. "2/0/0x2 (LLP MPA / MPA CRC mismatch)", or null when there is no such reading
   *     (or this end sent the Terminate)
   */
  public String siwReading() {
    return receivedFromPeer ? TerminateStatus.describeSiwSwapped(layer, errorType, errorCode)
        : null;
  }

  @Override
  public String toString() {
    String siw = siwReading();
    return "Terminate " + (receivedFromPeer ? "received" : "sent") + " " + layer + "/"
        + errorType + "/0x" + Integer.toHexString(errorCode) + " (" + describe() + ")"
        + (siw == null ? "" : "; as Linux siw means it (its Layer and Error Type nibbles are"
            + " swapped): " + siw);
  }
}
