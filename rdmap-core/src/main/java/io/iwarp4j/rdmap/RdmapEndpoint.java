package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.ddp.Gather;
import io.iwarp4j.ddp.UntaggedReceiveQueue;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.AtomicRequestHeader;
import io.iwarp4j.wire.AtomicResponseHeader;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.TerminateMessage;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.Objects;

/**
 * One RDMAP Stream (RFC 5040) on top of a {@link DdpStream}: the requester side of RDMA Write,
 * RDMA Read and the four Sends, the responder side of Read Requests (bounded by IRD), receive
 * buffers for Sends, Terminate generation and decoding, and teardown.
 *
 * <h2>Set-up</h2>
 * Build the endpoint on a fresh, not yet started stream: it installs its receive side as the
 * stream's listener ({@link #ddpListener()}), enables QN 0 for the receive buffers posted with
 * {@link #postReceive}, QN 1 (Read Requests) and QN 2 (Terminate) as control queues, and adds a
 * small handler at the tail of the channel's pipeline that reports resets and the close. Post
 * the first receive buffers, then {@link #start()}.
 *
 * <h2>Completions</h2>
 * Writes and Sends complete once the transport took their last octet (RFC 5040 §5.5 rule 14),
 * Reads once their Read Response was delivered (rule 19). All three are reported in the order
 * they were issued (rule 15): a Send issued after a Read is reported after that Read. How the
 * endpoint learns that the transport took a message without an object per message: see
 * {@link TransportBarrier}. A completion is reported from a task on the event loop, never from
 * inside Netty's write path.
 *
 * <h2>Errors (RFC 5040 §7)</h2>
 * Every error this end detects ends the stream with exactly one Terminate: DDP's errors through
 * {@link DdpStream#terminateForError()} (Layer 1, with the offending DDP header); RDMAP's own
 * with Layer 0 and the codes of {@link RdmapError}, echoing the DDP header and segment length
 * (M=1, D=1) and for a Read Request its header (R=1); MPA's as Layer 2 without headers. Checks
 * on a received segment run before anything of it is placed, so memory an erroneous segment
 * targets stays unchanged:
 * <ul>
 *   <li>every segment: RV = 01b, else 0/2/0x05; an opcode that belongs on its path and queue
 *       (tagged: Write, Read Response; QN 0: the four Sends; QN 1: Read Request; QN 2:
 *       Terminate), else 0/2/0x06. RFC 7306 opcodes (0x8-0xB) are not supported and reserved
 *       ones (0xC-0xF) not defined: both 0/2/0x06;
 *   <li>a Read Response segment must continue the oldest outstanding Read: none outstanding
 *       0/2/0x06; another STag 1/1/0x00; another TO, or octets past or short of its size,
 *       1/1/0x01 (DDP's Tagged Buffer codes: the Read's sink range is the buffer it may use);
 *   <li>Send with Invalidate: its STag must be valid (else 0/2/0x09), of this stream's
 *       Protection Domain and open to remote invalidation (else 0/1/0x09), checked on the first
 *       segment and enforced on delivery;
 *   <li>Read Request: at most IRD outstanding, else 1/2/0x02 (see {@link ReadResponder}); 28
 *       octets, else 0/2/0xFF; a valid source unless its size is 0 (0/1/0x00-0x04, R=1).
 * </ul>
 * A received Terminate ends the stream too ({@link RdmapEndpointListener#onTerminateReceived}).
 *
 * <h2>Teardown</h2>
 * {@link #close()} lets what was handed to the transport go out, then closes the connection
 * (a FIN); a clean FIN from the peer (siw closes that way, never with a Terminate) closes ours
 * the same way. {@link #abort} sends an RDMAP-layer Terminate. The owner hears exactly one end
 * event: {@link RdmapEndpointListener#onTerminateSent}, {@code onTerminateReceived} or
 * {@code onDisconnected}; after it no completion follows, and every issuing method throws an
 * {@link IllegalStateException} that names the state.
 *
 * <p>Confined to the connection's event loop: every method must be called there, and none
 * locks. It allocates nothing per operation in steady state (headers and slices come from the
 * channel's pooled allocator, bookkeeping lives in preallocated rings); with CRC on, each Read
 * Response is a snapshot copied into pooled direct memory (see {@link ReadResponder}).
 */
public final class RdmapEndpoint {
  /**
   * The largest message QN 1 takes: an RFC 7306 Atomic Request (52 octets after the DDP header),
   * so that one arrives whole and is answered "Unexpected OpCode" rather than "too long".
   */
  static final int READ_QUEUE_MESSAGE_LENGTH = AtomicRequestHeader.LENGTH;
  /** The largest Terminate header: control 4 + segment length 2 + DDP header 18 + RDMA 28. */
  static final int TERMINATE_QUEUE_MESSAGE_LENGTH = TerminateMessage.MAX_MESSAGE_LENGTH;

  private final DdpStream stream;
  private final Channel channel;
  private final RdmapEndpointListener listener;
  private final ProtectionDomain pd;
  private final RdmapReceiver receiver;
  private final LocalOperations operations = new LocalOperations(8);
  private final OutstandingReads reads;
  private final ReadResponder responder;
  /** Whether the RFC 7306 opcodes are accepted and may be issued on this stream. */
  private final boolean rfc7306;
  // The stream's parts, by concern (as siw's qp_tx, rx, responder, Terminate and QP state): see
  // each class. Parts built earlier reach the ones built after them (teardown, terminator,
  // inbound) through the package-private fields.
  private final TransmitOrder tx;
  final RdmapTeardown teardown;
  final TerminateSender terminator;
  private final RdmapRequester requester;
  final InboundRequests inbound;
  private final ReceiveBuffers receiveBuffers;

  /** Where this stream counts its traffic and errors. */
  private final RdmapCounters counters;

  /**
   * @param stream the DDP stream, not yet started, with no queue enabled (its listener is set to
   *     this endpoint's)
   * @param listener the owner's callbacks
   * @param ird inbound Read Request queue depth (negotiated): more outstanding requests are a
   *     protocol error
   * @param ord outbound Read depth (negotiated): see {@link #canIssueRead()}
   * @param maxReceiveBuffers how many receive buffers may be posted at once (the QP's RQ depth)
   * @param maxReceivePieces the most scatter pieces one receive buffer may have (the QP's SGEs)
   * @throws IllegalArgumentException for a negative IRD or ORD or non-positive receive sizes
   * @throws IllegalStateException off the event loop, or when the stream is started or has a
   *     queue enabled already
   */
  public RdmapEndpoint(DdpStream stream, RdmapEndpointListener listener, int ird, int ord,
      int maxReceiveBuffers, int maxReceivePieces) {
    this(stream, listener, ird, ord, maxReceiveBuffers, maxReceivePieces, true);
  }

  /**
   * Like {@link #RdmapEndpoint(DdpStream, RdmapEndpointListener, int, int, int, int)}, choosing
   * whether the stream speaks RFC 7306 (Atomics and Immediate Data). With it, QN 3 (Atomic
   * Responses) is enabled, inbound Atomic Requests are performed (sharing the IRD with Read
   * Requests) and Immediate Data is delivered; without it, those opcodes are answered
   * "Unexpected OpCode" (0/2/0x06), as an RFC 5040-only peer such as Linux siw does, and issuing
   * one throws.
   *
   * @param stream the DDP stream, not yet started, with no queue enabled
   * @param listener the owner's callbacks
   * @param ird inbound Read and Atomic Request queue depth (negotiated)
   * @param ord outbound Read and Atomic depth (negotiated)
   * @param maxReceiveBuffers how many receive buffers may be posted at once
   * @param maxReceivePieces the most scatter pieces one receive buffer may have
   * @param rfc7306 whether the RFC 7306 extensions are enabled
   * @throws IllegalArgumentException for a negative IRD or ORD or non-positive receive sizes
   * @throws IllegalStateException off the event loop, or when the stream is started or has a
   *     queue enabled already
   */
  public RdmapEndpoint(DdpStream stream, RdmapEndpointListener listener, int ird, int ord,
      int maxReceiveBuffers, int maxReceivePieces, boolean rfc7306) {
    this(stream, listener, ird, ord, maxReceiveBuffers, maxReceivePieces, rfc7306,
        new RdmapCounters());
  }

  /**
   * Like {@link #RdmapEndpoint(DdpStream, RdmapEndpointListener, int, int, int, int, boolean)},
   * counting the stream's traffic and errors into {@code counters} (a queue pair's, which outlive
   * the stream).
   *
   * @param stream the DDP stream, not yet started, with no queue enabled
   * @param listener the owner's callbacks
   * @param ird inbound Read and Atomic Request queue depth (negotiated)
   * @param ord outbound Read and Atomic depth (negotiated)
   * @param maxReceiveBuffers how many receive buffers may be posted at once
   * @param maxReceivePieces the most scatter pieces one receive buffer may have
   * @param rfc7306 whether the RFC 7306 extensions are enabled
   * @param counters where to count, written on this stream's event loop only
   * @throws IllegalArgumentException for a negative IRD or ORD or non-positive receive sizes
   * @throws IllegalStateException off the event loop, or when the stream is started or has a
   *     queue enabled already
   */
  public RdmapEndpoint(DdpStream stream, RdmapEndpointListener listener, int ird, int ord,
      int maxReceiveBuffers, int maxReceivePieces, boolean rfc7306, RdmapCounters counters) {
    this(stream, listener, ird, ord, maxReceiveBuffers, maxReceivePieces, rfc7306, counters,
        false, null);
  }

  /**
   * Like {@link #RdmapEndpoint(DdpStream, RdmapEndpointListener, int, int, int, int, boolean,
   * RdmapCounters)}, telling the endpoint whether the stream's MPA connection has CRC on. With
   * CRC on, each Read Response is sent from a snapshot of its source, copied once at respond time
   * and charged to {@code readResponseCopies} until the transport took it, so the CRC always
   * matches the octets sent even while a Write changes the source; a response the budget cannot
   * take is sent zero-copy (see {@link ReadResponder}). With CRC off (and with the constructors
   * above), every Read Response is sent zero-copy.
   *
   * @param stream the DDP stream, not yet started, with no queue enabled
   * @param listener the owner's callbacks
   * @param ird inbound Read and Atomic Request queue depth (negotiated)
   * @param ord outbound Read and Atomic depth (negotiated)
   * @param maxReceiveBuffers how many receive buffers may be posted at once
   * @param maxReceivePieces the most scatter pieces one receive buffer may have
   * @param rfc7306 whether the RFC 7306 extensions are enabled
   * @param counters where to count, written on this stream's event loop only
   * @param crc whether the stream's MPA connection generates and checks CRCs (negotiated)
   * @param readResponseCopies the budget Read Response snapshots are charged to, shared by the
   *     device's streams; required when {@code crc}, ignored otherwise
   * @throws IllegalArgumentException for a negative IRD or ORD or non-positive receive sizes
   * @throws NullPointerException when {@code crc} and {@code readResponseCopies} is null
   * @throws IllegalStateException off the event loop, or when the stream is started or has a
   *     queue enabled already
   */
  public RdmapEndpoint(DdpStream stream, RdmapEndpointListener listener, int ird, int ord,
      int maxReceiveBuffers, int maxReceivePieces, boolean rfc7306, RdmapCounters counters,
      boolean crc, ReadResponseCopyBudget readResponseCopies) {
    if (crc) {
      Objects.requireNonNull(readResponseCopies, "readResponseCopies (CRC is on)");
    }
    this.counters = Objects.requireNonNull(counters, "counters");
    this.stream = Objects.requireNonNull(stream, "stream");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.channel = stream.channel();
    checkInEventLoop("creating an RdmapEndpoint");
    if (ird < 0 || ord < 0) {
      throw new IllegalArgumentException("IRD " + ird + " and ORD " + ord
          + " must not be negative");
    }
    if (maxReceiveBuffers < 1 || maxReceivePieces < 1) {
      throw new IllegalArgumentException("maxReceiveBuffers " + maxReceiveBuffers
          + " and maxReceivePieces " + maxReceivePieces + " must be positive");
    }
    this.pd = stream.protectionDomain();
    this.reads = new OutstandingReads(ord);
    this.responder = new ReadResponder(stream, ird, crc ? readResponseCopies : null, counters);
    UntaggedReceiveQueue receiveQueue = stream.enableReceiveQueue(RdmapOpcode.SEND.queueNumber(),
        maxReceiveBuffers, maxReceivePieces);
    stream.enableControlQueue(RdmapOpcode.RDMA_READ_REQUEST.queueNumber(),
        READ_QUEUE_MESSAGE_LENGTH);
    stream.enableControlQueue(OpcodeTable.TERMINATE_QN,
        TERMINATE_QUEUE_MESSAGE_LENGTH);
    this.rfc7306 = rfc7306;
    if (rfc7306) {
      // RFC 7306 §5.2.2 rule 5: the requester keeps QN 3 buffers for its Atomic Responses.
      stream.enableControlQueue(RdmapOpcode.ATOMIC_RESPONSE.queueNumber(),
          AtomicResponseHeader.LENGTH);
    }
    this.tx = new TransmitOrder(this, stream, listener, operations, responder);
    this.teardown = new RdmapTeardown(this, stream, listener, operations, reads, tx);
    this.terminator = new TerminateSender(teardown, stream, counters, listener);
    this.requester = new RdmapRequester(tx, teardown, stream, counters, listener, operations,
        reads, terminator, rfc7306);
    this.inbound = new InboundRequests(tx, teardown, stream, counters, responder, terminator, ird);
    this.receiveBuffers = new ReceiveBuffers(receiveQueue, maxReceiveBuffers, maxReceivePieces,
        listener, teardown, terminator);
    this.receiver = new RdmapReceiver(this, teardown, reads, requester, inbound, receiveBuffers,
        terminator);
    stream.setListener(receiver);
    channel.pipeline().addLast(new TransportEvents(teardown));
    if (!channel.isActive()) {
      teardown.closedBeforeStart(); // before this endpoint's handler was there to hear it
    }
  }

  // ---- set-up and state ----

  /**
   * The counters this stream counts into.
   *
   * @return the counters given to the constructor, or the endpoint's own
   */
  public RdmapCounters counters() {
    return counters;
  }

  /**
   * The DDP stream listener installed on the stream (this endpoint's receive side).
   *
   * @return the DDP stream listener installed on the stream (this endpoint's receive side)
   */
  public DdpStreamListener ddpListener() {
    return receiver;
  }

  /**
   * Starts receiving ({@link DdpStream#start()}): call it once the first receive buffers are
   * posted, so that a Send the peer sent early finds one.
   *
   * @throws IllegalStateException when already started, or off the event loop
   */
  public void start() {
    stream.start();
  }

  /**
   * Whether another RDMA Read may be issued now: fewer than ORD are outstanding.
   *
   * @return whether another RDMA Read may be issued now: fewer than ORD are outstanding
   */
  public boolean canIssueRead() {
    return teardown.isOpen() && reads.canIssue();
  }

  /**
   * Whether this stream speaks RFC 7306 (Atomics and Immediate Data).
   *
   * @return whether the RFC 7306 opcodes are enabled
   */
  public boolean rfc7306Enabled() {
    return rfc7306;
  }

  /**
   * Number of RDMA Reads issued and not yet completed.
   *
   * @return number of RDMA Reads issued and not yet completed
   */
  public int outstandingReads() {
    return reads.size();
  }

  /**
   * Number of inbound Read Requests whose Read Response the transport has not taken yet.
   *
   * @return number of inbound Read Requests whose Read Response the transport has not taken yet
   */
  public int outstandingInboundReads() {
    return responder.outstanding();
  }

  /**
   * Whether the stream may send (RFC 5044 §7.1.2 rule 4 for a Responder) and is not ended.
   *
   * @return whether the stream may send (RFC 5044 §7.1.2 rule 4 for a Responder) and is not ended
   */
  public boolean canSend() {
    return teardown.isOpen() && stream.sendEnabled();
  }

  /**
   * Whether the stream has ended (Terminate sent or received, or disconnected).
   *
   * @return whether the stream has ended (Terminate sent or received, or disconnected)
   */
  public boolean isEnded() {
    return teardown.isEnded();
  }

  // ---- issuing ----

  /**
   * Issues an RDMA Write of {@code payload} (one message, any number of pieces, may be empty)
   * to the peer's {@code remoteStag}/{@code remoteTo}. The pieces are slices of registered
   * memory; they are sent without a copy. Completion: {@link RdmapEndpointListener#onSendComplete}.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   * @param remoteStag the peer's STag
   * @param remoteTo the peer's tagged offset
   * @param payload the payload pieces
   * @throws IllegalStateException when the stream is closing or ended, or may not send yet
   * @throws IllegalArgumentException for a message of 2^32 octets or more, or a TO range that
   *     wraps 2^64 (nothing is sent)
   */
  public void write(long token, int remoteStag, long remoteTo, Gather payload) {
    checkIssue("write");
    requester.write(token, remoteStag, remoteTo, payload);
  }

  /**
   * Issues an RDMA Read Request: {@code length} octets from the peer's {@code srcStag}/
   * {@code srcTo} into our {@code sinkStag}/{@code sinkTo} (a local region with LOCAL_WRITE).
   * Completion: {@link RdmapEndpointListener#onReadComplete}.
   *
   * <p>The sink range must be a LOCAL_WRITE range of this stream's Protection Domain: the caller
   * checks it (the verbs layer does, for every Read it issues), and this method does not check
   * it again. Each Read Response segment is checked and pinned when it is placed; a sink
   * deregistered since the Read was issued is reported as
   * {@link RdmapEndpointListener#onLocalProtectionError} with an RDMAP Local Catastrophic
   * Terminate. The source is the peer's to check.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   * @param sinkStag the Data Sink STag
   * @param sinkTo the Data Sink tagged offset
   * @param srcStag the Data Source STag
   * @param srcTo the Data Source tagged offset
   * @param length RDMARDSZ, read as unsigned (0 to 2^32 - 1)
   * @throws IllegalStateException when {@link #canIssueRead()} is false (the caller waits), or
   *     the stream is closing or ended
   */
  public void read(long token, int sinkStag, long sinkTo, int length, int srcStag, long srcTo) {
    checkIssue("read");
    requester.read(token, sinkStag, sinkTo, length, srcStag, srcTo);
  }

  /**
   * Issues a Send, Send with SE, Send with Invalidate or Send with SE and Invalidate.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   * @param payload the payload pieces
   * @param opcode one of the four Send opcodes
   * @param invalidateStag the peer STag to invalidate (Invalidate variants), else 0
   * @throws IllegalArgumentException for another opcode, an Invalidate STag on a variant without
   *     one, or a message of 2^32 octets or more (nothing is sent)
   * @throws IllegalStateException when the stream is closing or ended, or may not send yet
   */
  public void send(long token, RdmapOpcode opcode, int invalidateStag, Gather payload) {
    checkIssue("send");
    requester.send(token, opcode, invalidateStag, payload);
  }

  /**
   * Issues an RFC 7306 Immediate Data or Immediate Data with SE message: 8 octets for the peer's
   * next posted receive buffer, QN 0 (§6.3). Completes like a Send:
   * {@link RdmapEndpointListener#onSendComplete}.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   * @param solicited true for Immediate Data with Solicited Event (opcode 0x9)
   * @param data the 8 octets, sent most significant first
   * @throws IllegalStateException when RFC 7306 is not enabled on this stream, the stream is
   *     closing or ended, or may not send yet
   */
  public void immediate(long token, boolean solicited, long data) {
    checkIssue("immediate data");
    requester.immediate(token, solicited, data);
  }

  /**
   * Issues an RDMA Write followed by an Immediate Data message, as one operation (InfiniBand's
   * RDMA Write with Immediate, RFC 7306 §6): the peer's receive completes after the Write was
   * placed (§7). Completes once, when the transport took both: {@link
   * RdmapEndpointListener#onSendComplete}.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   * @param remoteStag the peer's STag
   * @param remoteTo the peer's tagged offset
   * @param payload the Write's payload pieces (slices of registered memory, sent without a copy)
   * @param solicited true to send Immediate Data with Solicited Event
   * @param data the immediate data
   * @throws IllegalStateException when RFC 7306 is not enabled, or the stream cannot send
   * @throws IllegalArgumentException as {@link #write} (nothing is sent)
   */
  public void writeWithImmediate(long token, int remoteStag, long remoteTo, Gather payload,
      boolean solicited, long data) {
    checkIssue("write with immediate");
    requester.writeWithImmediate(token, remoteStag, remoteTo, payload, solicited, data);
  }

  /**
   * Issues an RFC 7306 Atomic Request (QN 1): a FetchAdd or CmpSwap on the 8 octets at the
   * peer's {@code remoteStag}/{@code remoteTo}. It shares ORD with RDMA Reads (§5.2): issue only
   * while {@link #canIssueRead()}. The original value the Atomic Response returns is stored, in
   * native byte order, at our {@code resultStag}/{@code resultTo} (a local region with
   * LOCAL_WRITE); then {@link RdmapEndpointListener#onReadComplete} reports the token with length
   * 8, in issue order with everything else.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   * @param op FetchAdd or CmpSwap
   * @param remoteStag the target's STag
   * @param remoteTo the target's tagged offset (the peer checks that the memory address it
   *     lands on is 64-bit aligned)
   * @param addOrSwapData Add Data (FetchAdd) or Swap Data (CmpSwap)
   * @param addOrSwapMask Add Mask (FetchAdd; 0 = plain add) or Swap Mask (CmpSwap)
   * @param compareData Compare Data (CmpSwap; ignored for FetchAdd, sent as 0)
   * @param compareMask Compare Mask (CmpSwap; ignored for FetchAdd, sent as all ones)
   * @param resultStag where the original value goes
   * @param resultTo the tagged offset of its 8 octets
   * <p>The result range must be 8 octets of a LOCAL_WRITE region of this stream's Protection
   * Domain: the caller checks that before it issues (the verbs layer does), and this does not
   * check it again. The range is checked, and the region pinned, when the Atomic Response
   * writes it; a result buffer that is no longer valid then (deregistered since, or never valid)
   * is a local protection error ({@link RdmapEndpointListener#onLocalProtectionError}) and an
   * RDMAP Local Catastrophic Terminate, and nothing is written.
   *
   * @throws IllegalStateException when RFC 7306 is not enabled, ORD Reads and Atomics are
   *     outstanding, or the stream cannot send
   */
  public void atomic(long token, AtomicOpcode op, int remoteStag, long remoteTo,
      long addOrSwapData, long addOrSwapMask, long compareData, long compareMask, int resultStag,
      long resultTo) {
    checkIssue("atomic");
    requester.atomic(token, op, remoteStag, remoteTo, addOrSwapData, addOrSwapMask, compareData,
        compareMask, resultStag, resultTo);
  }

  /**
   * Posts a receive buffer for Send-type messages: the readable bytes of {@code pieces[0..
   * pieceCount)}, slices of registered memory (with LOCAL_WRITE) filled in order. The buffer is
   * consumed by the next Send that arrives after all earlier posted buffers were consumed. The
   * pieces must stay alive until the buffer is reported ({@link RdmapEndpointListener#onReceive})
   * or the stream ended.
   *
   * @param bufferId the caller's identifier for the buffer
   * @param pieces the buffer pieces
   * @param pieceCount how many of {@code pieces} to use
   * @throws IllegalStateException when {@code maxReceiveBuffers} are already posted, or the
   *     stream is closing or ended
   * @throws IllegalArgumentException for more than {@code maxReceivePieces} pieces
   */
  public void postReceive(long bufferId, ByteBuf[] pieces, int pieceCount) {
    checkIssue("postReceive");
    receiveBuffers.post(bufferId, pieces, pieceCount);
  }

  /** Flushes what was issued since the last flush (call once per batch, not per operation). */
  public void flush() {
    checkInEventLoop("flush");
    if (!teardown.isEnded()) {
      tx.flush();
    }
  }

  // ---- teardown ----

  /**
   * Graceful teardown: what was handed to the transport is sent, then FIN. Later input is
   * dropped; {@link RdmapEndpointListener#onDisconnected} follows once the connection is closed.
   * Does nothing when the stream is already closing or ended.
   */
  public void close() {
    checkInEventLoop("close");
    teardown.close();
  }

  /**
   * Abortive teardown for a local error: sends a Terminate with this RDMAP-layer type/code
   * (Layer 0, no headers), then closes. Reported as {@link RdmapEndpointListener#onTerminateSent}.
   * Allowed while a graceful close is under way; the Terminate then queues behind that close and
   * goes out only if the connection is still open when its turn comes.
   *
   * @param errorType the Terminate error type
   * @param errorCode the Terminate error code
   * @throws IllegalArgumentException when the type does not fit 4 bits or the code 8 bits
   * @throws IllegalStateException when the stream already ended
   */
  public void abort(int errorType, int errorCode) {
    checkInEventLoop("abort");
    teardown.abort(errorType, errorCode);
  }

  // ---- receive side (called by RdmapReceiver) ----

  /** The Protection Domain of this stream. */
  ProtectionDomain protectionDomain() {
    return pd;
  }

  /**
   * This stream's identity for STags limited to one stream (a type 2 memory window bound by the
   * queue pair this endpoint serves, RFC 5041 §8.2): its DDP stream, one per connection.
   *
   * @return the identity to bind stream-scoped STags to
   */
  public Object streamScope() {
    return stream;
  }

  /** The channel, for log lines. */
  Channel channel() {
    return channel;
  }

  // ---- internals ----

  private void checkIssue(String what) {
    checkInEventLoop(what);
    teardown.checkOpen(what);
  }

  private void checkInEventLoop(String what) {
    if (!channel.eventLoop().inEventLoop()) {
      throw new IllegalStateException(what + " must run on the connection's event loop ("
          + channel + "), not on " + Thread.currentThread().getName());
    }
  }

  @Override
  public String toString() {
    return "RdmapEndpoint{" + channel + ", "
        + teardown.describe()
        + ", operations=" + operations.size() + ", reads=" + reads.size() + "/" + reads.ord()
        + ", inboundReads=" + responder.outstanding() + "}";
  }
}
