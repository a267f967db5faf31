package io.iwarp4j.ddp.testing;

import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.wire.OpcodeTable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Records what a {@link DdpStream} hands up, copying what outlives each call. It accepts the
 * tagged opcodes of RDMAP's table (RDMA Write, Read Response) and rejects the others. Shared by
 * the ddp-core tests and src-it through ddp-core's test jar.
 *
 * <p>Built without a sink it keeps the events in its lists, for a test on the stream's thread;
 * with one, it hands every event to the sink instead, in order, as a record (also
 * {@link MpaFailure} and {@link InputClosed}), for a test that reads them on another thread.
 */
public class RecordingStreamListener implements DdpStreamListener {

  /** A delivered tagged message. */
  public record Tagged(int rsvdUlp, int stag, long to, long length) {
  }

  /** A delivered untagged message in a posted buffer. */
  public record Untagged(int qn, int msn, long rsvdUlp, int length, long bufferId) {
  }

  /** A delivered control message, its octets in hex. */
  public record Control(int qn, int msn, long rsvdUlp, String hex) {
  }

  /** A DDP error with what a Terminate echoes. */
  public record Error(DdpError error, String headerHex, int headerLength, int segmentLength) {
  }

  /** An MPA error (handed to a sink only). */
  public record MpaFailure(String message) {
  }

  /** The end of input (handed to a sink only). */
  public record InputClosed() {
  }

  /** Every delivery, in order: Tagged, Untagged or Control records. */
  public final List<Object> deliveries = new ArrayList<>();
  public final List<Error> errors = new ArrayList<>();
  public final List<MpaException> mpaErrors = new ArrayList<>();
  public int inputClosed;
  public int rejected;
  /** When set, returned by {@link #acceptTagged} instead of the RDMAP policy. */
  public Boolean acceptOverride;
  private final Consumer<Object> sink;

  /** Keeps the events in its lists. */
  public RecordingStreamListener() {
    this.sink = null;
  }

  /** Hands every event to {@code sink} instead of keeping it. */
  public RecordingStreamListener(Consumer<Object> sink) {
    this.sink = sink;
  }

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
    delivered(new Tagged(rsvdUlp, stag, to, length));
  }

  @Override
  public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
    delivered(new Untagged(qn, msn, rsvdUlp, length, bufferId));
  }

  @Override
  public void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message) {
    delivered(new Control(qn, msn, rsvdUlp, ByteBufUtil.hexDump(message)));
  }

  @Override
  public void onDdpError(DdpError error, Ulpdu segment, int headerLength) {
    byte[] header = new byte[headerLength];
    segment.getBytes(0, header, 0, headerLength);
    Error e = new Error(error, ByteBufUtil.hexDump(header), headerLength, segment.length());
    if (sink != null) {
      sink.accept(e);
    } else {
      errors.add(e);
    }
  }

  @Override
  public void onMpaError(MpaException error) {
    if (sink != null) {
      sink.accept(new MpaFailure(error.getMessage()));
    } else {
      mpaErrors.add(error);
    }
  }

  @Override
  public void onInputClosed() {
    if (sink != null) {
      sink.accept(new InputClosed());
    } else {
      inputClosed++;
    }
  }

  private void delivered(Object delivery) {
    if (sink != null) {
      sink.accept(delivery);
    } else {
      deliveries.add(delivery);
    }
  }
}
