package io.iwarp4j.it.wirecheck;

/**
 * One thing the wire checker found.
 *
 * @param code what rule or observation
 * @param level how much it counts (a code's usual level may be lowered, e.g. when tshark could not
 *     follow the connection and a sequencing rule can no longer be trusted)
 * @param stream tshark's TCP stream index, or -1 for the capture as a whole
 * @param frame the capture frame it was seen in, or -1 when it concerns a whole direction
 * @param sender who sent the octets at fault, or null when that is not known
 * @param message the details
 */
public record Finding(Code code, Level level, int stream, int frame, Sender sender,
    String message) {

  /** How much a finding counts. */
  public enum Level {
    /** A broken rule: the check fails. */
    ERROR,
    /** Not checked, or checked less than fully: the check passes. */
    WARNING,
    /** For information. */
    NOTE
  }

  /** Which end of the connection sent the octets. */
  public enum Sender {
    /** The MPA Initiator (the end that sent the MPA Request). */
    INITIATOR,
    /** The MPA Responder. */
    RESPONDER;

    Sender other() {
      return this == INITIATOR ? RESPONDER : INITIATOR;
    }

    String arrow() {
      return this == INITIATOR ? "i->r" : "r->i";
    }
  }

  Finding withLevel(Level l, String prefix) {
    return new Finding(code, l, stream, frame, sender, prefix + message);
  }

  @Override
  public String toString() {
    return "[" + level.name().toLowerCase() + "] " + code + " stream=" + stream
        + (frame >= 0 ? " frame=" + frame : "") + (sender != null ? " " + sender.arrow() : "")
        + ": " + message;
  }
}
