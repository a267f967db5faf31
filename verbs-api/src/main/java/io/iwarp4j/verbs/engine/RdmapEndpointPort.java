package io.iwarp4j.verbs.engine;

import io.iwarp4j.ddp.Gather;
import io.iwarp4j.rdmap.RdmapEndpoint;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/** The real {@link EndpointPort}: an {@link RdmapEndpoint} and its channel. */
public final class RdmapEndpointPort implements EndpointPort {
  private final RdmapEndpoint endpoint;
  private final Channel channel;

  public RdmapEndpointPort(RdmapEndpoint endpoint, Channel channel) {
    this.endpoint = endpoint;
    this.channel = channel;
  }

  @Override
  public boolean canSend() {
    return endpoint.canSend();
  }

  @Override
  public boolean isWritable() {
    return channel.isWritable();
  }

  @Override
  public boolean canIssueRead() {
    return endpoint.canIssueRead();
  }

  @Override
  public void write(long token, int remoteStag, long remoteTo, Gather payload) {
    endpoint.write(token, remoteStag, remoteTo, payload);
  }

  @Override
  public void read(long token, int sinkStag, long sinkTo, int length, int srcStag, long srcTo) {
    endpoint.read(token, sinkStag, sinkTo, length, srcStag, srcTo);
  }

  @Override
  public void send(long token, RdmapOpcode opcode, int invalidateStag, Gather payload) {
    endpoint.send(token, opcode, invalidateStag, payload);
  }

  @Override
  public boolean rfc7306Enabled() {
    return endpoint.rfc7306Enabled();
  }

  @Override
  public Object streamScope() {
    return endpoint.streamScope();
  }

  @Override
  public void atomic(long token, AtomicOpcode op, int remoteStag, long remoteTo,
      long addOrSwapData, long addOrSwapMask, long compareData, long compareMask, int resultStag,
      long resultTo) {
    endpoint.atomic(token, op, remoteStag, remoteTo, addOrSwapData, addOrSwapMask, compareData,
        compareMask, resultStag, resultTo);
  }

  @Override
  public void immediate(long token, boolean solicited, long data) {
    endpoint.immediate(token, solicited, data);
  }

  @Override
  public void writeWithImmediate(long token, int remoteStag, long remoteTo, Gather payload,
      boolean solicited, long data) {
    endpoint.writeWithImmediate(token, remoteStag, remoteTo, payload, solicited, data);
  }

  @Override
  public void postReceive(long bufferId, ByteBuf[] pieces, int count) {
    endpoint.postReceive(bufferId, pieces, count);
  }

  @Override
  public void flush() {
    endpoint.flush();
  }

  @Override
  public void close() {
    endpoint.close();
  }

  @Override
  public void abort(int errorType, int errorCode) {
    endpoint.abort(errorType, errorCode);
  }

  /** How long {@link #closeNow()} lets written octets leave before it resets the connection. */
  static final long CLOSE_NOW_BOUND_MILLIS = 1_000;

  @Override
  public void closeNow() {
    // Never a FIN in the middle of an FPDU: after what was written, or a reset past the bound.
    io.iwarp4j.mpa.FpduBoundaryClose.close(channel, CLOSE_NOW_BOUND_MILLIS);
  }
}
