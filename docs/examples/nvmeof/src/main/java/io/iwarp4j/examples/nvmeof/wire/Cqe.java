package io.iwarp4j.examples.nvmeof.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A flyweight over one 16-octet NVMe completion queue entry, the whole of an NVMe/RDMA response
 * capsule (IORCSZ 1; NVMe Base 2.0 figure 90; Linux {@code struct nvme_completion}).
 * Little-endian.
 *
 * <pre>
 * octets 0-7    command specific result (Connect: bits 15:0 CNTLID; Property Get: the value;
 *               Set Features Number of Queues: NSQA in 15:0, NCQA in 31:16, both 0's based)
 * octets 8-9    SQ head pointer
 * octets 10-11  SQ identifier
 * octets 12-13  command identifier
 * octets 14-15  bit 0 phase tag (unused over fabrics); bits 15:1 status:
 *               SC in 7:0, SCT in 10:8, CRD 12:11, More 13, DNR 14 (of the status)
 * </pre>
 * {@link #status()} returns the 15-bit status, as Linux keeps it ({@code le16 >> 1}).
 */
public final class Cqe {
  /** Octets in a completion queue entry. */
  public static final int SIZE = 16;

  private ByteBuffer buf;
  private int base;

  /** An unattached flyweight: {@link #wrap} it before use. */
  public Cqe() {
  }

  public Cqe wrap(ByteBuffer buffer, int offset) {
    this.buf = buffer.order(ByteOrder.LITTLE_ENDIAN);
    this.base = offset;
    return this;
  }

  public long result() {
    return buf.getLong(base);
  }

  public int sqHead() {
    return buf.getShort(base + 8) & 0xFFFF;
  }

  public int sqId() {
    return buf.getShort(base + 10) & 0xFFFF;
  }

  public int commandId() {
    return buf.getShort(base + 12) & 0xFFFF;
  }

  /** The status without the phase bit: {@link NvmeStatus} values. */
  public int status() {
    return (buf.getShort(base + 14) & 0xFFFF) >>> 1;
  }

  /**
   * Writes the whole entry.
   *
   * @param result the command specific result
   * @param sqHead the submission queue head
   * @param sqId the submission queue identifier
   * @param cid the command identifier
   * @param status an {@link NvmeStatus} value (phase 0)
   * @return this flyweight
   */
  public Cqe set(long result, int sqHead, int sqId, int cid, int status) {
    buf.putLong(base, result);
    buf.putShort(base + 8, (short) sqHead);
    buf.putShort(base + 10, (short) sqId);
    buf.putShort(base + 12, (short) cid);
    buf.putShort(base + 14, (short) (status << 1));
    return this;
  }
}
