package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpError;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.ddp.mem.InvalidateResult;
import io.iwarp4j.ddp.mem.MemoryRegion;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.ImmediateDataHeader;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.TerminateMessage;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive side of an {@link RdmapEndpoint}: RDMAP's checks on what DDP hands up (RFC 5040
 * §7.2) and the dispatch of each delivered message, both by the opcode's row of
 * {@link OpcodeTable}. Version and opcode are checked on every
 * segment before DDP places it ({@link #acceptTagged} for tagged segments, before DDP's STag
 * checks; {@link #acceptUntagged} for untagged ones, after DDP's queue checks), so a segment RDMAP
 * refuses changes no memory. Errors found after delivery (a Send with Invalidate that cannot
 * invalidate, a bad Read Request) echo the header of the message's last segment, which is kept
 * for that.
 *
 * <p>Event-loop confined; allocates nothing per segment.
 */
final class RdmapReceiver implements DdpStreamListener {
  private static final Logger log = LoggerFactory.getLogger(RdmapReceiver.class);

  private final RdmapEndpoint endpoint;
  private final RdmapTeardown teardown;
  private final OutstandingReads reads;
  private final RdmapRequester requester;
  private final InboundRequests inbound;
  private final ReceiveBuffers receiveBuffers;
  private final TerminateSender terminator;
  private final StagTable stags;
  private final ProtectionDomain pd;
  /** This stream's identity, for STags limited to one stream (memory windows). */
  private final Object scope;
  /** The header of the last L=1 untagged segment: what a post-delivery error echoes. */
  private final TerminatedSegment lastMessage = new TerminatedSegment();
  /** What the Terminate for the error found now echoes. */
  private final TerminatedSegment failed = new TerminatedSegment();
  /** A received Terminate, rebuilt as one ULPDU for {@link TerminateMessage}; made for it. */
  private ByteBuf terminate;
  private final TerminateMessage terminateView = new TerminateMessage();
  /** The 8 octets of the Immediate Data message being delivered (read before its delivery). */
  private long immediateData;

  RdmapReceiver(RdmapEndpoint endpoint, RdmapTeardown teardown, OutstandingReads reads,
      RdmapRequester requester, InboundRequests inbound, ReceiveBuffers receiveBuffers,
      TerminateSender terminator) {
    this.endpoint = endpoint;
    this.teardown = teardown;
    this.reads = reads;
    this.requester = requester;
    this.inbound = inbound;
    this.receiveBuffers = receiveBuffers;
    this.terminator = terminator;
    this.pd = endpoint.protectionDomain();
    this.scope = endpoint.streamScope();
    this.stags = pd.table();
  }

  // ---- before placement ----

  @Override
  public boolean acceptTagged(int rsvdUlp, Ulpdu segment) {
    if (RdmapControl.version(rsvdUlp) != RdmapControl.VERSION) {
      return reject(RdmapError.INVALID_VERSION, segment);
    }
    int opcode = RdmapControl.opcode(rsvdUlp);
    if (!OpcodeTable.validTagged(opcode)) {
      return reject(RdmapError.UNEXPECTED_OPCODE, segment);
    }
    if (!OpcodeTable.has(opcode, OpcodeTable.RESPONSE)) {
      return true; // an RDMA Write: DDP checks its STag (REMOTE_WRITE, from the table)
    }
    boolean last = DdpControl.isLast(DdpControl.get(segment));
    switch (reads.checkSegment(TaggedHeader.stag(segment), TaggedHeader.taggedOffset(segment),
        segment.length() - TaggedHeader.LENGTH, last)) {
      case OK:
        return true;
      case NO_READ_OUTSTANDING:
        return reject(RdmapError.UNEXPECTED_OPCODE, segment);
      case WRONG_STAG:
        return reject(DdpError.INVALID_STAG, segment);
      default:
        return reject(DdpError.BASE_OR_BOUNDS_VIOLATION, segment);
    }
  }

  @Override
  public void receiveBufferNeeded(int qn) {
    if (teardown.isOpen()) {
      receiveBuffers.bufferNeeded();
    }
  }

  @Override
  public boolean placesUntaggedPayload(int qn, long rsvdUlp) {
    // Immediate Data consumes a receive buffer but is handed over in the completion (RFC 7306
    // §6.1), never placed into the buffer; everything else lands in its queue's buffer.
    return !OpcodeTable.has(RdmapControl.opcode(RdmapControl.controlOf(rsvdUlp)),
        OpcodeTable.IMMEDIATE_DATA);
  }

  @Override
  public boolean acceptUntagged(int qn, long rsvdUlp, Ulpdu segment) {
    int control = RdmapControl.controlOf(rsvdUlp);
    int opcode = RdmapControl.opcode(control);
    // The last segment's header is kept for a Terminate only a delivery can still send: a
    // control message's (QN 1-3) or a failed invalidation's. A plain Send on QN 0 needs none.
    if ((qn != OpcodeTable.SEND_QN || OpcodeTable.has(opcode, OpcodeTable.INVALIDATE_STAG))
        && DdpControl.isLast(DdpControl.get(segment))) {
      lastMessage.capture(segment);
    }
    if (RdmapControl.version(control) != RdmapControl.VERSION) {
      reject(RdmapError.INVALID_VERSION, segment);
      return false;
    }
    if (!belongsOn(opcode, qn)) {
      reject(RdmapError.UNEXPECTED_OPCODE, segment);
      return false;
    }
    if (OpcodeTable.has(opcode, OpcodeTable.IMMEDIATE_DATA)) {
      // RFC 7306 §6.3: exactly 8 octets, so one whole segment (MO 0, L=1) of 8 payload octets.
      if (segment.length() != ImmediateDataHeader.SEGMENT_LENGTH
          || UntaggedHeader.messageOffset(segment) != 0
          || !DdpControl.isLast(DdpControl.get(segment))) {
        reject(RdmapError.UNSPECIFIED_OPERATION, segment);
        return false;
      }
      immediateData = ImmediateDataHeader.data(segment);
    }
    if (OpcodeTable.has(opcode, OpcodeTable.INVALIDATE_STAG)
        && UntaggedHeader.messageOffset(segment) == 0) {
      // Checked before the first octet is placed, so a doomed Send leaves the buffer untouched;
      // delivery still does the invalidation (and catches a change in between).
      RdmapError e = invalidateCheck(RdmapControl.invalidateStagOf(rsvdUlp));
      if (e != null) {
        reject(e, segment);
        return false;
      }
    }
    return true;
  }

  /** Whether {@code opcode} is one this end accepts on untagged queue {@code qn}. */
  private boolean belongsOn(int opcode, int qn) {
    if (!OpcodeTable.validUntagged(opcode, qn)) {
      return false;
    }
    // Without RFC 7306 its opcodes are unexpected, as at a peer that lacks it (§1.1: 0/2/0x06).
    return !OpcodeTable.has(opcode, OpcodeTable.RFC7306) || endpoint.rfc7306Enabled();
  }

  /** Why {@code stag} cannot be invalidated by this stream, or null when it can. */
  private RdmapError invalidateCheck(int stag) {
    MemoryRegion region = stags.lookup(stag);
    if (region == null) {
      return RdmapError.CANNOT_INVALIDATE_UNKNOWN_STAG;
    }
    if (region.pd() != pd || (region.scope() != null && region.scope() != scope)
        || !region.remoteInvalidationAllowed()) {
      return RdmapError.CANNOT_INVALIDATE;
    }
    return null;
  }

  private boolean reject(RdmapError error, Ulpdu segment) {
    failed.capture(segment);
    debugRejected(error.errorType(), error.code(), segment);
    terminator.terminate(error, failed);
    return false;
  }

  private boolean reject(DdpError error, Ulpdu segment) {
    failed.capture(segment);
    debugRejected(error.errorType(), error.code(), segment);
    terminator.terminate(error, failed);
    return false;
  }

  private void debugRejected(int errorType, int code, Ulpdu segment) {
    if (log.isDebugEnabled()) {
      log.debug("{} segment of {} octets refused: {}/0x{}", endpoint.channel(), segment.length(),
          errorType, Integer.toHexString(code));
    }
  }

  // ---- delivery ----

  @Override
  public void onTaggedMessage(int rsvdUlp, int stag, long to, long length) {
    if (!teardown.isOpen()) {
      return;
    }
    if (OpcodeTable.has(RdmapControl.opcode(rsvdUlp), OpcodeTable.RESPONSE)) {
      endpoint.counters().received(RdmapOpcode.RDMA_READ_RESPONSE, length);
      if (log.isDebugEnabled()) {
        log.debug("{} Read Response delivered: {} octets at STag 0x{}", endpoint.channel(),
            length, Integer.toHexString(stag));
      }
      requester.readResponseDelivered();
      return;
    }
    endpoint.counters().received(RdmapOpcode.RDMA_WRITE, length);
    if (log.isDebugEnabled()) {
      // §5.1: a valid RDMA Write is placed, never delivered to the ULP.
      log.debug("{} RDMA Write placed: {} octets at STag 0x{} TO 0x{}", endpoint.channel(),
          length, Integer.toHexString(stag), Long.toHexString(to));
    }
  }

  @Override
  public void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId) {
    if (!teardown.isOpen()) {
      return;
    }
    RdmapOpcode opcode = RdmapOpcode.fromCode(RdmapControl.opcode(RdmapControl.controlOf(rsvdUlp)));
    if (OpcodeTable.has(opcode.code(), OpcodeTable.IMMEDIATE_DATA)) {
      endpoint.counters().received(opcode, ImmediateDataHeader.LENGTH);
      if (log.isDebugEnabled()) {
        log.debug("{} {} delivered: msn={} buffer={}", endpoint.channel(), opcode,
            Integer.toUnsignedString(msn), bufferId);
      }
      receiveBuffers.immediateDelivered(bufferId, opcode, immediateData);
      return;
    }
    endpoint.counters().received(opcode, Integer.toUnsignedLong(length));
    int invalidated = 0;
    if (OpcodeTable.has(opcode.code(), OpcodeTable.INVALIDATE_STAG)) {
      int stag = RdmapControl.invalidateStagOf(rsvdUlp);
      InvalidateResult result = stags.remoteInvalidate(stag, pd, scope);
      if (result != InvalidateResult.OK) {
        failed.copyFrom(lastMessage);
        terminator.terminate(result == InvalidateResult.INVALID_STAG
            ? RdmapError.CANNOT_INVALIDATE_UNKNOWN_STAG : RdmapError.CANNOT_INVALIDATE, failed);
        return;
      }
      invalidated = stag;
    }
    if (log.isDebugEnabled()) {
      log.debug("{} {} delivered: msn={} length={} buffer={}", endpoint.channel(), opcode,
          Integer.toUnsignedString(msn), length, bufferId);
    }
    receiveBuffers.sendDelivered(bufferId, opcode, length, invalidated);
  }

  @Override
  public void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message) {
    if (!teardown.isOpen()) {
      return;
    }
    RdmapOpcode opcode = RdmapOpcode.fromCode(RdmapControl.opcode(RdmapControl.controlOf(rsvdUlp)));
    endpoint.counters().received(opcode, message.readableBytes());
    if (opcode == RdmapOpcode.TERMINATE) {
      terminateDelivered(message);
      return;
    }
    failed.copyFrom(lastMessage);
    switch (opcode) {
      case ATOMIC_RESPONSE:
        requester.atomicResponseDelivered(message, failed);
        break;
      case ATOMIC_REQUEST:
        inbound.atomicRequestDelivered(message, failed);
        break;
      default:
        inbound.readRequestDelivered(message, failed);
        break;
    }
  }

  /** Decodes a received Terminate and ends the stream (RFC 5040 §5.4, §6.2.1). */
  private void terminateDelivered(ByteBuf message) {
    if (terminate == null) {
      terminate = Unpooled.wrappedBuffer(new byte[UntaggedHeader.LENGTH
          + RdmapEndpoint.TERMINATE_QUEUE_MESSAGE_LENGTH]);
    }
    terminate.clear();
    ByteBuf header = lastMessage.ddpHeader();
    terminate.writeBytes(header, header.readerIndex(), header.readableBytes());
    terminate.writeBytes(message, message.readerIndex(), message.readableBytes());
    int length = terminate.readableBytes();
    String problem = terminateView.wrap(terminate, 0, length).check();
    if (problem != null) {
      // Still the peer's last word: report what it says, as far as it says anything.
      log.debug("{} malformed Terminate: {}", endpoint.channel(), problem);
    }
    int layer = 0;
    int errorType = 0;
    int errorCode = 0;
    if (length > TerminateMessage.ERROR_CODE_OFFSET) {
      layer = terminateView.layer();
      errorType = terminateView.errorType();
      errorCode = terminateView.errorCode();
    }
    if (log.isDebugEnabled()) {
      log.debug("{} Terminate received: {}/{}/0x{}", endpoint.channel(), layer, errorType,
          Integer.toHexString(errorCode));
    }
    endpoint.counters().terminateReceived(layer, errorType, errorCode);
    teardown.terminateReceived(layer, errorType, errorCode);
  }

  // ---- errors and end of input ----

  @Override
  public void onDdpError(DdpError error, Ulpdu segment, int headerLength) {
    terminator.ddpError(error);
  }

  @Override
  public void onLocalMemoryGone(int qn, long bufferId, Ulpdu segment, int headerLength) {
    if (qn < 0) {
      requester.localSinkGone();
    } else if (qn == RdmapOpcode.SEND.queueNumber()) {
      receiveBuffers.memoryGone(bufferId);
    } else {
      onDdpError(DdpError.LOCAL_CATASTROPHIC, segment, headerLength); // our own buffers: never
    }
  }

  @Override
  public void onMpaError(MpaException error) {
    teardown.mpaError(error);
  }

  @Override
  public void onInputClosed() {
    teardown.inputClosed();
  }
}
