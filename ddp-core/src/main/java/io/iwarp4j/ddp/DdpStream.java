package io.iwarp4j.ddp;

import io.iwarp4j.ddp.mem.AccessFlags;
import io.iwarp4j.ddp.mem.ProtectionDomain;
import io.iwarp4j.ddp.mem.StagCheck;
import io.iwarp4j.ddp.mem.StagTable;
import io.iwarp4j.mpa.FpduDeframer;
import io.iwarp4j.mpa.FpduFramer;
import io.iwarp4j.mpa.MpaConnection;
import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.RtrType;
import io.iwarp4j.mpa.SmallBufferRing;
import io.iwarp4j.mpa.TerminateClose;
import io.iwarp4j.mpa.Ulpdu;
import io.iwarp4j.mpa.UlpduListener;
import io.iwarp4j.wire.DdpControl;
import io.iwarp4j.wire.OpcodeTable;
import io.iwarp4j.wire.RdmapControl;
import io.iwarp4j.wire.TaggedHeader;
import io.iwarp4j.wire.TerminateMessage;
import io.iwarp4j.wire.UntaggedHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
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
 * In this order, all before anything of the segment is placed:
 * <ol>
 *   <li>DV = 1, else {@link DdpError#TAGGED_INVALID_DDP_VERSION} (0x04), on every segment;
 *   <li>a whole 14-octet header, else {@link DdpError#LOCAL_CATASTROPHIC} (no DDP code fits);
 *   <li>the upper layer's own checks ({@link DdpStreamListener#acceptTagged}); then the access
 *       right placement needs, from the opcode's row of {@link OpcodeTable}: {@code REMOTE_WRITE}
 *       for an RDMA Write, {@code LOCAL_WRITE} for a Read Response. An upper layer that accepts
 *       an opcode the table does not let travel tagged has a bug: the stream stops and throws
 *       {@link IllegalStateException};
 *   <li>for a non-zero payload only (RFC 5041 §5.2: a zero-length segment's STag and TO are not
 *       checked), {@link StagTable#checkAndPlace}: STag valid (0x00), associated with this
 *       stream's Protection Domain (0x02), access right (no DDP code: reported as 0x00, see
 *       {@link DdpError#forStagCheck}), TO wrap (0x03), base and bounds (0x01); then the payload
 *       is copied once, piece by piece, from the socket buffers MPA verified into the region.
 * </ol>
 * TO wrap is checked before bounds ({@link StagCheck} explains why: the other order would make
 * 0x03 unreachable). On L=1 the message is delivered with
 * {@link DdpStreamListener#onTaggedMessage}: its length is the payload octets of all segments
 * with its STag since the previous L=1 segment of that STag, its TO the first segment's. Up to
 * {@link #MAX_TAGGED_IN_PROGRESS} tagged messages (distinct STags) may be in progress at once; a
 * peer that interleaves more is reported as {@link DdpError#LOCAL_CATASTROPHIC}.
 *
 * <h2>Receive, untagged (T=0)</h2>
 * {@link UntaggedDispatcher} validates U1-U6, asks the upper layer whether to place the segment
 * ({@link DdpStreamListener#acceptUntagged}: RDMAP refuses a bad version or opcode there, before
 * anything is placed) and places into the queue's posted buffer. Queues
 * come in two kinds: {@link #enableReceiveQueue} for buffers the upper layer posts (QN 0, the
 * verbs receive queue; each buffer a small scatter list), delivered with
 * {@link DdpStreamListener#onUntaggedMessage}; {@link #enableControlQueue} for messages of a
 * bounded size (QN 1 Read/Atomic Requests, QN 2 Terminate, QN 3 Atomic Responses) that land in
 * one preallocated buffer of the stream, handed up with
 * {@link DdpStreamListener#onControlMessage} and reposted right after the call. One buffer is
 * enough: over TCP a queue's next message cannot start before the previous one's L=1 segment,
 * which delivers it; how many requests a peer may have outstanding is the upper layer's rule
 * (IRD), not a DDP buffer count.
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
  private final StagTable stags;
  /** Null until set, by the constructor or {@link #setListener}; set before {@link #start()}. */
  private DdpStreamListener listener;
  private final DdpSegmenter segmenter;
  private final UntaggedDispatcher dispatcher;
  private final TaggedMessages tagged = new TaggedMessages(MAX_TAGGED_IN_PROGRESS);
  /** The stream's own buffer of each control queue, or null. */
  private final ByteBuf[] controlBuffers = new ByteBuf[UntaggedDispatcher.QUEUE_COUNT];
  /** The receive queue whose MSN 1 an RTR consumed, or -1. */
  private final int rtrReceiveQueue;

  /** The first error's DDP header, for the Terminate. */
  private final ByteBuf offendingHeader = Unpooled.wrappedBuffer(new byte[UntaggedHeader.LENGTH]);
  private int offendingSegmentLength;
  private DdpError error;

  private boolean started;
  private boolean erroneous;
  private boolean terminateSent;
  /** The octets after the DDP header of the Terminate this stream sent; 0 while none was. */
  private int sentTerminateLength;
  private boolean closed;

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
    this.stags = pd.table();
    this.listener = listener;
    checkInEventLoop("creating a DdpStream");
    this.segmenter = new DdpSegmenter(new FramerSegmentWriter(framer), channel.alloc(),
        new SmallBufferRing(channel, HEADER_CAPACITY, HEADER_SLOTS));
    this.dispatcher = new UntaggedDispatcher(new UntaggedEvents());
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
    ByteBuf buffer = Unpooled.wrappedBuffer(new byte[maxMessageLength]).clear();
    UntaggedReceiveQueue q = enableReceiveQueue(qn, 1, 1);
    q.post(buffer, 0, maxMessageLength, qn);
    controlBuffers[qn] = buffer;
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
    return error;
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
      onTagged(segment, control, length);
    } else {
      dispatcher.onSegment(segment);
    }
  }

  private void onTagged(Ulpdu segment, int control, int length) {
    int headerLength = Math.min(length, TaggedHeader.LENGTH);
    if (DdpControl.version(control) != DdpControl.VERSION) {
      fail(DdpError.TAGGED_INVALID_DDP_VERSION, segment, headerLength);
      return;
    }
    if (length < TaggedHeader.LENGTH) {
      fail(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
      return;
    }
    int rsvdUlp = TaggedHeader.rsvdUlp(segment);
    int stag = TaggedHeader.stag(segment);
    long to = TaggedHeader.taggedOffset(segment);
    int payload = length - TaggedHeader.LENGTH;
    boolean last = DdpControl.isLast(control);
    if (!listener.acceptTagged(rsvdUlp, segment)) {
      if (log.isDebugEnabled()) {
        log.debug("{} tagged segment with RsvdULP 0x{} rejected by the upper layer", channel,
            Integer.toHexString(rsvdUlp));
      }
      markErroneous();
      return;
    }
    int opcode = RdmapControl.opcode(rsvdUlp);
    if (!OpcodeTable.validTagged(opcode)) {
      // Placement by an opcode with no tagged row would write memory no rule names a right
      // for: an upper-layer bug, stopped before it opens regions to the peer.
      markErroneous();
      throw new IllegalStateException("the upper layer accepted a tagged segment with opcode 0x"
          + Integer.toHexString(opcode) + ", which may not travel tagged; the stream stopped"
          + " placing");
    }
    int access = OpcodeTable.has(opcode, OpcodeTable.SINK_REMOTE_WRITE)
        ? AccessFlags.REMOTE_WRITE : AccessFlags.LOCAL_WRITE;
    int slot = tagged.find(stag);
    if (slot < 0 && !last) {
      slot = tagged.open(stag, to);
      if (slot < 0) {
        // A resource limit of ours, not a field the peer got wrong.
        fail(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
        return;
      }
    }
    if (payload > 0) {
      StagCheck check = stags.checkAndPlace(stag, to, segment, TaggedHeader.LENGTH, payload,
          access, pd);
      if (check != StagCheck.OK) {
        if (check == StagCheck.INVALID_STAG && access == AccessFlags.LOCAL_WRITE) {
          // Our own sink (a Read's), checked when it was issued: deregistered since.
          localMemoryGone(-1, 0, segment, headerLength);
          return;
        }
        fail(DdpError.forStagCheck(check), segment, headerLength);
        return;
      }
    }
    if (!last) {
      tagged.add(slot, payload);
      return;
    }
    long messageTo = to;
    long messageLength = payload;
    if (slot >= 0) {
      tagged.add(slot, payload);
      messageTo = tagged.startTo(slot);
      messageLength = tagged.length(slot);
      tagged.close(slot);
    }
    if (log.isDebugEnabled()) {
      log.debug("{} tagged message delivered: rsvdUlp=0x{} stag=0x{} to=0x{} length={}", channel,
          Integer.toHexString(rsvdUlp), Integer.toHexString(stag), Long.toHexString(messageTo),
          messageLength);
    }
    listener.onTaggedMessage(rsvdUlp, stag, messageTo, messageLength);
  }

  /** Local memory was deregistered under a segment: stop placement, tell the upper layer. */
  private void localMemoryGone(int qn, long bufferId, Ulpdu segment, int headerLength) {
    record(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
    if (log.isDebugEnabled()) {
      log.debug("{} local memory deregistered under a {}-octet segment (QN {}); placement"
          + " stopped", channel, segment.length(), qn);
    }
    listener.onLocalMemoryGone(qn, bufferId, segment, headerLength);
  }

  /** The first error: stop placement, keep what the Terminate echoes, tell the upper layer. */
  private void fail(DdpError e, Ulpdu segment, int headerLength) {
    record(e, segment, headerLength);
    if (log.isDebugEnabled()) {
      log.debug("{} DDP error {} (1/{}/0x{}) on a {}-octet segment; placement stopped", channel,
          e, e.errorType(), Integer.toHexString(e.code()), segment.length());
    }
    listener.onDdpError(e, segment, headerLength);
  }

  private void record(DdpError e, Ulpdu segment, int headerLength) {
    markErroneous();
    error = e;
    offendingHeader.clear();
    segment.getBytes(0, offendingHeader, 0, headerLength);
    offendingHeader.writerIndex(headerLength);
    offendingSegmentLength = segment.length();
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

  /** The untagged path's deliveries and errors, routed to the upper layer. */
  private final class UntaggedEvents implements UntaggedReceiveListener {
    @Override
    public void onUntaggedMessage(int qn, int msn, int length, long rsvdUlp, long bufferId) {
      ByteBuf own = controlBuffers[qn];
      if (own == null) {
        listener.onUntaggedMessage(qn, msn, rsvdUlp, length, bufferId);
        return;
      }
      own.setIndex(0, length);
      try {
        listener.onControlMessage(qn, msn, rsvdUlp, own);
      } finally {
        own.clear();
        dispatcher.queue(qn).post(own, 0, own.capacity(), qn);
      }
    }

    @Override
    public void replenish(int qn) {
      listener.replenishUntagged(qn);
    }

    @Override
    public boolean placesPayload(int qn, Ulpdu segment) {
      return listener.placesUntaggedPayload(qn, UntaggedHeader.rsvdUlp(segment));
    }

    @Override
    public boolean acceptSegment(int qn, Ulpdu segment) {
      if (listener.acceptUntagged(qn, UntaggedHeader.rsvdUlp(segment), segment)) {
        return true;
      }
      if (log.isDebugEnabled()) {
        log.debug("{} untagged segment on QN {} rejected by the upper layer", channel, qn);
      }
      markErroneous();
      return false;
    }

    @Override
    public void onUntaggedError(DdpError e, Ulpdu segment, int headerLength) {
      fail(e, segment, headerLength);
    }

    @Override
    public void onLocalMemoryGone(int qn, long bufferId, Ulpdu segment, int headerLength) {
      localMemoryGone(qn, bufferId, segment, headerLength);
    }
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
  public void sendTagged(int rsvdUlp, int stag, long to, GatherList payload) {
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
  public int sendUntagged(long rsvdUlp40, int qn, ByteBuf rdmapHeader, GatherList payload) {
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
    if (terminateSent) {
      throw new IllegalStateException("a Terminate was sent on this stream: nothing may follow it"
          + " (RFC 5040 §5.4)");
    }
    if (closed) {
      throw new IllegalStateException("the DDP stream is closed (RFC 5041 §6.2.1: transfers"
          + " after teardown fail)");
    }
    if (!sendEnabled()) {
      throw new IllegalStateException("this MPA Responder may not send before the Initiator's"
          + " first FPDU arrived (RFC 5044 §7.1.2 rule 4); wait for"
          + " MpaConnection.sendEnabledFuture()");
    }
  }

  // ---- teardown ----

  /**
   * The length of the Terminate this stream sent, counted from the end of its DDP header (the
   * Terminate Control field and the headers it echoes): what RDMAP counts as its octets.
   *
   * @return the length, or 0 while no Terminate was sent
   */
  public int sentTerminateLength() {
    return sentTerminateLength;
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
    if (error == null) {
      throw new IllegalStateException("no DDP error was reported on this stream");
    }
    int full = offendingHeader.readableBytes() > 0
        && DdpControl.isTagged(offendingHeader.getUnsignedByte(0))
        ? TaggedHeader.LENGTH : UntaggedHeader.LENGTH;
    boolean withHeader = offendingHeader.readableBytes() == full;
    return terminate(DdpError.LAYER, error.errorType(), error.code(),
        withHeader ? offendingHeader : null, offendingSegmentLength, null);
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
    ChannelPromise closePromise = channel.newPromise();
    if (terminateSent || closed || !channel.isActive() || !sendEnabled()) {
      log.debug("{} closing without a Terminate (sent={}, closed={}, sendEnabled={})", channel,
          terminateSent, closed, sendEnabled());
      closed = true;
      channel.close(closePromise);
      return closePromise;
    }
    ByteBuf message = Unpooled.buffer(TerminateMessage.MAX_LENGTH);
    try {
      int msn = segmenter.nextMsn(OpcodeTable.TERMINATE_QN);
      if (ddpHeader == null) {
        TerminateMessage.write(message, msn, layer, errorType, errorCode);
      } else {
        TerminateMessage.write(message, msn, layer, errorType, errorCode, true, ddpSegmentLength,
            ddpHeader, rdmaHeader);
      }
      // TerminateMessage wrote the whole ULPDU; the segmenter writes the same DDP header with
      // the queue's MSN (consuming it) and takes the rest as the RDMAP header.
      long rsvdUlp = UntaggedHeader.rsvdUlp(message, 0);
      ByteBuf rest = message.slice(UntaggedHeader.LENGTH,
          message.readableBytes() - UntaggedHeader.LENGTH);
      terminateSent = true;
      segmenter.sendUntagged(rsvdUlp, OpcodeTable.TERMINATE_QN, rest, null);
      sentTerminateLength = rest.readableBytes();
    } catch (RuntimeException e) {
      closed = true;
      channel.close();
      throw e;
    } finally {
      message.release();
    }
    log.debug("{} sent Terminate {}/{}/0x{}; closing", channel, layer, errorType,
        Integer.toHexString(errorCode));
    closed = true;
    framer.flush();
    // Closes once everything before has left, after draining the peer's input so that our
    // close is a FIN, not a RST that would destroy the Terminate in flight.
    TerminateClose.closeAfterWrites(channel, closePromise);
    return closePromise;
  }

  /**
   * Graceful teardown (RFC 5041 §6.2.1): flushes what was sent, then closes the connection;
   * later send requests fail.
   *
   * @return the future of the close
   */
  public ChannelFuture close() {
    checkInEventLoop("close");
    closed = true;
    framer.flush();
    return channel.close();
  }

  private void checkInEventLoop(String what) {
    if (!channel.eventLoop().inEventLoop()) {
      throw new IllegalStateException(what + " must run on the connection's event loop ("
          + channel + "), not on " + Thread.currentThread().getName());
    }
  }
}
