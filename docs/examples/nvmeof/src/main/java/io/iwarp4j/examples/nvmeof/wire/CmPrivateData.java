package io.iwarp4j.examples.nvmeof.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The NVMe/RDMA connection private data, carried in the MPA Request, Reply and reject (NVMe over
 * Fabrics 1.1 section 7.3.3, "RDMA_CM_REQUEST/ACCEPT/REJECT"; Linux {@code struct
 * nvme_rdma_cm_req}, {@code nvme_rdma_cm_rep}, {@code nvme_rdma_cm_rej}). Little-endian.
 *
 * <pre>
 * request, 32 octets                 accept, 32 octets           reject, 4 octets
 * 0-1   RECFMT (0)                   0-1  RECFMT (0)             0-1  RECFMT (0)
 * 2-3   QID (0 = admin queue)        2-3  CRQSIZE                2-3  STS, see below
 * 4-5   HRQSIZE: host receive queue  4-31 reserved
 *       entries
 * 6-7   HSQSIZE: host send queue
 *       entries, 0's based
 * 8-31  reserved
 * </pre>
 * Reject STS: 1 invalid private data length, 2 invalid RECFMT, 3 invalid QID, 4 invalid
 * HSQSIZE, 5 invalid HRQSIZE, 6 no resources, 7 invalid IRD, 8 invalid ORD, 9 invalid CNTLID.
 */
public final class CmPrivateData {
  public static final int REQUEST_SIZE = 32;
  public static final int ACCEPT_SIZE = 32;
  public static final int REJECT_SIZE = 4;
  public static final int RECFMT_1_0 = 0;

  public static final int REJECT_INVALID_LENGTH = 1;
  public static final int REJECT_INVALID_RECFMT = 2;
  public static final int REJECT_INVALID_QID = 3;
  public static final int REJECT_INVALID_HSQSIZE = 4;
  public static final int REJECT_INVALID_HRQSIZE = 5;
  public static final int REJECT_NO_RESOURCES = 6;
  public static final int REJECT_INVALID_IRD = 7;
  public static final int REJECT_INVALID_ORD = 8;
  public static final int REJECT_INVALID_CNTLID = 9;

  /** A parsed request. {@code hsqsize} as sent (0's based). */
  public record Request(int recfmt, int qid, int hrqsize, int hsqsize) {
    /** Entries in the host's send queue: HSQSIZE + 1. */
    public int sendQueueEntries() {
      return hsqsize + 1;
    }
  }

  private CmPrivateData() {
  }

  private static ByteBuffer le(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  public static byte[] request(int qid, int hrqsize, int hsqsize) {
    byte[] b = new byte[REQUEST_SIZE];
    le(b).putShort(0, (short) RECFMT_1_0).putShort(2, (short) qid).putShort(4, (short) hrqsize)
        .putShort(6, (short) hsqsize);
    return b;
  }

  /**
   * Parses a request.
   *
   * @param b the private data of the MPA Request
   * @return the request
   * @throws IllegalArgumentException if it is shorter than the 8 octets that carry fields
   */
  public static Request parseRequest(byte[] b) {
    if (b == null || b.length < 8) {
      throw new IllegalArgumentException("NVMe/RDMA request private data is "
          + (b == null ? 0 : b.length) + " octets, fewer than 8");
    }
    ByteBuffer w = le(b);
    return new Request(w.getShort(0) & 0xFFFF, w.getShort(2) & 0xFFFF, w.getShort(4) & 0xFFFF,
        w.getShort(6) & 0xFFFF);
  }

  public static byte[] accept(int crqsize) {
    byte[] b = new byte[ACCEPT_SIZE];
    le(b).putShort(0, (short) RECFMT_1_0).putShort(2, (short) crqsize);
    return b;
  }

  /** CRQSIZE of an accept, or -1 if the data is too short to hold it. */
  public static int acceptCrqsize(byte[] b) {
    return b == null || b.length < 4 ? -1 : le(b).getShort(2) & 0xFFFF;
  }

  public static byte[] reject(int status) {
    byte[] b = new byte[REJECT_SIZE];
    le(b).putShort(0, (short) RECFMT_1_0).putShort(2, (short) status);
    return b;
  }

  /** STS of a reject, or -1 if the data is too short to hold it. */
  public static int rejectStatus(byte[] b) {
    return b == null || b.length < 4 ? -1 : le(b).getShort(2) & 0xFFFF;
  }
}
