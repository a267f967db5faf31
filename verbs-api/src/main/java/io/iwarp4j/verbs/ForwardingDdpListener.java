package io.iwarp4j.verbs;

import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;

/**
 * A DDP stream listener that forwards to one set later: a {@code DdpStream} needs its listener
 * at construction, and the RDMAP endpoint that provides it needs the stream first. Nothing
 * arrives before the stream is started, by which time the target is set.
 */
final class ForwardingDdpListener implements DdpStreamListener {
  private DdpStreamListener target;

  void target(DdpStreamListener target) {
    this.target = target;
  }

  private DdpStreamListener target() {
    DdpStreamListener t = target;
    if (t == null) {
      throw new IllegalStateException("the DDP stream delivered before the RDMAP endpoint existed");
    }
    return t;
  }

  @Override
  public int requiredAccess(int rsvdUlp, Ulpdu segment) {
    return target().requiredAccess(rsvdUlp, segment);
  }

  @Override
  public void onTaggedMessage(int rsvdUlp, int stag, long to, long length) {
    target().onTaggedMessage(rsvdUlp, stag, to, length);
  }

  @Override
  public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
    target().onUntaggedMessage(qn, msn, rsvdUlp, length, bufferId);
  }

  @Override
  public void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message) {
    target().onControlMessage(qn, msn, rsvdUlp, message);
  }

  @Override
  public void onDdpError(DdpError error, Ulpdu segment, int headerLength) {
    target().onDdpError(error, segment, headerLength);
  }

  @Override
  public void onMpaError(MpaException error) {
    target().onMpaError(error);
  }

  @Override
  public void onInputClosed() {
    target().onInputClosed();
  }
}
