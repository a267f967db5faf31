package io.iwarp4j.mpa;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The contents of an MPA Request or Reply: the header bits, the revision, the RFC 6581
 * enhanced data when present, and the ULP private data that follows it. Describes what a peer
 * sent (decoded by {@link StartupFrames#decode}) and what this end sends
 * ({@link MpaNegotiation#request}, {@link MpaNegotiation#reply}, encoded by
 * {@link StartupFrames#encode}).
 */
public final class MpaPeerParameters {
  private final int revision;
  private final boolean markers;
  private final boolean crc;
  private final boolean rejected;
  private final boolean enhanced;
  private final boolean peerToPeer;
  private final Set<RtrType> rtrTypes;
  private final int ird;
  private final int ord;
  private final byte[] privateData;

  /**
   * @param revision the Rev field
   * @param markers the M bit
   * @param crc the C bit
   * @param rejected the R bit (meaningful in a Reply only)
   * @param enhanced whether RFC 6581 enhanced data is present (Rev &ge; 2 and S=1)
   * @param peerToPeer the A flag
   * @param rtrTypes the B/C/D flags that are set (empty when A=0)
   * @param ird the IRD, or -1 without enhanced data
   * @param ord the ORD, or -1 without enhanced data
   * @param privateData the ULP private data after the enhanced data (copied)
   */
  public MpaPeerParameters(int revision, boolean markers, boolean crc, boolean rejected,
      boolean enhanced, boolean peerToPeer, Set<RtrType> rtrTypes, int ird, int ord,
      byte[] privateData) {
    this.revision = revision;
    this.markers = markers;
    this.crc = crc;
    this.rejected = rejected;
    this.enhanced = enhanced;
    this.peerToPeer = peerToPeer;
    this.rtrTypes = rtrTypes.isEmpty()
        ? Collections.emptySet()
        : Collections.unmodifiableSet(EnumSet.copyOf(rtrTypes));
    this.ird = ird;
    this.ord = ord;
    this.privateData = privateData.clone();
  }

  /**
   * The Rev field.
   *
   * @return the Rev field
   */
  public int revision() {
    return revision;
  }

  /**
   * The M bit.
   *
   * @return the M bit
   */
  public boolean markers() {
    return markers;
  }

  /**
   * The C bit.
   *
   * @return the C bit
   */
  public boolean crc() {
    return crc;
  }

  /**
   * The R bit (Reply only).
   *
   * @return the R bit (Reply only)
   */
  public boolean rejected() {
    return rejected;
  }

  /**
   * The S bit: whether enhanced connection data was present.
   *
   * @return the S bit: whether enhanced connection data was present
   */
  public boolean enhanced() {
    return enhanced;
  }

  /**
   * The A flag (enhanced only).
   *
   * @return the A flag (enhanced only)
   */
  public boolean peerToPeer() {
    return peerToPeer;
  }

  /**
   * The B/C/D flags that were set (empty unless enhanced and A=1).
   *
   * @return the B/C/D flags that were set (empty unless enhanced and A=1)
   */
  public Set<RtrType> rtrTypes() {
    return rtrTypes;
  }

  /**
   * The peer's IRD, or -1 when the frame carried no enhanced data.
   *
   * @return the peer's IRD, or -1 when the frame carried no enhanced data
   */
  public int ird() {
    return ird;
  }

  /**
   * The peer's ORD, or -1 when the frame carried no enhanced data.
   *
   * @return the peer's ORD, or -1 when the frame carried no enhanced data
   */
  public int ord() {
    return ord;
  }

  /**
   * The ULP private data (after the enhanced data), a copy.
   *
   * @return the ULP private data (after the enhanced data), a copy
   */
  public byte[] privateData() {
    return privateData.clone();
  }

  /**
   * Length of the ULP private data.
   *
   * @return the length of the ULP private data
   */
  public int privateDataLength() {
    return privateData.length;
  }

  @Override
  public String toString() {
    return "MpaPeerParameters{rev=" + revision + ", M=" + markers + ", C=" + crc + ", R=" + rejected
        + ", S=" + enhanced + ", A=" + peerToPeer + ", rtr=" + rtrTypes + ", ird=" + ird + ", ord="
        + ord + ", privateData=" + privateData.length + "B}";
  }
}
