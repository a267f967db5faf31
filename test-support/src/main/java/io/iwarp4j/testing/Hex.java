package io.iwarp4j.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Locale;

/**
 * Hex vectors for byte-exact tests. Parsing ignores spaces, '|' separators and line breaks, the
 * way the specs' dumps are written.
 */
public final class Hex {
  private Hex() {
  }

  /** Octets from hex text such as {@code "00 0e | c1 40"}. */
  public static byte[] hex(String text) {
    String s = text.replaceAll("[\\s|]", "");
    if ((s.length() & 1) != 0) {
      throw new IllegalArgumentException("odd number of hex digits: " + text);
    }
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }

  /** An unpooled heap buffer holding the octets of {@code text} (a fresh one per call). */
  public static ByteBuf buf(String text) {
    return Unpooled.wrappedBuffer(hex(text));
  }

  /** Hex text without spaces, '|' or line breaks, in lower case. */
  public static String compact(String text) {
    return text.replaceAll("[\\s|]", "").toLowerCase(Locale.ROOT);
  }

  /** Lower-case hex pairs separated by spaces. */
  public static String toHex(byte[] data) {
    StringBuilder sb = new StringBuilder(data.length * 3);
    for (int i = 0; i < data.length; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(String.format("%02x", data[i] & 0xFF));
    }
    return sb.toString();
  }

  /** The readable octets of {@code buf} (not consumed) as lower-case hex pairs separated by spaces. */
  public static String toHex(ByteBuf buf) {
    return toHex(bytes(buf));
  }

  /** Lower-case hex pairs, separated by spaces, 16 to a line. */
  public static String format(byte[] data) {
    StringBuilder sb = new StringBuilder(data.length * 3);
    for (int i = 0; i < data.length; i++) {
      if (i > 0) {
        sb.append(i % 16 == 0 ? '\n' : ' ');
      }
      sb.append(String.format("%02x", data[i] & 0xFF));
    }
    return sb.toString();
  }

  /** The octets as lower-case hex without separators. */
  public static String of(byte[] data) {
    return ByteBufUtil.hexDump(data);
  }

  /** The readable octets of {@code buf} (not consumed) as lower-case hex without separators. */
  public static String of(ByteBuf buf) {
    return ByteBufUtil.hexDump(buf);
  }

  /** The readable octets of {@code buf}, copied (the buffer is not modified or released). */
  public static byte[] bytes(ByteBuf buf) {
    byte[] out = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), out);
    return out;
  }
}
