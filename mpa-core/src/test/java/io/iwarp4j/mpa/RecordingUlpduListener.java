package io.iwarp4j.mpa;

import io.iwarp4j.testing.Hex;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayList;
import java.util.List;

/** Records copies of the ULPDUs, errors and end-of-input reports it gets. */
final class RecordingUlpduListener implements UlpduListener {
  final List<String> ulpdus = new ArrayList<>();
  /** "batch" for each {@link #beforeReadBatch}, "ulpdu" for each ULPDU, in order. */
  final List<String> calls = new ArrayList<>();
  final List<MpaException> errors = new ArrayList<>();
  int inputClosed;

  /** The ULPDUs received, each as hex. */
  List<String> hexUlpdus() {
    return ulpdus;
  }

  @Override
  public void beforeReadBatch(ChannelHandlerContext ctx) {
    calls.add("batch");
  }

  @Override
  public void onUlpdu(ChannelHandlerContext ctx, Ulpdu ulpdu) {
    calls.add("ulpdu");
    byte[] b = new byte[ulpdu.length()];
    ulpdu.getBytes(0, b, 0, b.length);
    ulpdus.add(Hex.toHex(b));
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
