package io.iwarp4j.ddp;

import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.RtrType;
import io.iwarp4j.mpa.SmallBufferRing;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One DDP Stream (RFC 5041) over one MPA connection: the Data Sink's validation, placement and
 * delivery of received segments, and the Data Source's segmentation of outgoing messages.
 *
 * <h2>Life cycle</h2>
 * Create it on the connection's event loop, enable the untagged queues the upper layer uses
 * ({@link #enableReceiveQueue}, {@link #enableControlQueue}) and post receive buffers, then
 * {@link #start()} it: from then on MPA hands it every verified ULPDU. Segments that arrived
 * before {@code start()} wait in MPA (see {@link MpaConnection#setListener}), so none is seen
 * before the queues exist.
 *
 * <h2>Receive, tagged (T=1)</h2>
 * {@link TaggedReceiver} checks DV, the header, the upper layer's verdict
 * ({@link DdpStreamListener#acceptTagged}), the access the opcode's row of {@link OpcodeTable}
 * needs and then the STag, PD, TO and bounds ({@link StagTable#checkAndPlace}), all before
 * anything is placed, and delivers each message on its L=1 segment
 * ({@link DdpStreamListener#onTaggedMessage}). Up to {@link #MAX_TAGGED_IN_PROGRESS} tagged
 * messages (distinct STags) may be in progress at once.
 *
 * <h2>Receive, untagged (T=0)</h2>
 * {@link UntaggedDispatcher} validates U1-U6, asks the upper layer whether to place the segment
 * ({@link DdpStreamListener#acceptUntagged}: RDMAP refuses a bad version or opcode there, before
 * anything is placed) and places into the queue's posted buffer: one the upper layer posted
 * ({@link #enableReceiveQueue}; it hands over what it has once per socket read, in
 * {@link DdpStreamListener#beforeReadBatch}, before the read's segments are validated), or the stream's own buffer of a control queue
 * ({@link #enableControlQueue}); {@link UntaggedDelivery} hands each message up.
 *
 * <h2>Errors</h2>
 * The first error, tagged or untagged, stops placement at once: the stream is marked erroneous,
 * the upper layer hears it once ({@link DdpStreamListener#onDdpError}, with the offending segment
 * and its header length), and every later segment is dropped unread (RFC 5041 §7.1). The header
 * and segment length are kept so {@link #terminateForError()} can send the Terminate later. MPA
 * errors and a clean end of input are passed up ({@link DdpStreamListener#onMpaError},
 * {@link DdpStreamListener#onInputClosed}); an MPA error also stops placement. Sending stays
 * possible after an error, so the upper layer can send its Terminate (§7.1, §6.2.2).
 *
 * <h2>MSNs after an RFC 6581 RTR</h2>
 * A Send RTR used MSN 1 of QN 0, a Read RTR MSN 1 of QN 1, in the Initiator-to-Responder
 * direction (MPA sent and consumed it). So the Initiator's segmenter starts that queue at MSN 2
 * and the Responder expects MSN 2 on it; the Responder-to-Initiator direction still starts at 1
 * (Linux siw numbers it the same way). A Write RTR uses no MSN.
 *
 * <h2>Send</h2>
 * {@link #sendTagged} and {@link #sendUntagged} cut messages with a {@link DdpSegmenter} into
 * FPDUs of at most the connection's MULPDU; payloads are retained slices of the caller's
 * (registered) memory, never copied. Nothing is flushed per segment: call {@link #flush()} once
 * per batch. A client-server Responder may not send before the Initiator's first FPDU arrived
 * (RFC 5044 §7.1.2 rule 4): the send methods then fail fast with an
 * {@link IllegalStateException}; the upper layer waits for
 * {@link MpaConnection#sendEnabledFuture()} first.
 *
 * <p>Event-loop confined: every method must be called on the channel's event loop (the public
 * ones check), and the stream holds no lock. The receive path allocates nothing per segment.
 */
public final class DdpStream implements UlpduListener {
  /** Tagged messages (distinct STags) that may be in progress at once at the Data Sink. */
  public static final int MAX_TAGGED_IN_PROGRESS = 4;

  /**
   * Octets of a reusable header buffer: MPA's ULPDU_Length headroom, the untagged DDP header and
   * the largest RDMAP header (an RFC 7306 Atomic Request, 52 octets).
   */
  static final int HEADER_CAPACITY = UntaggedHeader.LENGTH + OpcodeTable.MAX_HEADER_LENGTH;
  /** Header buffers kept per connection: 128 FPDUs in flight take none from the pool. */
  static final int HEADER_SLOTS = 128;

  private static final Logger log = LoggerFactory.getLogger(DdpStream.class);

  private final Channel channel;
  private final FpduFramer framer;
  /** Null when built from a framer and deframer directly. */
  private final MpaConnection connection;
  /** Null when built from an {@link MpaConnection}. */
  private final FpduDeframer deframer;
  private final ProtectionDomain pd;
  /** Null until set, by the constructor or {@link #setListener}; set before {@link #start()}. */
  private DdpStreamListener listener;
  private final DdpSegmenter segmenter;
  private final StreamTeardown teardown;
  private final UntaggedDispatcher dispatcher;
  private final TaggedReceiver tagged;
  private final UntaggedDelivery untagged = new UntaggedDelivery(this);
  /** The receive queue whose MSN 1 an RTR consumed, or -1. */
  private final int rtrReceiveQueue;

  /** The first error and its DDP header, for the Terminate. */
  private final OffendingSegment offending = new OffendingSegment();

  private boolean started;
  private boolean erroneous;

  /**
   * A stream over an established MPA connection.
   *
   * @param connection the connection; its MULPDU, RTR and role are taken from its info
   * @param pd the stream's Protection Domain: tagged segments may only use its STags
   * @param listener the upper layer, or null to {@linkplain #setListener set it} before
   *     {@link #start()}
   * @throws IllegalStateException when not called on the connection's event loop
   */
  public DdpStream(MpaConnection connection, ProtectionDomain pd, DdpStreamListener listener) {
    this(Objects.requireNonNull(connection, "connection").channel(), connection.framer(), null,
        connection, connection.info().rtr(), connection.info().initiator(), pd, listener);
  }

  /**
   * A stream over a framer and deframer wired by the caller (tests, benchmarks, or a transport
   * that does its own MPA startup). Sending is always enabled: the caller applies RFC 5044
   * §7.1.2 rule 4 itself.
   *
   * @param channel the channel both run on
   * @param framer the send side
   * @param deframer the receive side; {@link #start()} makes this stream its listener
   * @param rtr the RTR the Initiator sent, or null
   * @param initiator whether this end is the MPA Initiator
   * @param pd the stream's Protection Domain
   * @param listener the upper layer, or null to {@linkplain #setListener set it} before
   *     {@link #start()}
   * @throws IllegalStateException when not called on the channel's event loop
   */
  public DdpStream(Channel channel, FpduFramer framer, FpduDeframer deframer, RtrType rtr,
      boolean initiator, ProtectionDomain pd, DdpStreamListener listener) {
    this(channel, framer, Objects.requireNonNull(deframer, "deframer"), null, rtr, initiator, pd,
        listener);
  }

  private DdpStream(Channel channel, FpduFramer framer, FpduDeframer deframer,
      MpaConnection connection, RtrType rtr, boolean initiator, ProtectionDomain pd,
      DdpStreamListener listener) {
    this.channel = Objects.requireNonNull(channel, "channel");
    this.framer = Objects.requireNonNull(framer, "framer");
    this.deframer = deframer;
    this.connection = connection;
    this.pd = Objects.requireNonNull(pd, "pd");
    this.listener = listener;
    checkInEventLoop("creating a DdpStream");
    this.segmenter = new DdpSegmenter(new FramerSegmentWriter(framer), channel.alloc(),
        new SmallBufferRing(channel, HEADER_CAPACITY, HEADER_SLOTS));
    this.dispatcher = new UntaggedDispatcher(untagged);
    this.tagged = new TaggedReceiver(this, pd, MAX_TAGGED_IN_PROGRESS);
    this.teardown = new StreamTeardown(channel, framer, segmenter, this::sendEnabled);
    int rtrQueue = rtrQueue(rtr);
    if (rtrQueue >= 0 && initiator) {
      segmenter.startAtMsn2(rtrQueue);
    }
    this.rtrReceiveQueue = initiator ? -1 : rtrQueue;
  }

  /** The queue whose MSN 1 the RTR used: 0 for a Send RTR, 1 for a Read RTR, else -1. */
  private static int rtrQueue(RtrType rtr) {
    if (rtr == RtrType.SEND) {
      return 0;
    }
    if (rtr == RtrType.READ) {
      return 1;
    }
    return -1;
  }

  // ---- set-up ----

  /**
   * Sets the upper layer: the stream is created first and its upper layer (an RDMAP endpoint
   * built on it) installs itself here. Only before {@link #start()}.
   *
   * @param listener the listener
   * @throws IllegalStateException once started, or off the event loop
   */
  public void setListener(DdpStreamListener listener) {
    checkInEventLoop("setListener");
    Objects.requireNonNull(listener, "listener");
    if (started) {
      throw new IllegalStateException("the DDP stream is started: its listener is fixed");
    }
    this.listener = listener;
  }

  /**
   * The channel this stream runs on (its event loop is the stream's).
   *
   * @return the channel this stream runs on (its event loop is the stream's)
   */
  public Channel channel() {
    return channel;
  }

  /**
   * Enables untagged queue {@code qn} for buffers the upper layer posts on the returned queue
   * ({@link UntaggedReceiveQueue#post}); each message consumes one, in posting order.
   *
   * @param qn the queue number
   * @param capacity the most buffers posted and not yet consumed
   * @param maxPieces the most regions one posted buffer may have
   * @return the queue
   * @throws IllegalStateException if the queue is already enabled, or off the event loop
   * @throws IllegalArgumentException for a QN outside 0..3 or non-positive sizes
   */
  public UntaggedReceiveQueue enableReceiveQueue(int qn, int capacity, int maxPieces) {
    checkInEventLoop("enableReceiveQueue");
    UntaggedReceiveQueue q = dispatcher.enableQueue(qn, capacity, maxPieces);
    if (qn == rtrReceiveQueue) {
      q.startAtMsn2();
    }
    return q;
  }

  /**
   * Enables untagged queue {@code qn} for control messages of at most {@code maxMessageLength}
   * octets, received into one buffer the stream owns and reposts after each delivery
   * ({@link DdpStreamListener#onControlMessage}). For RDMAP (the octets after the DDP header):
   * QN 1 Read Request 28 (Atomic Request 52 with RFC 7306), QN 2 Terminate at most 52, QN 3
   * Atomic Response 12. A longer message is DDP error 0x05.
   *
   * @param qn the queue number
   * @param maxMessageLength the longest message accepted
   * @throws IllegalStateException if the queue is already enabled, or off the event loop
   * @throws IllegalArgumentException for a QN outside 0..3 or a negative length
   */
  public void enableControlQueue(int qn, int maxMessageLength) {
    checkInEventLoop("enableControlQueue");
    if (maxMessageLength < 0) {
      throw new IllegalArgumentException("control message length " + maxMessageLength
          + " is negative");
    }
    untagged.makeControlQueue(qn, enableReceiveQueue(qn, 1, 1), maxMessageLength);
  }

  /**
   * Untagged queue {@code qn}, or null when it is not enabled (for posting and draining).
   *
   * @param qn the queue number
   * @return the queue
   */
  public UntaggedReceiveQueue receiveQueue(int qn) {
    return dispatcher.queue(qn);
  }

  /**
   * Starts receiving: makes this stream MPA's listener. ULPDUs MPA kept until now are handed
   * over first, in order.
   *
   * @throws IllegalStateException when already started, or off the event loop
   */
  public void start() {
    checkInEventLoop("start");
    if (started) {
      throw new IllegalStateException("the DDP stream is already started");
    }
    if (listener == null) {
      throw new IllegalStateException("the DDP stream has no listener: call setListener first");
    }
    started = true;
    if (connection != null) {
      connection.setListener(this);
    } else {
      deframer.setListener(this);
    }
  }

  // ---- state ----

  /**
   * Whether an error stopped placement on this stream.
   *
   * @return whether an error stopped placement on this stream
   */
  public boolean isErroneous() {
    return erroneous;
  }

  /**
   * The DDP error this stream reported, or null (none, or the error came from MPA or above).
   *
   * @return the DDP error this stream reported, or null (none, or the error came from MPA or above)
   */
  public DdpError error() {
    return offending.error();
  }

  /**
   * Stops placement for an error found by the upper layer (for RDMAP: a bad opcode or Read
   * Request): every later segment is dropped.
   */
  public void markErroneous() {
    erroneous = true;
    dispatcher.markErroneous();
  }

  /**
   * The Protection Domain whose STags tagged segments may use.
   *
   * @return the Protection Domain whose STags tagged segments may use
   */
  public ProtectionDomain protectionDomain() {
    return pd;
  }

  /**
   * Test seam: the next message sent on {@code qn} carries {@code sendMsn} and the first one
   * received on it must carry {@code receiveMsn} (RFC 5041 §4.3 wrap tests). Only before the
   * queue's first message in each direction.
   */
  void startQueueAtMsn(int qn, int sendMsn, int receiveMsn) {
    segmenter.startAtMsn(qn, sendMsn);
    receiveQueue(qn).startAtMsn(receiveMsn);
  }

  /**
   * The MSN the next untagged message sent on {@code qn} will carry.
   *
   * @param qn the queue number
   * @return the MSN the next untagged message sent on {@code qn} will carry
   */
  public int nextSendMsn(int qn) {
    return segmenter.nextMsn(qn);
  }

  /**
   * Tagged messages whose L=1 segment has not arrived yet.
   *
   * @return the number of tagged messages whose L=1 segment has not arrived yet
   */
  public int taggedMessagesInProgress() {
    return tagged.inProgress();
  }

  // ---- receive ----

  /** A verified ULPDU from MPA: one DDP segment. Event loop only (MPA calls it). */
  @Override
  public void onUlpdu(ChannelHandlerContext ctx, Ulpdu segment) {
    if (erroneous) {
      if (log.isDebugEnabled()) {
        log.debug("{} dropping a {}-octet segment: the stream is erroneous", channel,
            segment.length());
      }
      return;
    }
    int length = segment.length();
    if (length == 0) {
      fail(DdpError.LOCAL_CATASTROPHIC, segment, 0);
      return;
    }
    int control = DdpControl.get(segment);
    if (DdpControl.isTagged(control)) {
      tagged.onSegment(segment, control, length);
    } else {
      dispatcher.onSegment(segment);
    }
  }

  /**
   * A read from the socket is about to be decoded: the upper layer hands over the receive
   * buffers posted so far ({@link DdpStreamListener#beforeReadBatch}), once, before any of its
   * segments is validated. Event loop only (MPA calls it).
   */
  @Override
  public void beforeReadBatch(ChannelHandlerContext ctx) {
    if (!erroneous) {
      listener.beforeReadBatch();
    }
  }

  /** Local memory was deregistered under a segment: stop placement, tell the upper layer. */
  void localMemoryGone(int qn, long bufferId, Ulpdu segment, int headerLength) {
    record(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
    if (log.isDebugEnabled()) {
      log.debug("{} local memory deregistered under a {}-octet segment (QN {}); placement"
          + " stopped", channel, segment.length(), qn);
    }
    listener.onLocalMemoryGone(qn, bufferId, segment, headerLength);
  }

  /** The first error: stop placement, keep what the Terminate echoes, tell the upper layer. */
  void fail(DdpError e, Ulpdu segment, int headerLength) {
    record(e, segment, headerLength);
    if (log.isDebugEnabled()) {
      log.debug("{} DDP error {} (1/{}/0x{}) on a {}-octet segment; placement stopped", channel,
          e, e.errorType(), Integer.toHexString(e.code()), segment.length());
    }
    listener.onDdpError(e, segment, headerLength);
  }

  private void record(DdpError e, Ulpdu segment, int headerLength) {
    markErroneous();
    offending.record(e, segment, headerLength);
  }

  /** The upper layer: fixed once started. */
  DdpStreamListener listener() {
    return listener;
  }

  /** MPA's error: nothing more arrives; pass it up. */
  @Override
  public void onMpaError(ChannelHandlerContext ctx, MpaException mpaError) {
    markErroneous();
    log.debug("{} MPA error on the receive stream: {}", channel, mpaError.getMessage());
    listener.onMpaError(mpaError);
  }

  /** The peer's FIN at an FPDU boundary: pass it up. */
  @Override
  public void onInputClosed(ChannelHandlerContext ctx) {
    log.debug("{} the peer closed its sending half", channel);
    listener.onInputClosed();
  }

  // ---- send ----

  /**
   * Whether this end may send now: false for a client-server Responder until the Initiator's
   * first FPDU arrived (RFC 5044 §7.1.2 rule 4).
   *
   * @return whether this end may send now: false for a client-server Responder until the
   *     Initiator's first FPDU arrived (RFC 5044 §7.1.2 rule 4)
   */
  public boolean sendEnabled() {
    return connection == null || connection.sendEnabled();
  }

  /**
   * Sends one tagged message (RDMA Write, Read Response); not flushed.
   *
   * @param rsvdUlp the 32 reserved-for-ULP bits
   * @param stag the STag
   * @param to the tagged offset
   * @param payload the payload pieces
   * @see DdpSegmenter#sendTagged
   * @throws IllegalStateException when this end may not send (yet, or any more), or off the event
   *     loop
   */
  public void sendTagged(int rsvdUlp, int stag, long to, Gather payload) {
    checkCanSend();
    segmenter.sendTagged(rsvdUlp, stag, to, payload);
  }

  /**
   * Sends one untagged message on {@code qn} with that queue's next MSN; not flushed.
   *
   * @param rsvdUlp40 the 40 reserved-for-ULP bits of an untagged header
   * @param qn the queue number
   * @param rdmapHeader the RDMAP header placed before the payload, or null
   * @param payload the payload pieces
   * @return the MSN it was sent with
   * @see DdpSegmenter#sendUntagged
   * @throws IllegalStateException when this end may not send (yet, or any more), or off the event
   *     loop
   */
  public int sendUntagged(long rsvdUlp40, int qn, ByteBuf rdmapHeader, Gather payload) {
    checkCanSend();
    return segmenter.sendUntagged(rsvdUlp40, qn, rdmapHeader, payload);
  }

  /**
   * Writes the segments sent so far to the channel without flushing: call it before writing
   * anything to the channel directly, so that it follows them ({@link FpduFramer#writePending}).
   */
  public void writePending() {
    checkInEventLoop("writePending");
    framer.writePending();
  }

  /** Flushes what was sent: once per batch of messages. */
  public void flush() {
    checkInEventLoop("flush");
    framer.flush();
  }

  private void checkCanSend() {
    checkInEventLoop("sending");
    teardown.checkCanSend();
  }

  // ---- teardown ----

  /**
   * The length of the Terminate this stream sent, counted from the end of its DDP header (the
   * Terminate Control field and the headers it echoes): what RDMAP counts as its octets.
   *
   * @return the length, or 0 while no Terminate was sent
   */
  public int sentTerminateLength() {
    return teardown.sentTerminateLength();
  }

  /**
   * Sends the DDP-layer Terminate for the error this stream reported (RFC 5040 §4.8: Layer 1,
   * the error's EType and code, M=1 and D=1 with the DDP Segment Length and the offending DDP
   * header; HdrCt 000 when the segment was too short to hold a whole header), then closes.
   *
   * @return the future of the close
   * @throws IllegalStateException when no DDP error was reported, or off the event loop
   */
  public ChannelFuture terminateForError() {
    checkInEventLoop("terminateForError");
    DdpError error = offending.error();
    if (error == null) {
      throw new IllegalStateException("no DDP error was reported on this stream");
    }
    return terminate(DdpError.LAYER, error.errorType(), error.code(), offending.echoedHeader(),
        offending.segmentLength(), null);
  }

  /**
   * Sends one Terminate (RFC 5040 §4.8) as the next message of QN 2, then closes the connection
   * once it is written. When this end may not send (before rule 4 allows it, or a Terminate was
   * already sent) it only closes.
   *
   * @param layer the Terminate layer (0 RDMAP, 1 DDP, 2 LLP)
   * @param errorType the Error Type
   * @param errorCode the Error Code
   * @param ddpHeader null (HdrCt 000), or the terminated DDP header (its readable octets: 14 if
   *     its T bit is set, else 18), sent with M=1, D=1; not consumed
   * @param ddpSegmentLength the DDP Segment Length, with {@code ddpHeader}
   * @param rdmaHeader null, or the 28-octet terminated RDMA header (R=1; needs
   *     {@code ddpHeader}); not consumed
   * @return the future of the close
   * @throws IllegalArgumentException for fields out of range
   * @throws IllegalStateException off the event loop
   */
  public ChannelFuture terminate(int layer, int errorType, int errorCode, ByteBuf ddpHeader,
      int ddpSegmentLength, ByteBuf rdmaHeader) {
    checkInEventLoop("terminate");
    if (rdmaHeader != null && ddpHeader == null) {
      throw new IllegalArgumentException("a terminated RDMA header needs the DDP header too");
    }
    return teardown.terminate(layer, errorType, errorCode, ddpHeader, ddpSegmentLength,
        rdmaHeader);
  }

  /**
   * Graceful teardown (RFC 5041 §6.2.1): flushes what was sent, then closes the connection;
   * later send requests fail.
   *
   * @return the future of the close
   */
  public ChannelFuture close() {
    checkInEventLoop("close");
    return teardown.close();
  }

  private void checkInEventLoop(String what) {
    if (!channel.eventLoop().inEventLoop()) {
      throw new IllegalStateException(what + " must run on the connection's event loop ("
          + channel + "), not on " + Thread.currentThread().getName());
    }
  }
}
