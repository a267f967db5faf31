package io.iwarp4j.examples.nvmeof.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The 1024 octets of data a Fabrics Connect command carries (NVMe over Fabrics 1.1 figure 20;
 * Linux {@code struct nvmf_connect_data}).
 *
 * <pre>
 * octets 0-15     HOSTID: the host identifier, a UUID (big-endian octets, as Linux's uuid_t)
 * octets 16-17    CNTLID: 0xFFFF on the admin queue (the dynamic controller model: any
 *                 controller), the controller's id on an I/O queue; little-endian
 * octets 18-255   reserved
 * octets 256-511  SUBNQN: the subsystem's NQN, UTF-8, NUL-padded
 * octets 512-767  HOSTNQN: the host's NQN, UTF-8, NUL-padded
 * octets 768-1023 reserved
 * </pre>
 */
public final class ConnectData {
  public static final int SIZE = 1024;
  public static final int NQN_FIELD = 256;
  /** CNTLID of an admin queue's Connect: the dynamic controller model. */
  public static final int ANY_CONTROLLER = 0xFFFF;
  /** The well-known discovery subsystem's NQN. */
  public static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

  private ConnectData() {
  }

  /**
   * Writes the Connect data.
   *
   * @param b the memory; 1024 octets from {@code at} are written
   * @param at where to start
   * @param hostId the host identifier
   * @param cntlid the controller id, or {@link #ANY_CONTROLLER}
   * @param subNqn the subsystem's NQN, at most 223 octets of UTF-8 (NVMe's NQN limit)
   * @param hostNqn the host's NQN, likewise
   */
  public static void write(ByteBuffer b, int at, UUID hostId, int cntlid, String subNqn,
      String hostNqn) {
    for (int i = 0; i < SIZE; i += 8) {
      b.putLong(at + i, 0);
    }
    b.order(ByteOrder.BIG_ENDIAN).putLong(at, hostId.getMostSignificantBits())
        .putLong(at + 8, hostId.getLeastSignificantBits());
    b.order(ByteOrder.LITTLE_ENDIAN).putShort(at + 16, (short) cntlid);
    putNqn(b, at + 256, subNqn);
    putNqn(b, at + 512, hostNqn);
  }

  private static void putNqn(ByteBuffer b, int at, String nqn) {
    byte[] bytes = nqn.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 223) {
      throw new IllegalArgumentException("an NQN is at most 223 octets: " + nqn);
    }
    b.put(at, bytes);
  }

  public static UUID hostId(ByteBuffer b, int at) {
    b.order(ByteOrder.BIG_ENDIAN);
    UUID id = new UUID(b.getLong(at), b.getLong(at + 8));
    b.order(ByteOrder.LITTLE_ENDIAN);
    return id;
  }

  public static int cntlid(ByteBuffer b, int at) {
    return b.order(ByteOrder.LITTLE_ENDIAN).getShort(at + 16) & 0xFFFF;
  }

  public static String subNqn(ByteBuffer b, int at) {
    return nqn(b, at + 256);
  }

  public static String hostNqn(ByteBuffer b, int at) {
    return nqn(b, at + 512);
  }

  private static String nqn(ByteBuffer b, int at) {
    int n = 0;
    while (n < NQN_FIELD && b.get(at + n) != 0) {
      n++;
    }
    byte[] bytes = new byte[n];
    b.get(at, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
