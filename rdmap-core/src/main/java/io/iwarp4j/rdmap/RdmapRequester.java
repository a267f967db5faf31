package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.Gather;
import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagCheck;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.AtomicRequestHeader;
import io.iwarp4j.wire.AtomicResponseHeader;
import io.iwarp4j.wire.ImmediateDataHeader;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.ReadRequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Objects;

/**
 * The requester side of an {@link RdmapEndpoint} (siw's qp_tx for requests): issues RDMA Writes,
 * Read Requests, Sends, Immediate Data and Atomic Requests, within ORD, and takes the responses
 * to its own requests (Read Response delivered, Atomic Response), completing them in issue
 * order. Confined to the event loop; allocates nothing per operation.
 */
final class RdmapRequester {
  private static final int WRITE_CONTROL = RdmapControl.encode(RdmapOpcode.RDMA_WRITE);
  private static final long READ_REQUEST_RSVD_ULP =
      RdmapControl.untaggedRsvdUlp(RdmapOpcode.RDMA_READ_REQUEST, 0);
  private static final long ATOMIC_REQUEST_RSVD_ULP =
      RdmapControl.untaggedRsvdUlp(RdmapOpcode.ATOMIC_REQUEST, 0);
  private static final long IMMEDIATE_RSVD_ULP =
      RdmapControl.untaggedRsvdUlp(RdmapOpcode.IMMEDIATE_DATA, 0);
  private static final long IMMEDIATE_SE_RSVD_ULP =
      RdmapControl.untaggedRsvdUlp(RdmapOpcode.IMMEDIATE_DATA_WITH_SE, 0);

  private final TransmitOrder tx;
  private final RdmapTeardown teardown;
  private final DdpStream stream;
  private final ProtectionDomain pd;
  private final StagTable stags;
  private final RdmapCounters counters;
  private final RdmapEndpointListener listener;
  private final LocalOperations operations;
  private final OutstandingReads reads;
  private final TerminateSender terminator;
  /** Whether the RFC 7306 opcodes may be issued on this stream. */
  private final boolean rfc7306;
  // Each made on the first request of its kind: an idle queue pair (or one that only Writes
  // and Sends) holds none.
  private ByteBuf readRequestHeader;
  private ByteBuf atomicRequestHeader;
  private ByteBuf immediateHeader;
  /** The Request Identifier the next Atomic Request carries. */
  private int nextAtomicRequestId = 1;

  RdmapRequester(TransmitOrder tx, RdmapTeardown teardown, DdpStream stream,
      RdmapCounters counters, RdmapEndpointListener listener, LocalOperations operations,
      OutstandingReads reads, TerminateSender terminator, boolean rfc7306) {
    this.tx = tx;
    this.teardown = teardown;
    this.stream = stream;
    this.pd = stream.protectionDomain();
    this.stags = pd.table();
    this.counters = counters;
    this.listener = listener;
    this.operations = operations;
    this.reads = reads;
    this.terminator = terminator;
    this.rfc7306 = rfc7306;
  }

  /** See {@link RdmapEndpoint#write}; the stream may issue (checked by the caller). */
  void write(long token, int remoteStag, long remoteTo, Gather payload) {
    stream.sendTagged(WRITE_CONTROL, remoteStag, remoteTo, payload);
    counters.sent(RdmapOpcode.RDMA_WRITE, payload == null ? 0 : payload.totalLength());
    operations.addTransmit(token, tx.assignSeq());
  }

  /** See {@link RdmapEndpoint#read}; the stream may issue (checked by the caller). */
  void read(long token, int sinkStag, long sinkTo, int length, int srcStag, long srcTo) {
    if (!reads.canIssue()) {
      throw new IllegalStateException("ORD " + reads.ord() + " RDMA Reads are outstanding:"
          + " wait for a Read to complete (canIssueRead())");
    }
    long size = Integer.toUnsignedLong(length);
    // The sink is the caller's to check (verbs: SendIssuer.checkSges); DDP checks and pins it
    // before each placement (StagTable.checkAndPlace), which finds a sink deregistered since.
    if (readRequestHeader == null) {
      readRequestHeader = Unpooled.wrappedBuffer(new byte[ReadRequestHeader.LENGTH]);
    }
    readRequestHeader.clear();
    ReadRequestHeader.write(readRequestHeader, sinkStag, sinkTo, length, srcStag, srcTo);
    stream.sendUntagged(READ_REQUEST_RSVD_ULP, RdmapOpcode.RDMA_READ_REQUEST.queueNumber(),
        readRequestHeader, null);
    counters.sent(RdmapOpcode.RDMA_READ_REQUEST, ReadRequestHeader.LENGTH);
    long position = operations.addRead(token, size);
    reads.add(position, sinkStag, sinkTo, size);
  }

  /** See {@link RdmapEndpoint#send}; the stream may issue (checked by the caller). */
  void send(long token, RdmapOpcode opcode, int invalidateStag, Gather payload) {
    Objects.requireNonNull(opcode, "opcode");
    if (opcode.queueNumber() != RdmapOpcode.SEND.queueNumber() || opcode.code() > 0x6) {
      throw new IllegalArgumentException(opcode + " is not one of the four Send opcodes");
    }
    long rsvdUlp = RdmapControl.untaggedRsvdUlp(opcode, invalidateStag);
    stream.sendUntagged(rsvdUlp, opcode.queueNumber(), null, payload);
    counters.sent(opcode, payload == null ? 0 : payload.totalLength());
    operations.addTransmit(token, tx.assignSeq());
  }

  /** See {@link RdmapEndpoint#immediate}; the stream may issue (checked by the caller). */
  void immediate(long token, boolean solicited, long data) {
    check7306("Immediate Data");
    issueImmediate(solicited, data);
    operations.addTransmit(token, tx.assignSeq());
  }

  /** See {@link RdmapEndpoint#writeWithImmediate}; the stream may issue (checked by the caller). */
  void writeWithImmediate(long token, int remoteStag, long remoteTo, Gather payload,
      boolean solicited, long data) {
    check7306("RDMA Write with Immediate");
    stream.sendTagged(WRITE_CONTROL, remoteStag, remoteTo, payload);
    counters.sent(RdmapOpcode.RDMA_WRITE, payload == null ? 0 : payload.totalLength());
    tx.assignSeq(); // the Write: completion comes with the Immediate Data that follows it
    issueImmediate(solicited, data);
    operations.addTransmit(token, tx.assignSeq());
  }

  /** See {@link RdmapEndpoint#atomic}; the stream may issue (checked by the caller). */
  void atomic(long token, AtomicOpcode op, int remoteStag, long remoteTo,
      long addOrSwapData, long addOrSwapMask, long compareData, long compareMask, int resultStag,
      long resultTo) {
    if (!rfc7306) {
      check7306("Atomic " + op); // the message is built only when it is thrown: no allocation
    }
    Objects.requireNonNull(op, "op");
    if (!reads.canIssue()) {
      throw new IllegalStateException("ORD " + reads.ord() + " RDMA Reads and Atomics are"
          + " outstanding: wait for one to complete (canIssueRead())");
    }
    // The result buffer is the caller's to check (verbs: SendIssuer.resultRegion); it is
    // checked again, and pinned, where it is written (atomicResponseDelivered).
    boolean fetchAdd = op == AtomicOpcode.FETCH_ADD;
    int requestId = nextAtomicRequestId++;
    if (atomicRequestHeader == null) {
      atomicRequestHeader = Unpooled.wrappedBuffer(new byte[AtomicRequestHeader.LENGTH]);
    }
    atomicRequestHeader.clear();
    AtomicRequestHeader.write(atomicRequestHeader, op.code(), requestId, remoteStag, remoteTo,
        addOrSwapData, addOrSwapMask, fetchAdd ? 0 : compareData, fetchAdd ? -1L : compareMask);
    stream.sendUntagged(ATOMIC_REQUEST_RSVD_ULP, RdmapOpcode.ATOMIC_REQUEST.queueNumber(),
        atomicRequestHeader, null);
    counters.sent(RdmapOpcode.ATOMIC_REQUEST, AtomicRequestHeader.LENGTH);
    long position = operations.addRead(token, Long.BYTES);
    reads.addAtomic(position, resultStag, resultTo, requestId);
  }

  private void issueImmediate(boolean solicited, long data) {
    if (immediateHeader == null) {
      immediateHeader = Unpooled.wrappedBuffer(new byte[ImmediateDataHeader.LENGTH]);
    }
    immediateHeader.clear();
    ImmediateDataHeader.write(immediateHeader, data);
    stream.sendUntagged(solicited ? IMMEDIATE_SE_RSVD_ULP : IMMEDIATE_RSVD_ULP,
        RdmapOpcode.IMMEDIATE_DATA.queueNumber(), immediateHeader, null);
    counters.sent(solicited ? RdmapOpcode.IMMEDIATE_DATA_WITH_SE : RdmapOpcode.IMMEDIATE_DATA,
        ImmediateDataHeader.LENGTH);
  }

  private void check7306(String what) {
    if (!rfc7306) {
      throw new IllegalStateException(what + " needs RFC 7306, which is disabled on this stream");
    }
  }

  /**
   * An Atomic Response was delivered: it must answer the oldest outstanding Atomic (matched by
   * MSN on QN 3, and by its echoed Request Identifier); its original value goes to the Atomic's
   * result buffer and the Atomic completes, in issue order.
   *
   * @param response its 12 octets (the readable bytes), valid during the call
   * @param failed where the Terminate's headers go, holding the response's DDP header
   */
  void atomicResponseDelivered(ByteBuf response, TerminatedSegment failed) {
    if (response.readableBytes() != AtomicResponseHeader.LENGTH) {
      terminator.terminate(RdmapError.UNSPECIFIED_OPERATION, failed);
      return;
    }
    int start = response.readerIndex();
    switch (reads.checkAtomicResponse(AtomicResponseHeader.requestId(response, start))) {
      case NO_ATOMIC_OUTSTANDING:
        terminator.terminate(RdmapError.UNEXPECTED_OPCODE, failed);
        return;
      case WRONG_REQUEST_ID:
        terminator.terminate(RdmapError.UNSPECIFIED_OPERATION, failed);
        return;
      default:
        break;
    }
    int resultStag = reads.oldestSinkStag();
    long resultTo = reads.oldestSinkTo();
    io.iwarp4j.ddp.mem.MemoryRegion region = stags.lookup(resultStag);
    // The one check of the result range in this layer, where the memory is written: the region
    // may have been deregistered (or its STag reused) since the Atomic was issued.
    if (region == null
        || region.check(resultTo, Long.BYTES, AccessFlags.LOCAL_WRITE, pd) != StagCheck.OK
        || !region.tryPin()) {
      localSinkGone();
      return;
    }
    try {
      region.putLong(resultTo - region.baseTo(),
          AtomicResponseHeader.originalValue(response, start));
    } finally {
      region.unpin();
    }
    operations.readDelivered(reads.completeOldest());
    tx.drainCompletions();
  }

  /**
   * The oldest Read's sink or Atomic's result buffer was deregistered while it was outstanding:
   * a local protection error charged to it, and an RDMAP Local Catastrophic Terminate, never a
   * DDP error that would blame the peer.
   */
  void localSinkGone() {
    if (teardown.isEnded()) {
      return;
    }
    listener.onLocalProtectionError(operations.tokenAt(reads.oldestPosition()), false);
    terminator.terminate(RdmapError.LAYER, RdmapError.ETYPE_LOCAL_CATASTROPHIC, 0, null);
  }

  /** The oldest Read's Read Response was delivered: complete it, in issue order. */
  void readResponseDelivered() {
    operations.readDelivered(reads.completeOldest());
    tx.drainCompletions();
  }
}
