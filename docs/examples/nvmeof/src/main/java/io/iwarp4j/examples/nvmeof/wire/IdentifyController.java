package io.iwarp4j.examples.nvmeof.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The fields of the 4096-octet Identify Controller data structure (CNS 01h) that a Fabrics host
 * needs (NVMe Base 2.0 figure 275, NVMe over Fabrics 1.1 section 4.1; Linux {@code struct
 * nvme_id_ctrl}). Little-endian; strings are ASCII padded with spaces.
 *
 * <pre>
 * 0-1    VID              4-23    SN (20)          24-63  MN (40)        64-71 FR (8)
 * 77     MDTS: max transfer 2^n x CAP.MPSMIN (4 KiB); 0 = no limit
 * 78-79  CNTLID           80-83   VER
 * 259    AERL (0's based) 261     LPA
 * 320-321 KAS: keep-alive granularity in 100 ms units
 * 512    SQES (0x66)      513     CQES (0x44)      514-515 MAXCMD
 * 516-519 NN: number of namespaces                 520-521 ONCS
 * 525    VWC              536-539 SGLS: bit 0 SGLs supported, bit 2 keyed SGL data block,
 *                                 bit 20 SGL offset (in-capsule data)
 * 768-1023 SUBNQN
 * 1792-1795 IOCCSZ: I/O command capsule size in 16-octet units (64 + in-capsule data)
 * 1796-1799 IORCSZ: I/O response capsule size in 16-octet units (1)
 * 1800-1801 ICDOFF: in-capsule data offset in 16-octet units (0)
 * 1802   FCATT (0: dynamic controller model)       1803 MSDBD: SGL descriptors per command
 * </pre>
 */
public record IdentifyController(int vendorId, String serial, String model, String firmware,
    int mdts, int cntlid, int version, int keepAliveGranularity100ms, int maxCommands,
    int namespaces, int sgls, String subNqn, int ioccsz, int iorcsz, int icdoff, int msdbd) {
  public static final int SIZE = 4096;
  public static final int SGLS_SUPPORTED = 1;
  public static final int SGLS_KEYED = 1 << 2;
  public static final int SGLS_OFFSET = 1 << 20;

  /** Octets of in-capsule data an I/O command may carry: IOCCSZ x 16 - 64. */
  public int inCapsuleDataSize() {
    return Math.max(0, ioccsz * 16 - Sqe.SIZE);
  }

  /** The most one command may transfer, with a 4 KiB memory page; 0 = no limit. */
  public long maxTransferBytes() {
    return mdts == 0 ? 0 : 4096L << mdts;
  }

  /** Writes the structure, zeroing the 4096 octets first. */
  public void write(ByteBuffer b, int at) {
    b.order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < SIZE; i += 8) {
      b.putLong(at + i, 0);
    }
    b.putShort(at, (short) vendorId).putShort(at + 2, (short) vendorId);
    putAscii(b, at + 4, 20, serial);
    putAscii(b, at + 24, 40, model);
    putAscii(b, at + 64, 8, firmware);
    b.put(at + 77, (byte) mdts);
    b.putShort(at + 78, (short) cntlid);
    b.putInt(at + 80, version);
    b.put(at + 259, (byte) 3); // AERL: up to 4 outstanding Asynchronous Event Requests
    b.putShort(at + 320, (short) keepAliveGranularity100ms);
    b.put(at + 512, (byte) 0x66);
    b.put(at + 513, (byte) 0x44);
    b.putShort(at + 514, (short) maxCommands);
    b.putInt(at + 516, namespaces);
    b.putShort(at + 520, (short) (1 << 3)); // ONCS: Write Zeroes
    b.putInt(at + 536, sgls);
    b.put(at + 768, subNqn.getBytes(StandardCharsets.UTF_8));
    b.putInt(at + 1792, ioccsz);
    b.putInt(at + 1796, iorcsz);
    b.putShort(at + 1800, (short) icdoff);
    b.put(at + 1803, (byte) msdbd);
  }

  /** Reads the structure. */
  public static IdentifyController read(ByteBuffer b, int at) {
    b.order(ByteOrder.LITTLE_ENDIAN);
    return new IdentifyController(b.getShort(at) & 0xFFFF, ascii(b, at + 4, 20),
        ascii(b, at + 24, 40), ascii(b, at + 64, 8), b.get(at + 77) & 0xFF,
        b.getShort(at + 78) & 0xFFFF, b.getInt(at + 80), b.getShort(at + 320) & 0xFFFF,
        b.getShort(at + 514) & 0xFFFF, b.getInt(at + 516), b.getInt(at + 536),
        nulTerminated(b, at + 768, 256), b.getInt(at + 1792), b.getInt(at + 1796),
        b.getShort(at + 1800) & 0xFFFF, b.get(at + 1803) & 0xFF);
  }

  private static void putAscii(ByteBuffer b, int at, int width, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < width; i++) {
      b.put(at + i, i < bytes.length ? bytes[i] : (byte) ' ');
    }
  }

  private static String ascii(ByteBuffer b, int at, int width) {
    byte[] bytes = new byte[width];
    b.get(at, bytes);
    return new String(bytes, StandardCharsets.US_ASCII).trim();
  }

  private static String nulTerminated(ByteBuffer b, int at, int width) {
    int n = 0;
    while (n < width && b.get(at + n) != 0) {
      n++;
    }
    byte[] bytes = new byte[n];
    b.get(at, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
