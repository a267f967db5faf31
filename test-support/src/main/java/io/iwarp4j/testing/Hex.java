package io.iwarp4j.testing;

import io.netty.buffer.ByteBuf;

/** Hex helpers for byte-exact wire tests: spaces, '|' separators and newlines are ignored. */
public final class Hex {
  private Hex() {
  }

  /** Parses hex text such as {@code "00 0e | c1 40"} into octets. */
  public static byte[] parse(String text) {
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

  /** Formats octets as lowercase hex pairs separated by spaces. */
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

  /** The readable bytes of {@code buf}, copied (the buffer is not modified or released). */
  public static byte[] bytes(ByteBuf buf) {
    byte[] out = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), out);
    return out;
  }
}
