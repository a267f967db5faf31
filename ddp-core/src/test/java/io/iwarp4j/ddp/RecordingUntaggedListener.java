package io.iwarp4j.ddp;

import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;

/** Records what an {@link UntaggedDispatcher} reports, copying what outlives each call. */
final class RecordingUntaggedListener implements UntaggedReceiveListener {

  /** One delivery. */
  record Delivery(int qn, int msn, int length, long rsvdUlp, long bufferId) {
  }

  /** One error, with the header octets and segment length a Terminate would echo. */
  record Error(int errorType, int errorCode, String headerHex, int headerLength,
      int segmentLength) {
  }

  final List<Delivery> deliveries = new ArrayList<>();
  final List<Error> errors = new ArrayList<>();

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
