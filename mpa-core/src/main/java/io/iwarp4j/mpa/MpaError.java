package io.iwarp4j.mpa;

import io.iwarp4j.wire.TerminateMessage;

/**
 * MPA error codes (RFC 5044 §8, RFC 6581 §8). In a Terminate message they travel as
 * Layer 2 (LLP), Error Type 0 (MPA), Error Code {@link #code()}: see
 * {@link TerminateMessage#writeLlpError}.
 */
public enum MpaError {
  /** 0x01: TCP connection closed, terminated or lost. */
  TCP_CONNECTION_LOST(0x01, "TCP connection closed, terminated or lost"),
  /** 0x02: received MPA CRC does not match the FPDU. */
  CRC_MISMATCH(0x02, "MPA CRC mismatch"),
  /** 0x03: CRC valid, but a Marker and ULPDU_Length disagree on the FPDU start. */
  MARKER_MISMATCH(0x03, "Marker and ULPDU_Length disagree on the FPDU start"),
  /** 0x04: invalid MPA Request or Reply frame. */
  INVALID_STARTUP_FRAME(0x04, "Invalid MPA Request or Reply frame"),
  /** 0x05: local catastrophic error (RFC 6581). */
  LOCAL_CATASTROPHIC(0x05, "Local catastrophic error"),
  /** 0x06: insufficient IRD resources (RFC 6581). */
  INSUFFICIENT_IRD(0x06, "Insufficient IRD resources"),
  /** 0x07: no matching RTR option (RFC 6581). */
  NO_MATCHING_RTR(0x07, "No matching RTR option");

  private final int code;
  private final String description;

  MpaError(int code, String description) {
    this.code = code;
    this.description = description;
  }

  /**
   * The error code octet of the Terminate message.
   *
   * @return the error code octet of the Terminate message
   */
  public int code() {
    return code;
  }

  /**
   * The RFC's name for the error.
   *
   * @return the RFC's name for the error
   */
  public String description() {
    return description;
  }

  /**
   * Looks an error up by its code; returns null for an unknown code.
   *
   * @param code the Terminate error code
   * @return the error, or null for an unknown code
   */
  public static MpaError ofCode(int code) {
    for (MpaError e : values()) {
      if (e.code == code) {
        return e;
      }
    }
    return null;
  }

  /**
   * The MPA error a Terminate reports (Layer 2, EType 0 or Chelsio's 3, a known code), or null
   * for any other Terminate.
   *
   * @param term a checked Terminate
   * @return the MPA error, or null
   */
  public static MpaError of(TerminateMessage term) {
    int code = term.llpErrorCode();
    return code < 0 ? null : ofCode(code);
  }
}
