package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.UntaggedReceiveQueue;
import io.iwarp4j.wire.RdmapOpcode;
import io.netty.buffer.ByteBuf;

/**
 * The receive buffers of an {@link RdmapEndpoint} (siw's receive queue): posted for Send-type
 * messages and Immediate Data on DDP's QN 0, at most {@code maxReceiveBuffers} of them with at
 * most {@code maxReceivePieces} pieces each, and the owner's reports about them: filled, consumed
 * by Immediate Data, their memory deregistered before a Send filled them, none left. Confined to
 * the event loop; posting allocates nothing (the pieces go through one reused gather list).
 */
final class ReceiveBuffers {
  private final UntaggedReceiveQueue queue;
  private final int maxReceiveBuffers;
  private final int maxReceivePieces;
  private final GatherList pieces;
  private final RdmapEndpointListener listener;
  private final RdmapTeardown teardown;
  private final TerminateSender terminator;

  ReceiveBuffers(UntaggedReceiveQueue queue, int maxReceiveBuffers, int maxReceivePieces,
      RdmapEndpointListener listener, RdmapTeardown teardown, TerminateSender terminator) {
    this.queue = queue;
    this.maxReceiveBuffers = maxReceiveBuffers;
    this.maxReceivePieces = maxReceivePieces;
    this.pieces = new GatherList(maxReceivePieces);
    this.listener = listener;
    this.teardown = teardown;
    this.terminator = terminator;
  }

  /** See {@link RdmapEndpoint#postReceive}; the stream is open (checked by the caller). */
  void post(long bufferId, ByteBuf[] buffer, int pieceCount) {
    if (pieceCount < 0 || pieceCount > maxReceivePieces || pieceCount > buffer.length) {
      throw new IllegalArgumentException(pieceCount + " receive pieces: 0.." + maxReceivePieces
          + " (maxReceivePieces) and at most the array's " + buffer.length);
    }
    if (queue.postedCount() == maxReceiveBuffers) {
      throw new IllegalStateException("maxReceiveBuffers " + maxReceiveBuffers
          + " receive buffers are posted already");
    }
    if (pieceCount == 1) {
      // The common receive, one piece: straight into the queue, no gather list to fill and clear.
      ByteBuf piece = buffer[0];
      queue.post(piece, piece.readerIndex(), piece.readableBytes(), bufferId);
      return;
    }
    try {
      for (int i = 0; i < pieceCount; i++) {
        pieces.add(buffer[i]);
      }
      queue.post(pieces, bufferId);
    } finally {
      pieces.clear();
    }
  }

  /** A Send-type message was delivered into posted buffer {@code bufferId}. */
  void sendDelivered(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
    listener.onReceive(bufferId, opcode, length, invalidatedStag);
  }

  /** Immediate Data was delivered: it consumed posted buffer {@code bufferId}, unfilled. */
  void immediateDelivered(long bufferId, RdmapOpcode opcode, long data) {
    listener.onImmediateData(bufferId, opcode, data);
  }

  /** A Send-type message found no posted buffer: the owner may post one now (shared queue). */
  void bufferNeeded() {
    listener.onReceiveBufferNeeded();
  }

  /**
   * A posted receive buffer's memory was deregistered before a Send filled it: as a Read sink's
   * ({@link RdmapRequester#localSinkGone}).
   */
  void memoryGone(long bufferId) {
    if (teardown.isEnded()) {
      return;
    }
    listener.onLocalProtectionError(bufferId, true);
    terminator.terminate(RdmapError.LAYER, RdmapError.ETYPE_LOCAL_CATASTROPHIC, 0, null);
  }
}
