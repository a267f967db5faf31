package io.iwarp4j.ddp;

import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/** Test helpers: hex vectors to buffers and received-segment views. */
final class Hex {
  private Hex() {
  }

  /** Parses hex digits, ignoring spaces and the '|' separators used in the spec's dumps. */
  static byte[] bytes(String hex) {
    return ByteBufUtil.decodeHexDump(hex.replaceAll("[\\s|]", ""));
  }

  /** A new heap buffer holding {@code hex}; the caller releases it. */
  static ByteBuf buf(String hex) {
    return Unpooled.wrappedBuffer(bytes(hex));
  }

  /** The readable bytes of {@code buf} as lower-case hex without separators. */
  static String of(ByteBuf buf) {
    return ByteBufUtil.hexDump(buf);
  }

  /**
   * A received-segment view over the readable bytes of {@code buf}, split into pieces at the given
   * relative cut points, the way TCP reads or removed Markers split a ULPDU. Each piece lives in
   * its own slice so adjacent pieces are not merged back.
   */
  static Ulpdu ulpdu(ByteBuf buf, int... cuts) {
    Ulpdu u = new Ulpdu(cuts.length + 1);
    int start = 0;
    for (int cut : cuts) {
      u.addPiece(buf.slice(buf.readerIndex() + start, cut - start), 0, cut - start);
      start = cut;
    }
    int rest = buf.readableBytes() - start;
    u.addPiece(buf.slice(buf.readerIndex() + start, rest), 0, rest);
    return u;
  }
}
