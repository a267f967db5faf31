package io.iwarp4j.ddp;

import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;

/** Received-segment views split into pieces, the way MPA hands ULPDUs to DDP. */
final class UlpduPieces {
  private UlpduPieces() {
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
