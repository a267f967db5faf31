package io.iwarp4j.tools.perf;

import java.util.Arrays;

/**
 * What perftest tells its peer about one queue pair: {@code struct pingpong_dest} of
 * perftest's {@code perftest_resources.h}. On iWARP only {@code outReads}, {@code rkey} and
 * {@code vaddr} matter; LID, QPN, PSN and GID are printed, never used.
 *
 * @param lid the LID (0 on iWARP)
 * @param outReads the number of outstanding RDMA Reads (ORD) this end will use
 * @param qpn the queue pair number
 * @param psn a random 24-bit start PSN (printed only)
 * @param rkey the STag of the buffer the peer may target
 * @param vaddr the address (tagged offset) of that buffer
 * @param gid the 16-octet GID (zeros from iwarp4j)
 * @param srqn the SRQ number (0: no SRQ)
 * @param gidIndex the GID index (sent, ignored by the receiver)
 */
public record PingPongDest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr,
    byte[] gid, int srqn, int gidIndex) {

  /** A destination of all zeros, what perftest sends in its pre- and post-connect syncs. */
  public static final PingPongDest ZERO = new PingPongDest(0, 0, 0, 0, 0, 0, new byte[16], 0, 0);

  /**
   * Checks the GID length.
   *
   * @param lid the LID
   * @param outReads the ORD
   * @param qpn the QPN
   * @param psn the PSN
   * @param rkey the STag
   * @param vaddr the address
   * @param gid the GID, 16 octets
   * @param srqn the SRQ number
   * @param gidIndex the GID index
   */
  public PingPongDest {
    if (gid == null || gid.length != 16) {
      throw new IllegalArgumentException("a GID has 16 octets");
    }
    gid = gid.clone();
  }

  @Override
  public byte[] gid() {
    return gid.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PingPongDest d && lid == d.lid && outReads == d.outReads && qpn == d.qpn
        && psn == d.psn && rkey == d.rkey && vaddr == d.vaddr && Arrays.equals(gid, d.gid)
        && srqn == d.srqn && gidIndex == d.gidIndex;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(vaddr) * 31 + rkey * 17 + qpn + Arrays.hashCode(gid);
  }

  @Override
  public String toString() {
    return String.format("LID %#06x QPN %#08x PSN %#08x OUT %#04x RKey %#010x VAddr %#018x",
        lid, qpn, psn, outReads, rkey, vaddr);
  }
}
