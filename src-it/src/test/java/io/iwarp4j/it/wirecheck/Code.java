package io.iwarp4j.it.wirecheck;

import io.iwarp4j.it.wirecheck.Finding.Level;

/**
 * What the wire checker reports. {@code T_} codes come from tshark's own dissection (its CRC
 * verdicts, expert items, what it could not decode), {@code S_} from the RFC rules applied to the
 * fields tshark decoded, {@code F_} from the checker's own framing of the raw TCP byte stream
 * (CRC32c, PAD, Markers; it tells a broken stream from a tshark limitation), {@code W_} are
 * warnings and {@code I_} notes.
 */
public enum Code {
  T_CRC_BAD(Level.ERROR, "tshark: MPA CRC32c check failed (iwarp_mpa.crc_check 'Bad CRC32')"),
  T_MALFORMED(Level.ERROR, "tshark: malformed packet (a dissector exception)"),
  T_EXPERT(Level.ERROR, "tshark: an expert item of severity warning or error in an iWARP layer"),
  T_MPA_PD_TOO_LONG(Level.ERROR, "tshark: MPA private data length > 512"),
  T_MPA_REV_NOT_1(Level.ERROR, "MPA Request Rev is neither 1 nor the RFC 6581 Rev 2"),
  T_MPA_RES_NOT_0(Level.ERROR, "MPA Request Res bits other than the RFC 6581 S bit"),
  T_MPA_REJECT(Level.ERROR, "the Responder rejected the connection (MPA Reply R=1)"),
  T_NO_MPA(Level.ERROR, "a connection carried data but tshark found no MPA Request"),
  T_NO_REPLY(Level.ERROR, "tshark found an MPA Request but no MPA Reply"),
  T_UNDECODED(Level.ERROR, "octets after MPA startup that tshark did not decode as FPDUs, in a"
      + " direction the checker's own framer found broken too"),
  T_CAPTURE(Level.ERROR, "the capture is incomplete (lost, retransmitted or reordered segments)"),
  T_CAPTURE_HOLE(Level.ERROR, "octets of one direction the capture never saw: the own framer"
      + " stops there, so nothing of that direction after the hole was checked"),
  T_UNATTRIBUTED_EXPERT(Level.ERROR, "tshark reported an iWARP expert item the checker could not"
      + " attribute to a connection"),
  S_DDP_VERSION(Level.ERROR, "DDP DV != 1 (RFC 5041 §4.2)"),
  S_RDMAP_VERSION(Level.ERROR, "RDMAP RV != 1 (RFC 5040 §4.2)"),
  S_DDP_RSVD(Level.ERROR, "DDP control Rsvd bits != 0"),
  S_RDMAP_RSV(Level.ERROR, "RDMAP control Rsv bits != 0"),
  S_OPCODE_RESERVED(Level.ERROR, "RDMAP opcode 12..15 (reserved)"),
  S_TAGGED_MISMATCH(Level.ERROR, "T flag does not match the opcode (Write and Read Response"
      + " tagged, every other message untagged)"),
  S_QN_MISMATCH(Level.ERROR, "Queue Number does not match the opcode (RFC 5040 §5.1,"
      + " RFC 7306)"),
  S_MSN(Level.ERROR, "MSN not sequential per queue (starts at 1, +1 per message)"),
  S_MO(Level.ERROR, "Message Offset is not the octets already sent of this message"),
  S_TO(Level.ERROR, "Tagged Offset of a continuation segment does not follow the previous one"),
  S_STAG(Level.WARNING, "a new tagged message started while another was unfinished"),
  S_LAST(Level.ERROR, "a single-segment message type with L=0 or MO != 0"),
  S_UNFINISHED(Level.WARNING, "a multi-segment message never got its L=1 segment"),
  S_LENGTH(Level.ERROR, "wrong DDP payload length for a fixed-size RDMAP message"),
  S_ULPDU_SHORT(Level.ERROR, "ULPDU shorter than its DDP header"),
  S_INVAL_STAG(Level.ERROR, "Invalidate STag field non-zero where it MUST be zero"),
  S_READ_RESP(Level.ERROR, "RDMA Read Response does not match the outstanding Read Request"),
  S_ATOMIC_RESP(Level.ERROR, "Atomic Response does not match the outstanding Atomic Request"),
  S_TERMINATE(Level.ERROR, "malformed Terminate (RFC 5040 §4.8: layer, reserved bits, the"
      + " headers its HdrCt bits announce)"),
  S_MARKER_PTR(Level.ERROR, "marker FPDUPTR wrong"),
  S_MARKER_RES(Level.ERROR, "marker Reserved field != 0"),
  S_PAD_NONZERO(Level.ERROR, "FPDU PAD octets not zero"),
  S_MPA_REV(Level.ERROR, "MPA revision not 1 or 2, or Reply Rev > Request Rev"),
  S_MPA_RES(Level.ERROR, "MPA Res bits other than the RFC 6581 S bit set"),
  S_MPA_ENHANCED(Level.ERROR, "RFC 6581 inconsistency (S with Rev 1, private data too short, S"
      + " in one frame only)"),
  S_RTR(Level.ERROR, "RFC 6581 peer-to-peer: the Initiator's first FPDU is not a zero-length RTR"
      + " the Responder accepted"),
  F_CRC_BAD(Level.ERROR, "own framer: CRC32c mismatch"),
  F_PAD_NONZERO(Level.ERROR, "own framer: PAD not zero"),
  F_MARKER_PTR(Level.ERROR, "own framer: wrong marker FPDUPTR"),
  F_MARKER_RES(Level.ERROR, "own framer: marker Reserved != 0"),
  F_TRUNCATED(Level.ERROR, "own framer: the byte stream ends inside an FPDU (or its lengths are"
      + " wrong)"),
  F_DDP(Level.ERROR, "own framer: a DDP/RDMAP header rule broken in a direction tshark could not"
      + " follow (the rule is in the message)"),
  W_TSHARK_LIMIT(Level.WARNING, "tshark could not decode part of a stream that the own framer"
      + " found well-formed; the own framer checked that direction's DDP/RDMAP headers"),
  W_ASYM_MARKERS(Level.WARNING, "Markers in one direction only; tshark 4 assumes both"),
  I_MARKER_SEGMENTATION(Level.NOTE, "Markers in use and an FPDU not exactly one TCP segment"),
  I_RFC6581_REV(Level.NOTE, "tshark warns about Rev 2, the RFC 6581 revision"),
  I_RFC6581_S(Level.NOTE, "tshark warns about the RFC 6581 S bit as a reserved bit"),
  I_MPA_REJECT_ALLOWED(Level.NOTE, "the Responder rejected the connection, as expected"),
  I_TSHARK_UNNAMED_OPCODE(Level.NOTE, "opcodes 8 and 9 (RFC 7306 Immediate Data) are not"
      + " decoded by tshark 4"),
  I_TERMINATE(Level.NOTE, "a Terminate (RFC 5040 §4.8), framed by the own framer; its"
      + " Layer/Error Type/Error Code as the RFC lays them out are in the message"),
  I_CRC_FIELD_NONZERO(Level.NOTE, "CRC not negotiated but the CRC field is not zero (legal)");

  final Level level;
  final String meaning;

  Code(Level level, String meaning) {
    this.level = level;
    this.meaning = meaning;
  }

  /** What the code means. */
  public String meaning() {
    return meaning;
  }
}
