package io.iwarp4j.testkit;

import java.util.Arrays;

/**
 * An MPA Request or Reply (RFC 5044 §7.1, RFC 6581 §7) that a {@link ScriptedPeer} received
 * from the code under test.
 */
public final class MpaStartup {
  private final boolean reply;
  private final int revision;
  private final boolean crc;
  private final boolean markers;
  private final boolean rejected;
  private final int ird;
  private final int ord;
  private final byte[] privateData;

  MpaStartup(boolean reply, int revision, boolean crc, boolean markers, boolean rejected,
      int ird, int ord, byte[] privateData) {
    this.reply = reply;
    this.revision = revision;
    this.crc = crc;
    this.markers = markers;
    this.rejected = rejected;
    this.ird = ird;
    this.ord = ord;
    this.privateData = privateData;
  }

  /**
   * True for a Reply, false for a Request.
   *
   * @return whether this is a Reply
   */
  public boolean isReply() {
    return reply;
  }

  /**
   * The Rev field.
   *
   * @return the MPA revision
   */
  public int revision() {
    return revision;
  }

  /**
   * The C bit: the sender wants CRC32c.
   *
   * @return the C bit
   */
  public boolean crc() {
    return crc;
  }

  /**
   * The M bit: the sender wants Markers.
   *
   * @return the M bit
   */
  public boolean markers() {
    return markers;
  }

  /**
   * The R bit of a Reply: the connection was rejected.
   *
   * @return the R bit
   */
  public boolean rejected() {
    return rejected;
  }

  /**
   * The IRD of the Enhanced Connection Data (RFC 6581), or -1 without it.
   *
   * @return the IRD
   */
  public int ird() {
    return ird;
  }

  /**
   * The ORD of the Enhanced Connection Data (RFC 6581), or -1 without it.
   *
   * @return the ORD
   */
  public int ord() {
    return ord;
  }

  /**
   * The application's private data (after the Enhanced Connection Data, if any).
   *
   * @return a copy of the private data
   */
  public byte[] privateData() {
    return privateData.clone();
  }

  @Override
  public String toString() {
    return (reply ? "MPA Reply" : "MPA Request") + "{rev=" + revision + ", crc=" + crc
        + ", markers=" + markers + (reply ? ", rejected=" + rejected : "") + ", ird=" + ird
        + ", ord=" + ord + ", privateData=" + Arrays.toString(privateData) + '}';
  }
}
