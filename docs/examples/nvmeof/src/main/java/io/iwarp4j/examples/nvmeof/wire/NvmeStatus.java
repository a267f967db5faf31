package io.iwarp4j.examples.nvmeof.wire;

/**
 * NVMe status values as {@link Cqe#status()} returns them: SC in bits 7:0, SCT in bits 10:8,
 * DNR in bit 14 (NVMe Base 2.0 section 4.6.1; Linux's {@code NVME_SC_*}).
 */
public final class NvmeStatus {
  public static final int SUCCESS = 0x000;
  public static final int INVALID_OPCODE = 0x001;
  public static final int INVALID_FIELD = 0x002;
  public static final int DATA_TRANSFER_ERROR = 0x004;
  public static final int INTERNAL = 0x006;
  public static final int INVALID_NAMESPACE = 0x00B;
  public static final int COMMAND_SEQUENCE_ERROR = 0x00C;
  public static final int SGL_INVALID_DATA_LENGTH = 0x00F;
  public static final int SGL_INVALID_TYPE = 0x011;
  public static final int LBA_RANGE = 0x080;
  /** Command specific (SCT 1), Fabrics Connect: incompatible format. */
  public static final int CONNECT_INVALID_FORMAT = 0x180;
  /** Command specific (SCT 1), Fabrics Connect: invalid parameters. */
  public static final int CONNECT_INVALID_PARAMETERS = 0x182;
  /** Command specific (SCT 1), Fabrics Connect: host not allowed. */
  public static final int CONNECT_INVALID_HOST = 0x184;
  /** Do Not Retry. */
  public static final int DNR = 0x4000;

  private NvmeStatus() {
  }

  /** The status without DNR, More and CRD: SCT and SC. */
  public static int code(int status) {
    return status & 0x7FF;
  }

  /** A readable name for logs and errors. */
  public static String describe(int status) {
    String name = switch (code(status)) {
      case SUCCESS -> "success";
      case INVALID_OPCODE -> "invalid command opcode";
      case INVALID_FIELD -> "invalid field in command";
      case DATA_TRANSFER_ERROR -> "data transfer error";
      case INTERNAL -> "internal error";
      case INVALID_NAMESPACE -> "invalid namespace or format";
      case COMMAND_SEQUENCE_ERROR -> "command sequence error";
      case SGL_INVALID_DATA_LENGTH -> "data SGL length invalid";
      case SGL_INVALID_TYPE -> "SGL descriptor type invalid";
      case LBA_RANGE -> "LBA out of range";
      case CONNECT_INVALID_FORMAT -> "connect: incompatible format";
      case CONNECT_INVALID_PARAMETERS -> "connect: invalid parameters";
      case CONNECT_INVALID_HOST -> "connect: invalid host";
      default -> "status";
    };
    return String.format("%s (0x%03x%s)", name, code(status), (status & DNR) != 0 ? ", DNR" : "");
  }
}
