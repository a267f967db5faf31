package io.iwarp4j.ddp;

import io.iwarp4j.mpa.Ulpdu;

/**
 * The upper layer (RDMAP) of an {@link UntaggedDispatcher}: told of every delivered untagged
 * message and of the first untagged error. Both calls carry primitives and the reused segment
 * view, so reporting allocates nothing. Called on the stream's event loop.
 */
public interface UntaggedReceiveListener {

  /**
   * A whole untagged message was placed and is delivered (RFC 5041 §5.4), exactly once and in
   * order: its last segment (L=1) arrived and every earlier message of its queue was delivered.
   *
   * @param qn the queue the message arrived on
   * @param msn its Message Sequence Number (unsigned)
   * @param length the message length: MO + payload length of the L=1 segment
   * @param rsvdUlp the 40-bit RsvdULP of the L=1 segment (RDMAP: control octet, Invalidate STag)
   * @param bufferId the id of the posted buffer the message consumed (placed from its start)
   */
  void onUntaggedMessage(int qn, int msn, int length, long rsvdUlp, long bufferId);

  /**
   * A segment failed validation (RFC 5041 §7.1). Nothing of it was placed, the dispatcher now
   * drops every later segment, and no further call follows. The arguments are what a Terminate
   * echoes (RFC 5040 §4.8: Layer 0x1, EType, code, DDP segment length, DDP header).
   *
   * @param error the DDP error: an Untagged Buffer error (EType 0x2) for U1-U6, or
   *     {@link DdpError#LOCAL_CATASTROPHIC} (EType 0x0) for a segment too short to hold an
   *     untagged header
   * @param segment the offending segment; its length is the DDP Segment Length. Valid only during
   *     this call: copy what must outlive it
   * @param headerLength how many of its first octets are the DDP header to echo: 18, or fewer
   *     when the segment was shorter
   */
  void onUntaggedError(DdpError error, Ulpdu segment, int headerLength);

  /**
   * Asked for every segment that passed U1-U6, right before its payload is placed: the upper
   * layer's chance to refuse a segment whose RsvdULP it cannot accept (RDMAP: its version or
   * opcode), so that nothing of it reaches the posted buffer. On false the dispatcher places
   * nothing, drops every later segment, and reports no error: the upper layer reports its own.
   *
   * @param qn the segment's queue
   * @param segment the segment, valid only during this call
   * @return whether to place it; the default accepts every segment
   */
  default boolean acceptSegment(int qn, Ulpdu segment) {
    return true;
  }

  /**
   * Whether a segment's payload goes into the posted buffer. Asked for every segment before DDP
   * validates it against that buffer. An upper layer answers false for a message that consumes a
   * buffer but whose few octets it takes itself (RFC 7306 Immediate Data: 8 octets handed to the
   * ULP in the completion, never placed). For such a segment the dispatcher checks the MSN as
   * usual and an MO of 0 against the buffer, places nothing, and delivers a message of length 0;
   * the upper layer reads the payload in {@link #acceptSegment}.
   *
   * @param qn the segment's queue
   * @param segment the segment, valid only during this call
   * @return whether to place its payload; the default places every segment's payload
   */
  default boolean placesPayload(int qn, Ulpdu segment) {
    return true;
  }

  /**
   * A new message (its segment carries the expected MSN) arrived on queue {@code qn} and finds
   * no posted buffer: the upper layer may post one now, on this thread, into
   * {@link UntaggedDispatcher#queue(int) the queue} (a buffer taken from a pool several streams
   * share, such as a verbs shared receive queue). Called before U2 is checked, so a buffer posted
   * here is the message's; otherwise the segment fails with "no buffer available". Must not
   * block or allocate. The default posts nothing.
   *
   * @param qn the queue that has no buffer
   */
  default void onBufferNeeded(int qn) {
  }

  /**
   * The posted buffer {@code bufferId} of queue {@code qn} could not take the segment: its
   * registered memory was deregistered after it was posted (see
   * {@link UntaggedReceiveQueue#place}). A local error, not the peer's; the dispatcher dropped the
   * segment and places nothing more. By default it is reported as DDP's Local Catastrophic error.
   *
   * @param qn the queue number
   * @param bufferId the id the buffer was posted with
   * @param segment the segment, valid during the call
   * @param headerLength the octets of its DDP header
   */
  default void onLocalMemoryGone(int qn, long bufferId, Ulpdu segment, int headerLength) {
    onUntaggedError(DdpError.LOCAL_CATASTROPHIC, segment, headerLength);
  }
}
