package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.wire.AtomicRequestHeader;
import io.iwarp4j.wire.AtomicResponseHeader;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.ReadRequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The responder side of an {@link RdmapEndpoint} (siw's Read/Atomic responder): inbound Read and
 * Atomic Requests, at most IRD of them outstanding, answered in the order they arrived; an Atomic
 * waits while an earlier zero-copy Read Response may still carry its target's octets. Read
 * Responses are sent by the {@link ReadResponder}, Atomics performed by the
 * {@link AtomicResponder}. Confined to the event loop.
 */
final class InboundRequests {
  private static final long ATOMIC_RESPONSE_RSVD_ULP =
      RdmapControl.untaggedRsvdUlp(RdmapOpcode.ATOMIC_RESPONSE, 0);

  private final TransmitOrder tx;
  private final RdmapTeardown teardown;
  private final DdpStream stream;
  private final RdmapCounters counters;
  private final ReadResponder responder;
  private final AtomicResponder atomics;
  private final TerminateSender terminator;
  /** Made on the first Atomic Response: a queue pair that answers none holds no buffer. */
  private ByteBuf atomicResponseHeader;
  /** Inbound requests that wait for earlier Read Responses to leave (see the class). */
  private final DeferredRequests deferred;
  private final int ird;
  /** Transmit messages below this include every zero-copy Read Response with payload so far. */
  private long readResponseHorizon;

  InboundRequests(TransmitOrder tx, RdmapTeardown teardown, DdpStream stream,
      RdmapCounters counters, ReadResponder responder, TerminateSender terminator, int ird) {
    this.tx = tx;
    this.teardown = teardown;
    this.stream = stream;
    this.counters = counters;
    this.responder = responder;
    this.atomics = new AtomicResponder(stream.protectionDomain(), stream);
    this.terminator = terminator;
    this.ird = ird;
    this.deferred = new DeferredRequests(ird);
  }

  /** Whether requests wait for earlier responses to leave. */
  boolean hasWaiting() {
    return !deferred.isEmpty();
  }

  /** The stream ended: waiting requests are never answered. */
  void clear() {
    deferred.clear();
  }

  /**
   * An Atomic Request was delivered (RFC 7306 §5.2.1): perform it and send its Atomic Response,
   * in order with the Read Responses around it, or end the stream with the right Terminate
   * (the request's DDP header echoed, no RDMA header: §8.1 item 2).
   *
   * @param request its 52 octets (the readable bytes), valid during the call
   * @param failed where the Terminate's headers go, holding the request's DDP header
   */
  void atomicRequestDelivered(ByteBuf request, TerminatedSegment failed) {
    if (inboundFull()) {
      terminator.terminate(DdpError.INVALID_MSN_NO_BUFFER, failed);
      return;
    }
    if (request.readableBytes() != AtomicRequestHeader.LENGTH) {
      terminator.terminate(RdmapError.UNSPECIFIED_OPERATION, failed);
      return;
    }
    if (!deferred.isEmpty() || tx.taken() < readResponseHorizon) {
      // An earlier zero-copy Read Response may still carry the target's octets: perform it once
      // that left.
      deferred.add(true, request, failed);
      return;
    }
    answerAtomic(request, failed);
  }

  private void answerAtomic(ByteBuf request, TerminatedSegment failed) {
    RdmapError error = atomics.execute(request);
    if (error != null) {
      terminator.terminate(error, failed);
      return;
    }
    if (atomicResponseHeader == null) {
      atomicResponseHeader = Unpooled.wrappedBuffer(new byte[AtomicResponseHeader.LENGTH]);
    }
    atomicResponseHeader.clear();
    AtomicResponseHeader.write(atomicResponseHeader, atomics.requestId(), atomics.originalValue());
    stream.sendUntagged(ATOMIC_RESPONSE_RSVD_ULP, RdmapOpcode.ATOMIC_RESPONSE.queueNumber(),
        atomicResponseHeader, null);
    counters.sent(RdmapOpcode.ATOMIC_RESPONSE, AtomicResponseHeader.LENGTH);
    responder.trackAtomicResponse(tx.nextSeq());
    tx.assignSeq();
    tx.responseWritten();
  }

  /**
   * A Read Request was delivered: answer it, or end the stream with the right Terminate.
   *
   * @param request its 28 octets (the readable bytes), valid during the call
   * @param failed where the Terminate's headers go, holding the request's DDP header
   */
  void readRequestDelivered(ByteBuf request, TerminatedSegment failed) {
    if (inboundFull()) {
      terminator.terminate(DdpError.INVALID_MSN_NO_BUFFER, failed);
      return;
    }
    if (request.readableBytes() != ReadRequestHeader.LENGTH) {
      terminator.terminate(RdmapError.UNSPECIFIED_OPERATION, failed);
      return;
    }
    if (!deferred.isEmpty()) {
      deferred.add(false, request, failed); // behind a waiting Atomic: answers stay in order
      return;
    }
    answerRead(request, failed);
  }

  /** Whether another inbound Read or Atomic Request would exceed the IRD. */
  private boolean inboundFull() {
    return responder.outstanding() + deferred.size() >= ird;
  }

  private void answerRead(ByteBuf request, TerminatedSegment failed) {
    if (!responder.respond(request, tx.nextSeq())) {
      failed.withReadRequest(request);
      terminator.terminate(responder.error(), failed);
      return;
    }
    int ddpStart = request.readerIndex() - ReadRequestHeader.START_OFFSET;
    int size = ReadRequestHeader.readSize(request, ddpStart);
    counters.sent(RdmapOpcode.RDMA_READ_RESPONSE, Integer.toUnsignedLong(size));
    if (responder.lastZeroCopy()) {
      // It reads the source when the transport sends it: a later Atomic waits for that. A
      // snapshot or an empty response holds no source octets, so Atomics need not wait for it.
      readResponseHorizon = tx.nextSeq() + 1;
    }
    tx.assignSeq();
    tx.responseWritten();
  }

  /** Answers the waiting inbound requests that may be answered now, in order. */
  void answerWaitingRequests() {
    while (teardown.isOpen() && !deferred.isEmpty()) {
      boolean atomic = deferred.headIsAtomic();
      if (atomic && tx.taken() < readResponseHorizon) {
        return; // onTaken schedules another pass
      }
      ByteBuf request = deferred.headRequest();
      TerminatedSegment failed = deferred.headSegment();
      deferred.removeHead();
      if (atomic) {
        answerAtomic(request, failed);
      } else {
        answerRead(request, failed);
      }
    }
  }
}
