package io.iwarp4j.mpa;

/**
 * Linux siw's limit on MPA private data: 256 octets in all, the 4 octets of RFC 6581 enhanced
 * connection data (IRD/ORD) included when the frame carries them. RFC 5044 §7.1.1 allows 512, so
 * more is not an error; but a Request with more makes siw close TCP with neither Reply nor reject
 * (issue 22: 260 octets in all did), which an Initiator can only see as a lost connection. So a
 * startup frame beyond the limit is worth a warning that names it.
 */
final class LinuxPrivateDataLimit {
  /** The most private data octets, in all, Linux siw accepts in a startup frame. */
  static final int OCTETS = 256;

  private LinuxPrivateDataLimit() {
  }

  /**
   * The warning for a startup frame beyond the limit, or null when it is within.
   *
   * @param frame "MPA Request" or "MPA Reply"
   * @param ulpOctets the application's private data octets
   * @param enhanced whether the frame carries the 4 octets of RFC 6581 enhanced data
   * @return the warning's text, or null
   */
  static String warning(String frame, int ulpOctets, boolean enhanced) {
    int enhancedOctets = enhanced ? MpaSettings.ENHANCED_DATA_LENGTH : 0;
    int total = ulpOctets + enhancedOctets;
    if (total <= OCTETS) {
      return null;
    }
    return frame + " carries " + total + " octets of private data in all ("
        + (enhanced ? ulpOctets + " of the application's + " + enhancedOctets
            + " of RFC 6581 IRD/ORD data: enhanced mode" : ulpOctets
            + " of the application's: basic mode, no enhanced data")
        + "); Linux siw accepts at most " + OCTETS + " octets in all (the application may send "
        + (OCTETS - enhancedOctets) + " in this mode) and closes the connection without a Reply"
        + " beyond that. Not an error: RFC 5044 §7.1.1 allows 512";
  }
}
