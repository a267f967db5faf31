package io.iwarp4j.mpa;

import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Records the ULPDUs (copied out during the callback), errors and end-of-input reports it gets.
 * Not final: a test may override a callback to act after recording.
 */
class RecordingUlpduListener implements UlpduListener {
  final List<byte[]> ulpdus = new ArrayList<>();
  /** "batch" for each {@link #beforeReadBatch}, "ulpdu" for each ULPDU, in order. */
  final List<String> calls = new ArrayList<>();
  final List<MpaException> errors = new ArrayList<>();
  int inputClosed;

  /** The ULPDUs received, each as hex. */
  List<String> hexUlpdus() {
    List<String> out = new ArrayList<>(ulpdus.size());
    for (byte[] u : ulpdus) {
      out.add(Hex.toHex(u));
    }
    return out;
  }

  @Override
  public void beforeReadBatch(ChannelHandlerContext ctx) {
    calls.add("batch");
  }

  @Override
  public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
    calls.add("ulpdu");
    byte[] copy = new byte[ulpdu.length()];
    ulpdu.getBytes(0, copy, 0, copy.length);
    ulpdus.add(copy);
  }

  @Override
  public void onMpaError(ChannelHandlerContext ctx, MpaException error) {
    errors.add(error);
  }

  @Override
  public void onInputClosed(ChannelHandlerContext ctx) {
    inputClosed++;
  }

  /** Writes {@code ulpdu} as one FPDU on {@code connection} and flushes. */
  static void send(MpaConnection connection, String ulpduHex) {
    ByteBuf b = Unpooled.wrappedBuffer(Hex.hex(ulpduHex));
    connection.framer().write(b, null);
    connection.framer().flush();
  }
}
