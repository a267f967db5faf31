package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/** Hex vectors for the flyweight tests: spaces, '|' and line breaks in the text are ignored. */
final class WireHex {
  private WireHex() {
  }

  /** Octets from hex text such as {@code "00 0e | c1 40"}. */
  static byte[] hex(String text) {
    String s = text.replaceAll("[\\s|]", "");
    if (s.length() % 2 != 0) {
      throw new IllegalArgumentException("odd number of hex digits: " + text);
    }
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }

  /** An unpooled heap buffer holding the octets (a fresh one per call). */
  static ByteBuf buf(String text) {
    return Unpooled.wrappedBuffer(hex(text));
  }

  /** Lower-case hex pairs separated by spaces. */
  static String toHex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < b.length; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(String.format("%02x", b[i] & 0xFF));
    }
    return sb.toString();
  }

  /** The readable octets of {@code b} (not consumed) as hex. */
  static String toHex(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.getBytes(b.readerIndex(), out);
    return toHex(out);
  }

  /** Same as {@link #hex}. */
  static byte[] parse(String text) {
    return hex(text);
  }

  /** Same as {@link #toHex(byte[])}. */
  static String format(byte[] b) {
    return toHex(b);
  }

  /** The readable octets of {@code b}, copied (not consumed). */
  static byte[] bytes(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.getBytes(b.readerIndex(), out);
    return out;
  }

  /** The readable octets of {@code b} as lower-case hex without separators. */
  static String of(ByteBuf b) {
    return ByteBufUtil.hexDump(b);
  }

  /**
   * A received segment over the readable octets of {@code buf}, split into pieces at the given
   * cut points the way TCP reads or removed Markers split a ULPDU; a field that straddles a cut
   * is assembled octet by octet, as MPA's {@code Ulpdu} does.
   */
  static SegmentBytes segment(ByteBuf buf, int... cuts) {
    ByteBuf[] pieces = new ByteBuf[cuts.length + 1];
    int start = 0;
    for (int i = 0; i < cuts.length; i++) {
      pieces[i] = buf.slice(buf.readerIndex() + start, cuts[i] - start);
      start = cuts[i];
    }
    pieces[cuts.length] = buf.slice(buf.readerIndex() + start, buf.readableBytes() - start);
    int length = buf.readableBytes();
    return new SegmentBytes() {
      @Override
      public int length() {
        return length;
      }

      @Override
      public int getUnsignedByte(int index) {
        if (index < 0 || index >= length) {
          throw new IndexOutOfBoundsException(index);
        }
        for (ByteBuf p : pieces) {
          if (index < p.readableBytes()) {
            return p.getUnsignedByte(index);
          }
          index -= p.readableBytes();
        }
        throw new AssertionError();
      }

      @Override
      public int getUnsignedShort(int index) {
        return getUnsignedByte(index) << 8 | getUnsignedByte(index + 1);
      }

      @Override
      public int getInt(int index) {
        return getUnsignedShort(index) << 16 | getUnsignedShort(index + 2);
      }

      @Override
      public long getLong(int index) {
        return (long) getInt(index) << 32 | (getInt(index + 4) & 0xFFFF_FFFFL);
      }
    };
  }
}
