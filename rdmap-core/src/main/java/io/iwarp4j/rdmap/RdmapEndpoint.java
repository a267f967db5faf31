package io.iwarp4j.rdmap;

import io.iwarp4j.ddp.DdpStream;
import io.iwarp4j.ddp.DdpStreamListener;
import io.iwarp4j.ddp.GatherList;
import io.iwarp4j.ddp.UntaggedReceiveQueue;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.MpaError;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.wire.AtomicOpcode;
import io.iwarp4j.wire.AtomicRequestHeader;
import io.iwarp4j.wire.AtomicResponseHeader;
import io.iwarp4j.wire.ImmediateDataHeader;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.RdmapOpcode;
import io.iwarp4j.wire.ReadRequestHeader;
import io.iwarp4j.wire.TerminateMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.ChannelOutputShutdownException;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private static final Logger log = LoggerFactory.getLogger(RdmapEndpoint.class);

  private static final int OPEN = 0;
  private static final int CLOSING = 1;
  private static final int ENDED = 2;

  private final DdpStream stream;
  private final Channel channel;
  private final RdmapEndpointListener listener;
  private final ProtectionDomain pd;
  private final StagTable stags;
  private final int maxReceiveBuffers;
  private final int maxReceivePieces;
  private final UntaggedReceiveQueue receiveQueue;
  private final RdmapReceiver receiver;
  private final LocalOperations operations = new LocalOperations(64);
  private final OutstandingReads reads;
  private final ReadResponder responder;
  private final TransportBarriers barriers;
  /** Whether the RFC 7306 opcodes are accepted and may be issued on this stream. */
  private final boolean rfc7306;
  // The stream's sides, by concern (as siw's qp_tx, rx responder and Terminate): see each class.
  private final TerminateSender terminator;
  private final RdmapRequester requester;
  private final InboundRequests inbound;
  private final GatherList receivePieces;
  private final Runnable deferredWork = this::runDeferredWork;

  /** The next transmit message's sequence number (Writes, Sends, Read Responses). */
  long txSeq;
  /** Transmit messages below this were taken by the transport while the channel was active. */
  private long sent;
  /** Transmit messages below this were released by the transport, sent or dropped. */
  long taken;

  /** Where this stream counts its traffic and errors. */
  private final RdmapCounters counters;

  private int state = OPEN;
  /** Why the stream ended, for exception messages; null while not ended. */
  private String endReason;
  private boolean closeStarted;
  private boolean inputClosedCleanly;
  private boolean connectionLost;

  /**
   * After a failed write has shut the output down, how long the input may still be read before
   * the channel is closed anyway (the read that meets the peer's reset normally closes it at
   * once).
   */
  static final long WRITE_FAILURE_CLOSE_MILLIS = 1000;
  private boolean deferredScheduled;
  private boolean responsesUnflushed;
  private boolean inactiveAtStart;

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
    this.stags = pd.table();
    this.maxReceiveBuffers = maxReceiveBuffers;
    this.maxReceivePieces = maxReceivePieces;
    this.receivePieces = new GatherList(maxReceivePieces);
    this.reads = new OutstandingReads(ord);
    this.responder = new ReadResponder(stream, ird, crc ? readResponseCopies : null, counters);
    this.barriers = new TransportBarriers(channel, this::onTaken);
    this.receiveQueue = stream.enableReceiveQueue(RdmapOpcode.SEND.queueNumber(),
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
    this.terminator = new TerminateSender(this, stream, counters, listener);
    this.requester = new RdmapRequester(this, stream, counters, listener, operations, reads,
        terminator, rfc7306);
    this.inbound = new InboundRequests(this, stream, counters, responder, terminator, ird);
    this.receiver = new RdmapReceiver(this, reads, requester, inbound, terminator);
    stream.setListener(receiver);
    channel.pipeline().addLast(new TransportEvents(new TransportListener()));
    if (!channel.isActive()) {
      // Closed before this endpoint's handler was there to hear it: report it from a task.
      inactiveAtStart = true;
      schedule();
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
    return state == OPEN && reads.canIssue();
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
    return state == OPEN && stream.sendEnabled();
  }

  /**
   * Whether the stream has ended (Terminate sent or received, or disconnected).
   *
   * @return whether the stream has ended (Terminate sent or received, or disconnected)
   */
  public boolean isEnded() {
    return state == ENDED;
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
  public void write(long token, int remoteStag, long remoteTo, GatherList payload) {
    checkIssue("write");
    requester.write(token, remoteStag, remoteTo, payload);
  }

  /**
   * Issues an RDMA Read Request: {@code length} octets from the peer's {@code srcStag}/
   * {@code srcTo} into our {@code sinkStag}/{@code sinkTo} (a local region with LOCAL_WRITE).
   * Completion: {@link RdmapEndpointListener#onReadComplete}.
   *
   * @param token the caller's identifier for the operation, handed back on completion
   * @param sinkStag the Data Sink STag
   * @param sinkTo the Data Sink tagged offset
   * @param srcStag the Data Source STag
   * @param srcTo the Data Source tagged offset
   * @param length RDMARDSZ, read as unsigned (0 to 2^32 - 1)
   * @throws IllegalStateException when {@link #canIssueRead()} is false (the caller waits), or
   *     the stream is closing or ended
   * @throws IllegalArgumentException when the sink range is not a valid LOCAL_WRITE range of
   *     this stream's Protection Domain (nothing is sent); the source is the peer's to check
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
  public void send(long token, RdmapOpcode opcode, int invalidateStag, GatherList payload) {
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
  public void writeWithImmediate(long token, int remoteStag, long remoteTo, GatherList payload,
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
   * @param remoteTo the target's tagged offset (the peer checks its 64-bit alignment)
   * @param addOrSwapData Add Data (FetchAdd) or Swap Data (CmpSwap)
   * @param addOrSwapMask Add Mask (FetchAdd; 0 = plain add) or Swap Mask (CmpSwap)
   * @param compareData Compare Data (CmpSwap; ignored for FetchAdd, sent as 0)
   * @param compareMask Compare Mask (CmpSwap; ignored for FetchAdd, sent as all ones)
   * @param resultStag where the original value goes
   * @param resultTo the tagged offset of its 8 octets
   * @throws IllegalStateException when RFC 7306 is not enabled, ORD Reads and Atomics are
   *     outstanding, or the stream cannot send
   * @throws IllegalArgumentException when the result range is not 8 octets of a LOCAL_WRITE
   *     region of this stream's Protection Domain (nothing is sent)
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
    checkInEventLoop("postReceive");
    checkNotEnded("postReceive");
    if (pieceCount < 0 || pieceCount > maxReceivePieces || pieceCount > pieces.length) {
      throw new IllegalArgumentException(pieceCount + " receive pieces: 0.." + maxReceivePieces
          + " (maxReceivePieces) and at most the array's " + pieces.length);
    }
    if (receiveQueue.postedCount() == maxReceiveBuffers) {
      throw new IllegalStateException("maxReceiveBuffers " + maxReceiveBuffers
          + " receive buffers are posted already");
    }
    try {
      for (int i = 0; i < pieceCount; i++) {
        receivePieces.add(pieces[i]);
      }
      receiveQueue.post(receivePieces, bufferId);
    } finally {
      receivePieces.clear();
    }
  }

  /** Flushes what was issued since the last flush (call once per batch, not per operation). */
  public void flush() {
    checkInEventLoop("flush");
    if (state != ENDED) {
      flushNow();
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
    if (state != OPEN) {
      return;
    }
    state = CLOSING;
    stream.markErroneous();
    log.debug("{} RDMAP close requested", channel);
    closeAfterPendingWrites();
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
    if (state == ENDED) {
      checkNotEnded("abort");
    }
    if ((errorType & ~0xF) != 0 || (errorCode & ~0xFF) != 0) {
      throw new IllegalArgumentException("EType " + errorType + " / code " + errorCode
          + " must fit 4 and 8 bits");
    }
    terminator.terminate(RdmapError.LAYER, errorType, errorCode, null);
  }

  // ---- receive side (called by RdmapReceiver) ----

  /** The Protection Domain of this stream. */
  ProtectionDomain protectionDomain() {
    return pd;
  }

  /** The channel, for log lines. */
  Channel channel() {
    return channel;
  }

  /** Whether received messages are still processed (not after close() or the end). */
  boolean receiving() {
    return state == OPEN;
  }

  /** A Send-type message was delivered into posted buffer {@code bufferId}. */
  void deliverSend(long bufferId, RdmapOpcode opcode, int length, int invalidatedStag) {
    listener.onReceive(bufferId, opcode, length, invalidatedStag);
  }

  /** Immediate Data was delivered: it consumed posted buffer {@code bufferId}, unfilled. */
  void deliverImmediate(long bufferId, RdmapOpcode opcode, long data) {
    listener.onImmediateData(bufferId, opcode, data);
  }

  /**
   * A posted receive buffer's memory was deregistered before a Send filled it: as a Read sink's
   * ({@link RdmapRequester#localSinkGone}).
   */
  void receiveBufferGone(long bufferId) {
    if (state == ENDED) {
      return;
    }
    listener.onLocalProtectionError(bufferId, true);
    terminator.terminate(RdmapError.LAYER, RdmapError.ETYPE_LOCAL_CATASTROPHIC, 0, null);
  }

  /**
   * A Read or Atomic Response was handed to DDP as the transmit message below {@code txSeq}. A
   * barrier right behind it frees its IRD slot as soon as the transport took it: the requester
   * may issue its next request the moment it has the response, and a barrier per batch would
   * keep the slot of an early response of a batch until the whole batch left (1 MiB responses
   * on a full socket), so that request would find the IRD exceeded.
   */
  void responseWritten() {
    writeBarrier();
    responsesUnflushed = true;
    schedule();
  }

  /** MPA reported an error on the receive stream. */
  void mpaError(MpaException error) {
    if (state == ENDED) {
      return;
    }
    if (state == CLOSING) {
      return; // input no longer matters: this end is closing anyway
    }
    MpaError e = error.error();
    if (e == MpaError.TCP_CONNECTION_LOST || !channel.isActive()) {
      // Nothing can be sent on a lost connection: it is a disconnect, reported on close.
      connectionLost = true;
      channel.close();
      return;
    }
    terminator.terminate(TerminateMessage.LAYER_LLP, TerminateMessage.ERROR_TYPE_MPA, e.code(),
        null);
  }

  /** The peer closed its sending half cleanly: close ours the same way. */
  void inputClosed() {
    inputClosedCleanly = true;
    if (state == OPEN) {
      log.debug("{} the peer closed the connection; closing ours", channel);
      closeAfterPendingWrites();
    }
  }

  /** The peer sent a Terminate: decoded fields, already validated as far as they go. */
  void terminateReceived(int layer, int errorType, int errorCode) {
    if (state == ENDED) {
      return;
    }
    end("Terminate received (" + layer + "/" + errorType + "/0x" + Integer.toHexString(errorCode)
        + ")");
    closeAfterPendingWrites();
    listener.onTerminateReceived(layer, errorType, errorCode);
  }

  // ---- internals ----

  /** Enters the ended state: nothing more is processed or completed. */
  void end(String reason) {
    state = ENDED;
    endReason = reason;
    stream.markErroneous();
    operations.clear();
    reads.clear();
    inbound.clear();
    if (log.isDebugEnabled()) {
      log.debug("{} RDMAP stream ended: {}", channel, reason);
    }
  }

  /** Flushes what was sent, then closes the connection once all of it has left (a FIN). */
  private void closeAfterPendingWrites() {
    if (closeStarted) {
      return;
    }
    closeStarted = true;
    flushNow();
    if (channel.isActive()) {
      // An empty write completes only after everything written before it has left.
      channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    } else {
      channel.close();
    }
  }

  private void flushNow() {
    writeBarrier();
    responsesUnflushed = false;
    stream.flush();
  }

  /** A barrier behind every transmit message so far; their octets go to the channel first. */
  private void writeBarrier() {
    stream.writePending();
    barriers.writeBehind(txSeq);
  }

  /** Reports every operation at the head of the issue order that is done. */
  void drainCompletions() {
    while (state != ENDED && operations.headDone(sent)) {
      long token = operations.headToken();
      boolean read = operations.headIsRead();
      long length = read ? operations.headReadLength() : 0;
      operations.removeHead();
      if (read) {
        listener.onReadComplete(token, length);
      } else {
        listener.onSendComplete(token);
      }
    }
  }

  /** A barrier came back: unpin what the transport took, complete what it sent (later). */
  private void onTaken(long upTo, boolean wasSent) {
    if (upTo > taken) {
      taken = upTo;
      responder.retire(taken);
      if (inbound.hasWaiting()) {
        schedule();
      }
    }
    if (wasSent && upTo > sent) {
      sent = upTo;
      if (operations.size() > 0) {
        schedule();
      }
    }
  }

  /** Runs {@link #runDeferredWork} once, after what the event loop is doing now. */
  private void schedule() {
    if (deferredScheduled) {
      return;
    }
    deferredScheduled = true;
    try {
      channel.eventLoop().execute(deferredWork);
    } catch (RejectedExecutionException e) {
      deferredScheduled = false;
      log.debug("{} event loop shut down; deferred RDMAP work dropped", channel);
    }
  }

  /** Flushes Read Responses once per read batch, reports completions, notices a missed close. */
  private void runDeferredWork() {
    deferredScheduled = false;
    inbound.answerWaitingRequests();
    if (responsesUnflushed && state != ENDED) {
      flushNow();
    }
    drainCompletions();
    if (inactiveAtStart) {
      inactiveAtStart = false;
      onChannelInactive();
    }
  }

  private void onChannelInactive() {
    taken = txSeq;
    responder.releaseAll();
    if (state == ENDED) {
      return;
    }
    boolean graceful = !connectionLost && (inputClosedCleanly || closeStarted);
    end(graceful ? "disconnected gracefully" : "disconnected (connection lost or reset)");
    listener.onDisconnected(graceful);
  }

  private void checkIssue(String what) {
    checkInEventLoop(what);
    checkNotEnded(what);
  }

  private void checkNotEnded(String what) {
    if (state == OPEN) {
      return;
    }
    throw new IllegalStateException(what + " on an RDMAP stream that is "
        + (state == CLOSING ? "closing (close() was called)" : "ended: " + endReason));
  }

  private void checkInEventLoop(String what) {
    if (!channel.eventLoop().inEventLoop()) {
      throw new IllegalStateException(what + " must run on the connection's event loop ("
          + channel + "), not on " + Thread.currentThread().getName());
    }
  }

  /** The pipeline handler's reports. */
  private final class TransportListener implements TransportEvents.Listener {
    @Override
    public void onTransportException(Throwable cause) {
      if (state == ENDED) {
        return;
      }
      if (cause instanceof IOException) {
        if (connectionLost) {
          return; // every write queued behind the failed one fails the same way
        }
        log.debug("{} transport failed: {}", channel, cause.toString());
        connectionLost = true;
        if (cause instanceof ChannelOutputShutdownException && channel.isActive()) {
          // A write failed (the peer reset) and, the channel not closing on write errors
          // (AUTO_CLOSE off), only the output is shut. Octets the peer sent just before its
          // reset, typically a Terminate (issue 22), are still to be read: the read that meets
          // the reset closes the channel. The bound is for a peer that never resets.
          channel.eventLoop().schedule((Runnable) channel::close, WRITE_FAILURE_CLOSE_MILLIS,
              TimeUnit.MILLISECONDS);
          return;
        }
        channel.close();
        return;
      }
      // Something threw on the receive path (an owner callback, a bug): the stream cannot be
      // trusted any more. RFC 5040 §4.8: Local Catastrophic Error, no headers.
      log.debug("{} unexpected exception on the RDMAP stream", channel, cause);
      terminator.terminate(RdmapError.LAYER, RdmapError.ETYPE_LOCAL_CATASTROPHIC, 0, null);
    }

    @Override
    public void onChannelInactive() {
      RdmapEndpoint.this.onChannelInactive();
    }
  }

  @Override
  public String toString() {
    return "RdmapEndpoint{" + channel + ", "
        + (state == OPEN ? "open" : state == CLOSING ? "closing" : "ended: " + endReason)
        + ", operations=" + operations.size() + ", reads=" + reads.size() + "/" + reads.ord()
        + ", inboundReads=" + responder.outstanding() + "}";
  }

  /** For {@link RdmapReceiver}: the table STags are looked up in. */
  StagTable stagTable() {
    return stags;
  }

  /** A Send found no posted receive buffer: let the owner hand over what it already accepted. */
  void receiveBuffersNeeded() {
    listener.onReceiveBuffersNeeded();
  }
}
