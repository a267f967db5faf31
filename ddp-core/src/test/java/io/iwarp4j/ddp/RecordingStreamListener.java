package io.iwarp4j.ddp;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.wire.OpcodeTable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Records what a {@link DdpStream} hands up, copying what outlives each call. It accepts the
 * tagged opcodes of RDMAP's table (RDMA Write, Read Response) and rejects the others.
 */
final class RecordingStreamListener implements DdpStreamListener {

  /** A delivered tagged message. */
  record Tagged(int rsvdUlp, int stag, long to, long length) {
  }

  /** A delivered untagged message in a posted buffer. */
  record Untagged(int qn, int msn, long rsvdUlp, int length, long bufferId) {
  }

  /** A delivered control message, its octets in hex. */
  record Control(int qn, int msn, long rsvdUlp, String hex) {
  }

  /** A DDP error with what a Terminate echoes. */
  record Error(DdpError error, String headerHex, int headerLength, int segmentLength) {
  }

  /** Every delivery, in order: Tagged, Untagged or Control records. */
  final List<Object> deliveries = new ArrayList<>();
  final List<Error> errors = new ArrayList<>();
  final List<MpaException> mpaErrors = new ArrayList<>();
  int inputClosed;
  int rejected;
  /** When set, returned by {@link #acceptTagged} instead of the RDMAP policy. */
  Boolean acceptOverride;

  @Override
  public boolean acceptTagged(int rsvdUlp, Ulpdu segment) {
    if (acceptOverride != null) {
      return acceptOverride;
    }
    if (OpcodeTable.validTagged(rsvdUlp)) {
      return true;
    }
    rejected++;
    return false;
  }

  @Override
  public void onTaggedMessage(int rsvdUlp, int stag, long to, long length) {
    deliveries.add(new Tagged(rsvdUlp, stag, to, length));
  }

  @Override
  public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
    deliveries.add(new Untagged(qn, msn, rsvdUlp, length, bufferId));
  }

  @Override
  public void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message) {
    deliveries.add(new Control(qn, msn, rsvdUlp, ByteBufUtil.hexDump(message)));
  }

  @Override
  public void onDdpError(DdpError error, Ulpdu segment, int headerLength) {
    byte[] header = new byte[headerLength];
    segment.getBytes(0, header, 0, headerLength);
    errors.add(new Error(error, ByteBufUtil.hexDump(header), headerLength, segment.length()));
  }

  @Override
  public void onMpaError(MpaException error) {
    mpaErrors.add(error);
  }

  @Override
  public void onInputClosed() {
    inputClosed++;
  }
}
