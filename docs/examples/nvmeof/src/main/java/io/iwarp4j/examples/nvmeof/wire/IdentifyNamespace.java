package io.iwarp4j.examples.nvmeof.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The fields of the 4096-octet Identify Namespace data structure (CNS 00h) used here (NVMe NVM
 * Command Set 1.0 figure 97; Linux {@code struct nvme_id_ns}). Little-endian.
 *
 * <pre>
 * 0-7    NSZE: size in logical blocks        8-15  NCAP: capacity in logical blocks
 * 16-23  NUSE: blocks in use                 25    NLBAF: LBA formats, 0's based
 * 26     FLBAS: bits 3:0 the LBA format in use
 * 128 +  LBAF[n], 4 octets each: 0-1 MS (metadata octets), 2 LBADS (log2 of the block size),
 *   4n                               3 RP (relative performance)
 * </pre>
 * This target has one LBA format, index 0, with no metadata.
 */
public record IdentifyNamespace(long size, long capacity, long used, int formatIndex,
    int blockShift) {
  public static final int SIZE = 4096;

  /** Octets in one logical block. */
  public int blockSize() {
    return 1 << blockShift;
  }

  /** Writes the structure, zeroing the 4096 octets first; one LBA format, in use. */
  public void write(ByteBuffer b, int at) {
    b.order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < SIZE; i += 8) {
      b.putLong(at + i, 0);
    }
    b.putLong(at, size).putLong(at + 8, capacity).putLong(at + 16, used);
    b.put(at + 25, (byte) formatIndex); // NLBAF: formats 0..formatIndex
    b.put(at + 26, (byte) formatIndex);
    b.put(at + 128 + 4 * formatIndex + 2, (byte) blockShift);
  }

  /** Reads the structure: the block size is the one of the format FLBAS names. */
  public static IdentifyNamespace read(ByteBuffer b, int at) {
    b.order(ByteOrder.LITTLE_ENDIAN);
    int format = b.get(at + 26) & 0x0F;
    return new IdentifyNamespace(b.getLong(at), b.getLong(at + 8), b.getLong(at + 16), format,
        b.get(at + 128 + 4 * format + 2) & 0xFF);
  }
}
