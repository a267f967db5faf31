package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Flyweight codec for the MPA Request and Reply frames (RFC 5044 §7.1.1, with the S bit and
 * Rev 2 of RFC 6581 §6). Wrap a buffer at the offset where a frame starts, then read its
 * fields; {@link #writeHeader} writes the header. (MPA's {@code StartupFrames} turns frames into
 * its negotiation parameters and back.)
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |  KEY_OFFSET (16 octets)
 * +         Key: "MPA ID Req Frame" (Request)                     +
 * |              "MPA ID Rep Frame" (Reply)                       |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |M|C|R|S|  Res  |      Rev      |          PD_Length            |  FLAGS_OFFSET 16,
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  REVISION_OFFSET 17,
 * |                                                               |  PD_LENGTH_OFFSET 18
 * ~   Private Data (PD_Length octets, 0..512; with S=1 it starts  ~  PRIVATE_DATA_OFFSET 20
 * |   with the 4 octets of {@link EnhancedConnectionData})        |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>M: the sender wants Markers in what it receives. C: the sender wants CRC32c. R: Reply
 * only, rejected. S: Private Data starts with enhanced connection data (only with Rev &ge; 2).
 * Res: sent as 0 and never checked on receipt (Linux siw may set 0x08).
 *
 * <p>The frame is plain TCP payload: no CRC, no Markers, no padding. A receiver compares all 16
 * key octets; the two keys differ only in octet 9, counted from 0 ('q' versus 'p').
 */
public final class MpaStartupFrame {
  /** Offset of the 16-octet key. */
  public static final int KEY_OFFSET = 0;
  /** Length of the key. */
  public static final int KEY_LENGTH = 16;
  /** Offset of the M/C/R/S/Res octet. */
  public static final int FLAGS_OFFSET = 16;
  /** Offset of the Rev octet. */
  public static final int REVISION_OFFSET = 17;
  /** Offset of the 16-bit PD_Length. */
  public static final int PD_LENGTH_OFFSET = 18;
  /** Offset of the Private Data. */
  public static final int PRIVATE_DATA_OFFSET = 20;
  /** Length of a frame without Private Data. */
  public static final int HEADER_LENGTH = 20;
  /** The largest PD_Length (RFC 5044 §7.1.1), enhanced connection data included. */
  public static final int MAX_PRIVATE_DATA = 512;
  /** Length of the largest legal frame. */
  public static final int MAX_FRAME_LENGTH = HEADER_LENGTH + MAX_PRIVATE_DATA;

  /** M: the sender requires Markers in the stream it receives. */
  public static final int FLAG_M = 0x80;
  /** C: the sender requires CRC32c. */
  public static final int FLAG_C = 0x40;
  /** R: the Reply rejects the connection. */
  public static final int FLAG_R = 0x20;
  /** S: enhanced connection data present (RFC 6581). */
  public static final int FLAG_S = 0x10;
  /** The reserved bits: sent as 0, never checked. */
  public static final int RES_MASK = 0x0F;

  /** The highest revision this implementation speaks. */
  public static final int MAX_REVISION = 2;

  private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

  /** What the key of a frame says it is. */
  public enum Kind {
    /** "MPA ID Req Frame". */
    REQUEST,
    /** "MPA ID Rep Frame". */
    REPLY,
    /** Anything else: an improperly formatted frame. */
    UNKNOWN
  }

  private ByteBuf buf;
  private int offset;

  /**
   * Points this flyweight at the frame starting at absolute index {@code offset} of buf.
   *
   * @param buf the buffer
   * @param offset the index of the frame in {@code buf}
   * @return this flyweight
   */
  public MpaStartupFrame wrap(ByteBuf buf, int offset) {
    this.buf = Objects.requireNonNull(buf, "buf");
    this.offset = offset;
    return this;
  }

  /**
   * The kind the 16 key octets name (all 16 are compared).
   *
   * @return the kind the 16 key octets name (all 16 are compared)
   */
  public Kind kind() {
    if (keyEquals(REQUEST_KEY)) {
      return Kind.REQUEST;
    }
    if (keyEquals(REPLY_KEY)) {
      return Kind.REPLY;
    }
    return Kind.UNKNOWN;
  }

  private boolean keyEquals(byte[] key) {
    for (int i = 0; i < KEY_LENGTH; i++) {
      if (buf.getByte(offset + KEY_OFFSET + i) != key[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The whole flags octet, reserved bits included.
   *
   * @return the whole flags octet, reserved bits included
   */
  public int flags() {
    return buf.getUnsignedByte(offset + FLAGS_OFFSET);
  }

  /**
   * The M bit.
   *
   * @return the M bit
   */
  public boolean markers() {
    return (flags() & FLAG_M) != 0;
  }

  /**
   * The C bit.
   *
   * @return the C bit
   */
  public boolean crc() {
    return (flags() & FLAG_C) != 0;
  }

  /**
   * The R bit.
   *
   * @return the R bit
   */
  public boolean rejected() {
    return (flags() & FLAG_R) != 0;
  }

  /**
   * The raw S bit; it only means something with Rev &ge; 2 (see {@link #enhanced()}).
   *
   * @return the raw S bit; it only means something with Rev &ge; 2 (see {@link #enhanced()})
   */
  public boolean sBit() {
    return (flags() & FLAG_S) != 0;
  }

  /**
   * Whether the Private Data starts with enhanced connection data: Rev &ge; 2 and S=1. With
   * Rev 1 the bit is one of RFC 5044's reserved bits and is ignored.
   *
   * @return whether the Private Data starts with enhanced connection data: Rev &ge; 2 and S=1
   */
  public boolean enhanced() {
    return revision() >= 2 && sBit();
  }

  /**
   * The Rev field.
   *
   * @return the Rev field
   */
  public int revision() {
    return buf.getUnsignedByte(offset + REVISION_OFFSET);
  }

  /**
   * The PD_Length field.
   *
   * @return the PD_Length field
   */
  public int privateDataLength() {
    return buf.getUnsignedShort(offset + PD_LENGTH_OFFSET);
  }

  /**
   * Length of the whole frame as PD_Length declares it.
   *
   * @return the length of the whole frame as PD_Length declares it
   */
  public int frameLength() {
    return HEADER_LENGTH + privateDataLength();
  }

  /**
   * Checks the 20 header octets of a received frame (RFC 5044 §7.1.1, §7.1.2 rules 5, 8, 9;
   * RFC 6581 §6). Returns null when they are usable, otherwise the precise reason the frame is
   * improperly formatted. Res bits are not looked at.
   *
   * @param expected the kind this end is waiting for
   * @return null when the header is acceptable, else the reason
   */
  public String checkHeader(Kind expected) {
    Kind kind = kind();
    if (kind != expected) {
      if (expected == Kind.REPLY && kind == Kind.REQUEST) {
        return "initiator/initiator collision: received an MPA Request (key \"MPA ID Req Frame\")"
            + " while waiting for the MPA Reply";
      }
      return "bad key " + keyAsText() + ", expected \""
          + new String(expected == Kind.REQUEST ? REQUEST_KEY : REPLY_KEY,
              StandardCharsets.US_ASCII) + "\"" + tlsRecordHint(buf, offset, HEADER_LENGTH);
    }
    int rev = revision();
    if (rev == 0) {
      return "unsupported MPA revision 0 (pre-IETF RDMA Consortium framing)";
    }
    if (rev > MAX_REVISION) {
      return "unsupported MPA revision " + rev + " (this end speaks 1 and 2)";
    }
    int pd = privateDataLength();
    if (pd > MAX_PRIVATE_DATA) {
      return "PD_Length " + pd + " exceeds the maximum of " + MAX_PRIVATE_DATA;
    }
    if (enhanced() && pd < EnhancedConnectionData.LENGTH) {
      return "S=1 but PD_Length " + pd + " is too short for the "
          + EnhancedConnectionData.LENGTH + " octets of enhanced connection data";
    }
    return null;
  }

  /**
   * What a TLS peer's octets in place of a startup frame mean: a TLS record header (content type
   * alert 21 or handshake 22, protocol major version 3, RFC 8446 §5.1) means the peer speaks TLS
   * (iwarp4j's TLS extension) where MPA was expected.
   *
   * @param buf the octets received
   * @param offset where they start
   * @param length how many there are
   * @return "" unless they start with such a header; else a clause starting with "; "
   */
  public static String tlsRecordHint(ByteBuf buf, int offset, int length) {
    if (length < 3 || buf.getUnsignedByte(offset + 1) != 3) {
      return "";
    }
    int type = buf.getUnsignedByte(offset);
    if (type == 21) {
      return "; the octets are a TLS alert record: the peer expects TLS (an iwarp4j extension)"
          + " and refused this end's MPA in clear";
    }
    if (type == 22) {
      return "; the octets are a TLS handshake record: the peer speaks TLS (an iwarp4j"
          + " extension), which this end was not set up for";
    }
    return "";
  }

  private String keyAsText() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < KEY_LENGTH; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      int b = buf.getUnsignedByte(offset + KEY_OFFSET + i);
      sb.append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xF, 16));
    }
    return sb.toString();
  }

  /**
   * The wrapped buffer.
   *
   * @return the buffer this flyweight reads
   */
  public ByteBuf buffer() {
    return buf;
  }

  /**
   * Absolute index of the first Private Data octet (with S=1, of the enhanced data).
   *
   * @return the index of the Private Data in {@link #buffer()}
   */
  public int privateDataIndex() {
    return offset + PRIVATE_DATA_OFFSET;
  }

  /**
   * Writes the 20-octet header at the writer index.
   *
   * @param out the buffer to append to
   * @param kind REQUEST or REPLY
   * @param flags any of {@link #FLAG_M}, {@link #FLAG_C}, {@link #FLAG_R}, {@link #FLAG_S}
   * @param revision the Rev field
   * @param privateDataLength the PD_Length field (0..512)
   * @return the number of octets written
   */
  public static int writeHeader(ByteBuf out, Kind kind, int flags, int revision,
      int privateDataLength) {
    if (kind == Kind.UNKNOWN) {
      throw new IllegalArgumentException("a frame is either a REQUEST or a REPLY");
    }
    if ((flags & ~(FLAG_M | FLAG_C | FLAG_R | FLAG_S)) != 0) {
      throw new IllegalArgumentException("flags 0x" + Integer.toHexString(flags)
          + " set reserved bits (Res MUST be sent as 0)");
    }
    if (revision < 0 || revision > 0xFF) {
      throw new IllegalArgumentException("revision " + revision + " does not fit one octet");
    }
    if (privateDataLength < 0 || privateDataLength > MAX_PRIVATE_DATA) {
      throw new IllegalArgumentException("PD_Length " + privateDataLength + " is outside 0.."
          + MAX_PRIVATE_DATA);
    }
    out.writeBytes(kind == Kind.REQUEST ? REQUEST_KEY : REPLY_KEY);
    out.writeByte(flags);
    out.writeByte(revision);
    out.writeShort(privateDataLength);
    return HEADER_LENGTH;
  }
}
