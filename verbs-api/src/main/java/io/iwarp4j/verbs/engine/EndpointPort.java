package io.iwarp4j.verbs.engine;

import io.iwarp4j.ddp.Gather;
import io.iwarp4j.verbs.QueuePair;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;

/**
 * What a {@link QueuePair} needs from the RDMAP stream and channel under it: the
 * {@link io.iwarp4j.rdmap.RdmapEndpoint} operations plus the channel's writability. A seam, so
 * the queue pair's queueing, ordering and flushing can be tested against a fake; the real one is
 * {@link RdmapEndpointPort}. Every method is called on the connection's event loop.
 */
public interface EndpointPort {

  /** Whether the stream may send now: RFC 5044 §7.1.2 rule 4 allows it and it has not ended. */
  boolean canSend();

  /** Whether the channel takes more writes now (Netty's writability). */
  boolean isWritable();

  /** Whether another RDMA Read may be issued: fewer than ORD are outstanding. */
  boolean canIssueRead();

  /** Issues an RDMA Write; completes with {@code onSendComplete(token)}. */
  void write(long token, int remoteStag, long remoteTo, Gather payload);

  /** Issues an RDMA Read Request; completes with {@code onReadComplete(token, length)}. */
  void read(long token, int sinkStag, long sinkTo, int length, int srcStag, long srcTo);

  /** Issues one of the four Sends; completes with {@code onSendComplete(token)}. */
  void send(long token, RdmapOpcode opcode, int invalidateStag, Gather payload);

  /** Whether the stream speaks RFC 7306 (Atomics, Immediate Data). */
  boolean rfc7306Enabled();

  /**
   * The identity of this connection's stream, which type 2 memory windows bound by the queue
   * pair are limited to (RFC 5041 §8.2).
   *
   * @return the stream identity, never null
   */
  Object streamScope();

  /** Issues an RFC 7306 Atomic; shares ORD with Reads; completes with {@code onReadComplete}. */
  void atomic(long token, AtomicOpcode op, int remoteStag, long remoteTo, long addOrSwapData,
      long addOrSwapMask, long compareData, long compareMask, int resultStag, long resultTo);

  /** Issues Immediate Data (with SE when {@code solicited}); completes like a Send. */
  void immediate(long token, boolean solicited, long data);

  /** Issues an RDMA Write followed by Immediate Data; completes once, like a Send. */
  void writeWithImmediate(long token, int remoteStag, long remoteTo, Gather payload,
      boolean solicited, long data);

  /** Posts a receive buffer of {@code count} pieces for the next Send. */
  void postReceive(long bufferId, ByteBuf[] pieces, int count);

  /** Flushes what was issued since the last flush. */
  void flush();

  /** Graceful teardown: what was handed to TCP is sent, then FIN. */
  void close();

  /** Abortive teardown: a Terminate with this RDMAP-layer type/code, then close. */
  void abort(int errorType, int errorCode);

  /**
   * Closes the connection without further protocol (the stream is already dead), never cutting
   * an FPDU: the FIN follows what was already written, or the connection is reset past a bound.
   */
  void closeNow();
}
