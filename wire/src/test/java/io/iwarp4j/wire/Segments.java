package io.iwarp4j.wire;

import io.netty.buffer.ByteBuf;

/** Received segments for the flyweight tests, split into pieces the way MPA receives them. */
final class Segments {
  private Segments() {
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
