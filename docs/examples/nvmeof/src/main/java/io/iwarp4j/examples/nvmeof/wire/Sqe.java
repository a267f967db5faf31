package io.iwarp4j.examples.nvmeof.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A flyweight over one 64-octet NVMe submission queue entry (the command part of a command
 * capsule), little-endian as NVMe is. It names the common fields and, through the accessors of
 * each command, the command-specific dwords (NVMe Base 2.0 figure 88; Linux
 * {@code struct nvme_common_command}, {@code nvmf_connect_command}, {@code nvme_rw_command}).
 *
 * <pre>
 * octet  0      opcode (admin, I/O, or 0x7F Fabrics)
 * octet  1      flags: bits 7:6 PSDT, 01b = SGLs (Linux NVME_CMD_SGL_METABUF, 0x40)
 * octets 2-3    command identifier (CID)
 * octets 4-7    NSID                       (Fabrics: octet 4 is FCTYPE)
 * octets 8-23   CDW2, CDW3, MPTR (unused over fabrics)
 * octets 24-39  DPTR: one SGL descriptor, see {@link Sgl}
 * octets 40-63  CDW10 .. CDW15
 *
 * Read (0x02) / Write (0x01):  CDW10-11 SLBA (64 bits), CDW12 bits 15:0 NLB (0's based)
 * Identify (0x06):             CDW10 bits 7:0 CNS, bits 31:16 CNTID
 * Get Log Page (0x02 admin):   CDW10 bits 7:0 LID, bits 31:16 NUMDL; CDW11 bits 15:0 NUMDU
 * Set/Get Features (0x09/0x0A): CDW10 bits 7:0 FID; CDW11 the value
 * Fabrics Connect (0x7F/0x01): octets 40-41 RECFMT, 42-43 QID, 44-45 SQSIZE (0's based),
 *                              octet 46 CATTR, octets 48-51 KATO (ms)
 * Property Set (0x7F/0x00):    octet 40 ATTRIB (bit 0: 1 = 8 octets), octets 44-47 OFST,
 *                              octets 48-55 VALUE
 * Property Get (0x7F/0x04):    octet 40 ATTRIB, octets 44-47 OFST
 * </pre>
 */
public final class Sqe {
  /** Octets in a submission queue entry. */
  public static final int SIZE = 64;
  /** Flags octet value that says the data pointer is an SGL (PSDT 01b). */
  public static final int FLAG_SGL = 0x40;
  /** Where the data pointer's SGL descriptor starts. */
  public static final int DPTR = 24;

  private ByteBuffer buf;
  private int base;

  /** An unattached flyweight: {@link #wrap} it before use. */
  public Sqe() {
  }

  /**
   * Points this flyweight at a command.
   *
   * @param buffer the memory; its byte order is set to little-endian
   * @param offset where the command starts
   * @return this flyweight
   */
  public Sqe wrap(ByteBuffer buffer, int offset) {
    this.buf = buffer.order(ByteOrder.LITTLE_ENDIAN);
    this.base = offset;
    return this;
  }

  /** Zeroes the 64 octets: every command starts from reserved fields that are 0. */
  public Sqe clear() {
    for (int i = 0; i < SIZE; i += 8) {
      buf.putLong(base + i, 0);
    }
    return this;
  }

  public ByteBuffer buffer() {
    return buf;
  }

  public int offset() {
    return base;
  }

  public int opcode() {
    return buf.get(base) & 0xFF;
  }

  public Sqe opcode(int opcode) {
    buf.put(base, (byte) opcode);
    return this;
  }

  public int flags() {
    return buf.get(base + 1) & 0xFF;
  }

  public Sqe flags(int flags) {
    buf.put(base + 1, (byte) flags);
    return this;
  }

  public int commandId() {
    return buf.getShort(base + 2) & 0xFFFF;
  }

  public Sqe commandId(int cid) {
    buf.putShort(base + 2, (short) cid);
    return this;
  }

  public int nsid() {
    return buf.getInt(base + 4);
  }

  public Sqe nsid(int nsid) {
    buf.putInt(base + 4, nsid);
    return this;
  }

  /** Fabrics commands only: the command type (octet 4). */
  public int fctype() {
    return buf.get(base + 4) & 0xFF;
  }

  public Sqe fctype(int fctype) {
    buf.put(base + 4, (byte) fctype);
    return this;
  }

  /**
   * Command dword {@code n} (10 to 15).
   *
   * @param n the dword number
   * @return its value
   */
  public int cdw(int n) {
    return buf.getInt(base + n * 4);
  }

  public Sqe cdw(int n, int value) {
    buf.putInt(base + n * 4, value);
    return this;
  }

  // Read / Write

  public long slba() {
    return buf.getLong(base + 40);
  }

  public Sqe slba(long slba) {
    buf.putLong(base + 40, slba);
    return this;
  }

  /** Number of logical blocks, 1-based (the field holds it 0's based). */
  public int blocks() {
    return (buf.getShort(base + 48) & 0xFFFF) + 1;
  }

  public Sqe blocks(int blocks) {
    buf.putShort(base + 48, (short) (blocks - 1));
    return this;
  }

  // Identify

  public int cns() {
    return buf.get(base + 40) & 0xFF;
  }

  // Fabrics Connect

  public int connectRecfmt() {
    return buf.getShort(base + 40) & 0xFFFF;
  }

  public int connectQid() {
    return buf.getShort(base + 42) & 0xFFFF;
  }

  /** SQSIZE as sent: 0's based. */
  public int connectSqsize() {
    return buf.getShort(base + 44) & 0xFFFF;
  }

  public int connectCattr() {
    return buf.get(base + 46) & 0xFF;
  }

  public int connectKatoMillis() {
    return buf.getInt(base + 48);
  }

  public Sqe connect(int qid, int sqsize, int katoMillis) {
    buf.putShort(base + 40, (short) 0);
    buf.putShort(base + 42, (short) qid);
    buf.putShort(base + 44, (short) sqsize);
    buf.putInt(base + 48, katoMillis);
    return this;
  }

  // Property Get / Set

  /** Whether the property is 8 octets wide (ATTRIB bit 0). */
  public boolean propertyIs64() {
    return (buf.get(base + 40) & 1) != 0;
  }

  public int propertyOffset() {
    return buf.getInt(base + 44);
  }

  public long propertyValue() {
    return buf.getLong(base + 48);
  }

  public Sqe property(boolean wide, int offset, long value) {
    buf.put(base + 40, (byte) (wide ? 1 : 0));
    buf.putInt(base + 44, offset);
    buf.putLong(base + 48, value);
    return this;
  }
}
