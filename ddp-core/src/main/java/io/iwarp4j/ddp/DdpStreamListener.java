package io.iwarp4j.ddp;

import io.iwarp4j.mpa.MpaException;
import io.iwarp4j.mpa.Ulpdu;
import io.netty.buffer.ByteBuf;

/**
 * The upper layer (RDMAP) of a {@link DdpStream}: told of every delivered message, of the first
 * error on the stream and of the end of input, and asked which access right a tagged segment
 * needs. Every call runs on the stream's event loop and carries primitives or views that are
 * valid only during the call, so the receive path allocates nothing.
 *
 * <p>Delivery follows RFC 5041 §5.4: a message is delivered exactly once, when its L=1 segment
 * arrived and all its octets are placed, and in the order the L=1 segments arrived (over TCP, the
 * order the Data Source sent them in). On Delivery DDP hands up the RsvdULP field and the message
 * length for every message type (RFC 5040 Figure 4), plus the STag (tagged) or QN and MSN
 * (untagged).
 */
public interface DdpStreamListener {
  /**
   * Whether to place a tagged segment: asked for every tagged segment with DV 1 and a whole
   * header, before anything of it is placed, zero-length segments included (their STag and TO
   * are not checked, RFC 5041 §5.2). The upper layer refuses what it does not accept (for
   * RDMAP: an RDMAP version other than 1, an opcode that may not travel tagged, a Read Response
   * that answers no outstanding Read) and reports its own error; the stream then places nothing
   * of it, drops every later segment, and reports no DDP error. The access right placement needs
   * is not the upper layer's to choose: it is the opcode's row of
   * {@link io.iwarp4j.wire.OpcodeTable} ({@code REMOTE_WRITE} for an RDMA Write,
   * {@code LOCAL_WRITE} for a Read Response into our own sink buffer). Must not allocate.
   *
   * @param rsvdUlp the segment's 8-bit RsvdULP (RDMAP: its control octet)
   * @param segment the segment, valid only during this call: for the upper layer's own Terminate
   *     when it refuses
   * @return whether to place it
   */
  boolean acceptTagged(int rsvdUlp, Ulpdu segment);

  /**
   * Whether to place an untagged segment: asked for every untagged segment that passed DDP's own
   * checks (U1-U6, {@link UntaggedDispatcher}), before anything of it is placed, so the upper
   * layer can refuse an RsvdULP it does not accept (for RDMAP: an RDMAP version other than 1, an
   * opcode that does not belong on this queue) with the posted buffer untouched. On false the
   * stream places nothing, drops every later segment, and reports no DDP error: the upper layer
   * reports its own. Must not allocate.
   *
   * @param qn the segment's queue
   * @param rsvdUlp the segment's 40-bit RsvdULP
   * @param segment the segment, valid only during this call: for the upper layer's own Terminate
   * @return whether to place it; the default accepts every segment
   */
  default boolean acceptUntagged(int qn, long rsvdUlp, Ulpdu segment) {
    return true;
  }

  /**
   * Whether an untagged segment's payload is placed into the posted buffer it consumes. False
   * for a message whose payload the upper layer takes itself from the segment in
   * {@link #acceptUntagged} (RFC 7306 Immediate Data): it still consumes a buffer, in order, and
   * is delivered with length 0. Asked before DDP's buffer checks. Must not allocate.
   *
   * @param qn the segment's queue
   * @param rsvdUlp the segment's 40-bit RsvdULP
   * @return whether to place the payload; the default places every payload
   */
  default boolean placesUntaggedPayload(int qn, long rsvdUlp) {
    return true;
  }

  /**
   * A tagged message was delivered: its L=1 segment arrived and every segment was placed.
   *
   * @param rsvdUlp the RsvdULP of the L=1 segment
   * @param stag the STag of the message
   * @param to the Tagged Offset of the message's first segment (unsigned)
   * @param length the message length: the payload octets of all its segments (see
   *     {@link DdpStream} for how segments are matched to a message)
   */
  void onTaggedMessage(int rsvdUlp, int stag, long to, long length);

  /**
   * An untagged message was delivered into a buffer the upper layer posted
   * ({@link DdpStream#enableReceiveQueue}).
   *
   * @param qn the queue
   * @param msn the message's MSN (unsigned)
   * @param rsvdUlp the 40-bit RsvdULP of the L=1 segment
   * @param length the message length: MO + payload length of the L=1 segment
   * @param bufferId the id the consumed buffer was posted with (filled from its start)
   */
  void onUntaggedMessage(int qn, int msn, long rsvdUlp, int length, long bufferId);

  /**
   * An untagged message was delivered into one of the stream's own buffers
   * ({@link DdpStream#enableControlQueue}): a Read Request, Terminate or Atomic message.
   *
   * @param qn the queue
   * @param msn the message's MSN (unsigned)
   * @param rsvdUlp the 40-bit RsvdULP of the L=1 segment
   * @param message the message octets as the readable bytes of the stream's buffer; valid only
   *     during this call, to be read only: do not retain, release or write it
   */
  void onControlMessage(int qn, int msn, long rsvdUlp, ByteBuf message);

  /**
   * A segment failed DDP validation (RFC 5041 §7.1). Nothing of it was placed, the stream drops
   * every later segment, and no further delivery or error follows. The arguments are what a
   * Terminate echoes (RFC 5040 §4.8): {@link DdpStream#terminateForError()} sends it.
   *
   * @param error the error: Layer 1, its Error Type and code
   * @param segment the offending segment; its length is the DDP Segment Length; valid only during
   *     this call
   * @param headerLength how many of its first octets are the DDP header to echo: 14 (tagged) or
   *     18 (untagged), fewer when the segment was shorter
   */
  void onDdpError(DdpError error, Ulpdu segment, int headerLength);

  /**
   * MPA reported an error on the receive stream (CRC, Marker, a FIN inside an FPDU or a lost
   * connection). The stream drops everything after it (RFC 5041 §7: LLP errors are passed up).
   *
   * @param error the error
   */
  void onMpaError(MpaException error);

  /** The peer closed its sending half cleanly, at an FPDU boundary (RFC 5041 §6.2.1). */
  void onInputClosed();

  /**
   * A batch of segments read from the socket is about to be validated: the upper layer hands
   * down now, with {@link UntaggedReceiveQueue#post}, the receive buffers it has accepted and not
   * yet posted (a verbs receive posted on another thread and not yet handed to this event
   * loop). Called once per read, before its first segment. A new message that then finds no
   * posted buffer gets one more chance, {@link #receiveBufferNeeded}; without a buffer it is "no
   * buffer available" (RFC 5041 §7.1, U2). Not called once the stream is erroneous. Must not
   * block.
   */
  default void beforeReadBatch() {
  }

  /**
   * A new message on receive queue {@code qn} ({@link DdpStream#enableReceiveQueue}) finds no
   * posted buffer: the upper layer may post one now, with {@link UntaggedReceiveQueue#post},
   * from a pool several streams share (a verbs shared receive queue, whose receives belong to
   * no stream until a message takes one). Called from inside validation, right before the U2
   * check, once per such message; a stream whose upper layer posts here nothing fails the
   * segment with "no buffer available" (1/2/0x02). Must not block or allocate. The default posts
   * nothing.
   *
   * @param qn the receive queue
   */
  default void receiveBufferNeeded(int qn) {
  }

  /**
   * Local memory a segment was to be placed into was deregistered (or invalidated) after the
   * upper layer handed it down: the posted buffer {@code bufferId} of untagged queue {@code qn},
   * or ({@code qn} = -1) the LOCAL_WRITE sink of a tagged segment (the opcode table
   * gives LOCAL_WRITE for its opcode and the STag is no longer valid). A local error, not the peer's: nothing
   * of the segment was placed into that memory and the stream places nothing more, as after
   * {@link #onDdpError}. By default it is reported as DDP's Local Catastrophic error (the
   * stream's {@code terminateForError} sends 1/0/0x00).
   *
   * @param qn the untagged queue number, or -1 for a tagged segment
   * @param bufferId the posted buffer's id (untagged), else 0
   * @param segment the segment, valid during the call
   * @param headerLength the octets of its DDP header
   */
  default void onLocalMemoryGone(int qn, long bufferId, Ulpdu segment, int headerLength) {
    onDdpError(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
  }
}
