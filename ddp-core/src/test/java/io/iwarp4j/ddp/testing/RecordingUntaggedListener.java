package io.iwarp4j.ddp.testing;

import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.UntaggedDispatcher;
import io.iwarp4j.ddp.UntaggedReceiveListener;
import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Records what an {@link UntaggedDispatcher} reports, copying what outlives each call (shared by
 * the ddp-core and rdmap-core tests through ddp-core's test jar).
 */
public final class RecordingUntaggedListener implements UntaggedReceiveListener {

  /** One delivery. */
  public record Delivery(int qn, int msn, int length, long rsvdUlp, long bufferId) {
  }

  /** One error, with the header octets and segment length a Terminate would echo. */
  public record Error(int errorType, int errorCode, String headerHex, int headerLength,
      int segmentLength) {
  }

  public final List<Delivery> deliveries = new ArrayList<>();
  public final List<Error> errors = new ArrayList<>();

  @Override
  public void onUntaggedMessage(int qn, int msn, int length, long rsvdUlp, long bufferId) {
    deliveries.add(new Delivery(qn, msn, length, rsvdUlp, bufferId));
  }

  @Override
  public void onUntaggedError(DdpError error, Ulpdu segment, int headerLength) {
    byte[] header = new byte[headerLength];
    segment.getBytes(0, header, 0, headerLength);
    errors.add(new Error(error.errorType(), error.code(), ByteBufUtil.hexDump(header), headerLength,
        segment.length()));
  }
}
