package io.iwarp4j.verbs.engine;

import io.iwarp4j.verbs.TerminateInfo;
import io.iwarp4j.verbs.WcStatus;

/**
 * Maps Terminate errors (RFC 5040 §4.8; codes from the IANA RDDP registries) to work completion
 * statuses, and says which work request the error is charged to.
 *
 * <p><b>A Terminate the peer sent</b> faults something this end sent, so it is charged to the
 * oldest send work request that is issued and not yet completed (the one "in flight"):
 * <table>
 *   <caption>Received Terminate to status</caption>
 *   <tr><th>Layer/EType/Code</th><th>Status</th></tr>
 *   <tr><td>RDMAP 0/0/* local catastrophic</td><td>REM_OP_ERR</td></tr>
 *   <tr><td>RDMAP 0/1/* remote protection</td><td>REM_ACCESS_ERR</td></tr>
 *   <tr><td>RDMAP 0/2/0x05, 0x06 invalid version, unexpected opcode</td>
 *       <td>REM_INV_REQ_ERR</td></tr>
 *   <tr><td>RDMAP 0/2/0x09 STag cannot be invalidated</td><td>REM_ACCESS_ERR</td></tr>
 *   <tr><td>RDMAP 0/2/other remote operation</td><td>REM_OP_ERR</td></tr>
 *   <tr><td>DDP 1/0/* local catastrophic</td><td>REM_OP_ERR</td></tr>
 *   <tr><td>DDP 1/1/0x04 tagged, invalid DDP version</td><td>REM_INV_REQ_ERR</td></tr>
 *   <tr><td>DDP 1/1/other tagged buffer errors</td><td>REM_ACCESS_ERR</td></tr>
 *   <tr><td>DDP 1/2/* untagged buffer errors (no buffer, too long, ...)</td>
 *       <td>REM_INV_REQ_ERR</td></tr>
 *   <tr><td>LLP 2/*&#47;* (MPA)</td><td>FATAL_ERR</td></tr>
 *   <tr><td>anything else</td><td>GENERAL_ERR</td></tr>
 * </table>
 *
 * <p><b>A Terminate this end sent</b> faults what the peer sent, so no local work request caused
 * it, with these exceptions: DDP 1/2/0x05 (a Send longer than the posted receive) is charged to
 * the oldest posted receive as LOC_LEN_ERR; RDMAP 0/1/0x09 or 0/2/0x09 (a Send with Invalidate
 * naming a local STag that cannot be invalidated) to the oldest posted receive as
 * LOC_ACCESS_ERR; a local catastrophic error (RDMAP or DDP EType 0) or an LLP error to the send
 * work request in flight as FATAL_ERR.
 *
 * <p>Every other outstanding work request is flushed ({@link WcStatus#WR_FLUSH_ERR}).
 */
public final class TerminateStatus {
  /** Charge the error to no work request: flush everything. */
  static final int TARGET_NONE = 0;
  /** Charge it to the oldest issued, not completed send work request. */
  public static final int TARGET_SEND_IN_FLIGHT = 1;
  /** Charge it to the oldest posted receive work request. */
  public static final int TARGET_RECV_HEAD = 2;

  private TerminateStatus() {
  }

  /** The status of the work request charged with a Terminate the peer sent. */
  public static WcStatus forReceived(int layer, int errorType, int errorCode) {
    switch (layer) {
      case TerminateInfo.LAYER_RDMAP:
        if (errorType == 0) {
          return WcStatus.REM_OP_ERR;
        }
        if (errorType == 1) {
          return WcStatus.REM_ACCESS_ERR;
        }
        if (errorType == 2) {
          if (errorCode == 0x05 || errorCode == 0x06) {
            return WcStatus.REM_INV_REQ_ERR;
          }
          return errorCode == 0x09 ? WcStatus.REM_ACCESS_ERR : WcStatus.REM_OP_ERR;
        }
        return WcStatus.GENERAL_ERR;
      case TerminateInfo.LAYER_DDP:
        if (errorType == 0) {
          return WcStatus.REM_OP_ERR;
        }
        if (errorType == 1) {
          return errorCode == 0x04 ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_ACCESS_ERR;
        }
        return errorType == 2 ? WcStatus.REM_INV_REQ_ERR : WcStatus.GENERAL_ERR;
      case TerminateInfo.LAYER_LLP:
        return WcStatus.FATAL_ERR;
      default:
        return WcStatus.GENERAL_ERR;
    }
  }

  /** Which work request a Terminate this end sent is charged to: a {@code TARGET_*} value. */
  public static int targetForSent(int layer, int errorType, int errorCode) {
    if (layer == TerminateInfo.LAYER_DDP && errorType == 2 && errorCode == 0x05) {
      return TARGET_RECV_HEAD;
    }
    if (layer == TerminateInfo.LAYER_RDMAP && (errorType == 1 || errorType == 2)
        && errorCode == 0x09) {
      return TARGET_RECV_HEAD;
    }
    if ((layer == TerminateInfo.LAYER_RDMAP || layer == TerminateInfo.LAYER_DDP)
        && errorType == 0) {
      return TARGET_SEND_IN_FLIGHT;
    }
    return layer == TerminateInfo.LAYER_LLP ? TARGET_SEND_IN_FLIGHT : TARGET_NONE;
  }

  /** The status of the work request charged with a Terminate this end sent. */
  public static WcStatus forSent(int layer, int errorType, int errorCode) {
    if (layer == TerminateInfo.LAYER_DDP && errorType == 2 && errorCode == 0x05) {
      return WcStatus.LOC_LEN_ERR;
    }
    if (layer == TerminateInfo.LAYER_RDMAP && errorCode == 0x09
        && (errorType == 1 || errorType == 2)) {
      return WcStatus.LOC_ACCESS_ERR;
    }
    return WcStatus.FATAL_ERR;
  }

  /** A readable name from the IANA RDDP registries. */
  public static String describe(int layer, int errorType, int errorCode) {
    switch (layer) {
      case TerminateInfo.LAYER_RDMAP:
        return "RDMAP " + rdmap(errorType, errorCode);
      case TerminateInfo.LAYER_DDP:
        return "DDP " + ddp(errorType, errorCode);
      case TerminateInfo.LAYER_LLP:
        return "LLP " + llp(errorType, errorCode);
      default:
        return "unknown layer " + layer;
    }
  }

  /**
   * How Linux siw means a received Terminate whose first control octet it built with the Error
   * Type in the high nibble and the Layer in the low one (its {@code __LITTLE_ENDIAN_BITFIELD}
   * declaration in iwarp.h on x86; RFC 5040 §4.8 has Layer high): the triple with Layer and Error
   * Type exchanged, when that is one siw is known to send. Only the two swaps siw produces are
   * recognised: a received RDMAP Remote Operation Error (0/2) with a code that only MPA defines,
   * 0x01-0x04, is siw's LLP/MPA error (2/0, e.g. 0x02 a CRC error; 0/2 with 0x05-0x07 is what
   * conformant peers send, e.g. Unexpected OpCode, and is left alone), and a received LLP/MPA
   * error (2/0) with an RDMAP Remote Operation code 0x05-0x09 or 0xFF is siw's RDMAP Remote
   * Operation Error (0/2, e.g. 0x06 Unexpected OpCode: an MPA "insufficient IRD" belongs to the
   * startup, not to a running stream).
   *
   * @return the swapped triple and its name, e.g. "2/0/0x2 (LLP MPA / MPA CRC mismatch)", or
   *     null when the swap is not one siw is known for
   */
  public static String describeSiwSwapped(int layer, int errorType, int errorCode) {
    boolean rdmapRemoteOp = layer == TerminateInfo.LAYER_RDMAP && errorType == 2;
    boolean llpMpa = layer == TerminateInfo.LAYER_LLP && errorType == 0;
    boolean mpaOnlyCode = errorCode >= 0x01 && errorCode <= 0x04;
    boolean remoteOpCode = (errorCode >= 0x05 && errorCode <= 0x09) || errorCode == 0xFF;
    if ((rdmapRemoteOp && mpaOnlyCode) || (llpMpa && remoteOpCode)) {
      return errorType + "/" + layer + "/0x" + Integer.toHexString(errorCode) + " ("
          + describe(errorType, layer, errorCode) + ")";
    }
    return null;
  }

  private static String rdmap(int type, int code) {
    if (type == 0) {
      return "Local Catastrophic Error";
    }
    if (type == 1) {
      return "Remote Protection Error / " + switch (code) {
        case 0x00 -> "Invalid STag";
        case 0x01 -> "Base or bounds violation";
        case 0x02 -> "Access rights violation";
        case 0x03 -> "STag not associated with RDMAP Stream";
        case 0x04 -> "TO wrap";
        case 0x09 -> "STag cannot be invalidated";
        case 0xFF -> "Unspecified Error";
        default -> "code 0x" + Integer.toHexString(code);
      };
    }
    if (type == 2) {
      return "Remote Operation Error / " + switch (code) {
        case 0x05 -> "Invalid RDMAP version";
        case 0x06 -> "Unexpected OpCode";
        case 0x07 -> "Catastrophic error, localized to RDMAP Stream";
        case 0x08 -> "Catastrophic error, global";
        case 0x09 -> "STag cannot be Invalidated";
        case 0xFF -> "Unspecified Error";
        default -> "code 0x" + Integer.toHexString(code);
      };
    }
    return "Error Type " + type + " code 0x" + Integer.toHexString(code);
  }

  private static String ddp(int type, int code) {
    if (type == 0) {
      return "Local Catastrophic";
    }
    if (type == 1) {
      return "Tagged Buffer Error / " + switch (code) {
        case 0x00 -> "Invalid STag";
        case 0x01 -> "Base or bounds violation";
        case 0x02 -> "STag not associated with DDP Stream";
        case 0x03 -> "TO wrap";
        case 0x04 -> "Invalid DDP version";
        default -> "code 0x" + Integer.toHexString(code);
      };
    }
    if (type == 2) {
      return "Untagged Buffer Error / " + switch (code) {
        case 0x01 -> "Invalid QN";
        case 0x02 -> "Invalid MSN - no buffer available";
        case 0x03 -> "Invalid MSN - MSN range is not valid";
        case 0x04 -> "Invalid MO";
        case 0x05 -> "DDP Message too long for available buffer";
        case 0x06 -> "Invalid DDP version";
        default -> "code 0x" + Integer.toHexString(code);
      };
    }
    return "Error Type " + type + " code 0x" + Integer.toHexString(code);
  }

  private static String llp(int type, int code) {
    if (type != 0 && type != 3) {
      return "Error Type " + type + " code 0x" + Integer.toHexString(code);
    }
    return "MPA / " + switch (code) {
      case 0x01 -> "TCP connection closed, terminated or lost";
      case 0x02 -> "MPA CRC mismatch";
      case 0x03 -> "Marker and ULPDU_Length disagree";
      case 0x04 -> "Invalid MPA Request or Reply frame";
      case 0x05 -> "Local catastrophic error";
      case 0x06 -> "Insufficient IRD resources";
      case 0x07 -> "No matching RTR option";
      default -> "code 0x" + Integer.toHexString(code);
    };
  }
}
