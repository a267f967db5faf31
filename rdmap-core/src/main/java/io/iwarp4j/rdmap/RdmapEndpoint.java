package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.ddp.GatherList;
import io.netty.buffer.ByteBuf;

/**
 * One RDMAP Stream (RFC 5040) on top of a {@link DdpStream}: the requester side of RDMA Write,
 * RDMA Read and the four Sends, the responder side of Read Requests (bounded by IRD), receive
 * buffers for Sends, Terminate generation and decoding, and teardown.
 *
 * <p>Confined to the connection's event loop: every method must be called there. It allocates
 * nothing per operation in steady state.
 *
 * <p>CONTRACT STUB: the signatures are fixed; the RDMAP engine work implements them.
 */
public final class RdmapEndpoint {

  /**
   * @param stream the DDP stream (its listener is set to this endpoint's)
   * @param listener the owner's callbacks
   * @param ird inbound Read Request queue depth (negotiated): more outstanding requests are a
   *     protocol error
   * @param ord outbound Read depth (negotiated): see {@link #canIssueRead()}
   * @param maxReceiveBuffers how many receive buffers may be posted at once (the QP's RQ depth)
   * @param maxReceivePieces the most scatter pieces one receive buffer may have (the QP's SGEs)
   */
  public RdmapEndpoint(DdpStream stream, RdmapEndpointListener listener, int ird, int ord,
      int maxReceiveBuffers, int maxReceivePieces) {
    throw new UnsupportedOperationException("contract stub");
  }

  /** The DDP stream listener to install on the stream (this endpoint's receive side). */
  public DdpStreamListener ddpListener() {
    throw new UnsupportedOperationException("contract stub");
  }

  /** Whether another RDMA Read may be issued now: fewer than ORD are outstanding. */
  public boolean canIssueRead() {
    throw new UnsupportedOperationException("contract stub");
  }

  /** Number of RDMA Reads issued and not yet completed. */
  public int outstandingReads() {
    throw new UnsupportedOperationException("contract stub");
  }

  /** Whether the stream may send (RFC 5044 §7.1.2 rule 4 for a Responder) and is not ended. */
  public boolean canSend() {
    throw new UnsupportedOperationException("contract stub");
  }

  /**
   * Issues an RDMA Write of {@code payload} (one message, any number of pieces, may be empty)
   * to the peer's {@code remoteStag}/{@code remoteTo}. The pieces are slices of registered
   * memory; they are sent without a copy. Completion: {@link RdmapEndpointListener#onSendComplete}.
   */
  public void write(long token, int remoteStag, long remoteTo, GatherList payload) {
    throw new UnsupportedOperationException("contract stub");
  }

  /**
   * Issues an RDMA Read Request: {@code length} octets from the peer's {@code srcStag}/
   * {@code srcTo} into our {@code sinkStag}/{@code sinkTo} (a local region with LOCAL_WRITE).
   * Completion: {@link RdmapEndpointListener#onReadComplete}.
   *
   * @throws IllegalStateException when {@link #canIssueRead()} is false (the caller waits)
   */
  public void read(long token, int sinkStag, long sinkTo, int length, int srcStag, long srcTo) {
    throw new UnsupportedOperationException("contract stub");
  }

  /**
   * Issues a Send, Send with SE, Send with Invalidate or Send with SE and Invalidate.
   *
   * @param opcode one of the four Send opcodes
   * @param invalidateStag the peer STag to invalidate (Invalidate variants), else 0
   */
  public void send(long token, RdmapOpcode opcode, int invalidateStag, GatherList payload) {
    throw new UnsupportedOperationException("contract stub");
  }

  /**
   * Posts a receive buffer for Send-type messages: {@code pieces} slices of registered memory
   * (with LOCAL_WRITE) filled in order. The buffer is consumed by the next Send that arrives
   * after all earlier posted buffers were consumed.
   *
   * @throws IllegalStateException when {@code maxReceiveBuffers} are already posted
   */
  public void postReceive(long bufferId, ByteBuf[] pieces, int pieceCount) {
    throw new UnsupportedOperationException("contract stub");
  }

  /** Flushes what was issued since the last flush (call once per batch, not per operation). */
  public void flush() {
    throw new UnsupportedOperationException("contract stub");
  }

  /** Whether the stream has ended (Terminate sent or received, or disconnected). */
  public boolean isEnded() {
    throw new UnsupportedOperationException("contract stub");
  }

  /** Graceful teardown: what was handed to TCP is sent, then FIN. */
  public void close() {
    throw new UnsupportedOperationException("contract stub");
  }

  /**
   * Abortive teardown for a local error: sends a Terminate with this RDMAP-layer type/code
   * (Layer 0), then closes. Reported as {@link RdmapEndpointListener#onTerminateSent}.
   */
  public void abort(int errorType, int errorCode) {
    throw new UnsupportedOperationException("contract stub");
  }
}
