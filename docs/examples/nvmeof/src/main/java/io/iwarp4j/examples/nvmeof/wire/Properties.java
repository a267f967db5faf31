package io.iwarp4j.examples.nvmeof.wire;

/**
 * The controller properties a Fabrics host reads and writes with Property Get/Set (the
 * registers of a PCIe controller; NVMe Base 2.0 section 3.1.4, Linux {@code NVME_REG_*}).
 *
 * <pre>
 * offset 0x00  CAP, 8 octets: bits 15:0 MQES (0's based), 16 CQR, 31:24 TO (500 ms units),
 *              44:37 CSS (bit 37 NVM command set), 51:48 MPSMIN, 55:52 MPSMAX
 * offset 0x08  VS, 4 octets: bits 31:16 major, 15:8 minor
 * offset 0x14  CC, 4 octets: bit 0 EN, 6:4 CSS, 10:7 MPS, 15:14 SHN, 19:16 IOSQES, 23:20 IOCQES
 * offset 0x1C  CSTS, 4 octets: bit 0 RDY, bit 1 CFS, 3:2 SHST (10b shutdown complete)
 * </pre>
 */
public final class Properties {
  public static final int CAP = 0x00;
  public static final int VS = 0x08;
  public static final int CC = 0x14;
  public static final int CSTS = 0x1C;

  public static final int CC_ENABLE = 1;
  /** CC.SHN mask (bits 15:14); 01b normal shutdown. */
  public static final int CC_SHN_MASK = 3 << 14;
  public static final int CC_SHN_NORMAL = 1 << 14;
  /** CC.IOSQES = 6 (64-octet entries) and CC.IOCQES = 4 (16-octet entries), as hosts set. */
  public static final int CC_ENTRY_SIZES = 6 << 16 | 4 << 20;

  public static final int CSTS_READY = 1;
  public static final int CSTS_FATAL = 1 << 1;
  public static final int CSTS_SHST_MASK = 3 << 2;
  public static final int CSTS_SHST_COMPLETE = 2 << 2;

  /** NVMe 1.3: what this target reports, as Linux nvmet does. */
  public static final int VERSION_1_3 = 0x0001_0300;

  private Properties() {
  }

  /**
   * A CAP value.
   *
   * @param maxQueueEntries MQES + 1, the most entries in one queue
   * @param timeout500ms CAP.TO: how long ready may take, in 500 ms units
   * @return CAP with the NVM command set and a 4 KiB memory page (MPSMIN = MPSMAX = 0)
   */
  public static long capability(int maxQueueEntries, int timeout500ms) {
    return (maxQueueEntries - 1) & 0xFFFFL | (timeout500ms & 0xFFL) << 24 | 1L << 37;
  }

  /** CAP.MQES + 1. */
  public static int maxQueueEntries(long cap) {
    return (int) (cap & 0xFFFF) + 1;
  }

  /** CAP.TO in milliseconds. */
  public static long readyTimeoutMillis(long cap) {
    return ((cap >>> 24) & 0xFF) * 500;
  }
}
